import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import fastifyStatic from '@fastify/static';
import type { Logger } from '@orbital/logger';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * What the console's pages may load: only this origin's scripts, styles and API (the console talks to
 * the same gateway), no inline script, no framing. A page that an attacker manages to inject markup
 * into still cannot run a script of theirs.
 */
export const consoleContentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

function securityHeaders(reply: FastifyReply) {
  reply.header('content-security-policy', consoleContentSecurityPolicy);
  reply.header('x-content-type-options', 'nosniff');
  reply.header('referrer-policy', 'same-origin');
  reply.header('x-frame-options', 'DENY');
}

/**
 * Vite names every built asset after its content hash, so a browser may keep one for a year without
 * asking; index.html names the current assets, so it is revalidated on every load (a new console is
 * picked up at once, and unchanged ones cost a 304).
 */
function cacheHeaders(reply: FastifyReply, path: string) {
  reply.header('cache-control', /[/\\]assets[/\\]/.test(path) ? 'public, max-age=31536000, immutable' : 'no-cache');
}

export type ConsoleFallback = (request: FastifyRequest, reply: FastifyReply) => Promise<boolean>;

/**
 * Serves the web console (console/dist, built by Vite) at `/` and answers the console's own paths
 * (`/teams/…`, a reload or a shared link) with its index.html, so client-side routing works. Anything
 * under a path the gateway itself serves (`/api`, `/documentation`, OAuth, probes) keeps its JSON 404;
 * so does a missing asset, and any request that is not a page navigation.
 *
 * Returns the fallback the not-found handler calls first: true when it answered.
 */
export async function registerConsole(
  app: FastifyInstance,
  options: { dir: string | undefined; logger: Logger },
): Promise<ConsoleFallback> {
  // First path segments of the gateway's own routes, collected as they are registered; the console
  // may not shadow them, whatever is added later.
  const reserved = new Set(['api', 'assets']);
  app.addHook('onRoute', (route) => {
    const first = route.url.split('/')[1] ?? '';
    if (first && !first.includes('*') && !first.includes(':')) reserved.add(first);
  });

  const index = options.dir ? join(options.dir, 'index.html') : null;
  const built = index !== null && existsSync(index);
  if (built && options.dir) {
    await app.register(fastifyStatic, {
      root: options.dir,
      prefix: '/',
      // One catch-all route: a rebuilt console (new hashed names) is served without a restart.
      wildcard: true,
      decorateReply: false,
      // The build writes .br and .gz twins of every asset; the smallest the browser accepts is sent.
      preCompressed: true,
      cacheControl: false,
      serveDotFiles: false,
      // The catch-all sees every path no route matched; one under the gateway's own prefixes (an /api
      // path whose parameter is too long to match, say) is never a file: straight to the JSON 404.
      allowedPath: (pathName) => {
        const first = pathName.split('/')[1] ?? '';
        return first === 'assets' || !reserved.has(first);
      },
      schemaHide: true,
      setHeaders: (reply, path) => {
        securityHeaders(reply as unknown as FastifyReply);
        cacheHeaders(reply as unknown as FastifyReply, path);
      },
    });
  } else if (options.dir) {
    options.logger.warn(
      { dir: options.dir },
      'the web console is not built: run `npm run build -w console` (npm start and the container image do)',
    );
  }

  return async (request, reply) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return false;
    const path = request.url.split('?')[0] ?? '/';
    const segments = path.split('/').filter(Boolean);
    const isPage =
      !reserved.has(segments[0] ?? '') &&
      !(segments.at(-1) ?? '').includes('.') &&
      (request.headers.accept ?? '').includes('text/html');
    if (!isPage) return false;
    securityHeaders(reply);
    reply.header('cache-control', 'no-cache');
    if (!built || !index) {
      reply
        .status(404)
        .type('text/plain; charset=utf-8')
        .send(
          'The Orbital web console is not built on this server. Build it with `npm run build -w console` and restart gateway-api;\n' +
            'the API is at /api and its documentation at /documentation.\n',
        );
      return true;
    }
    reply
      .status(200)
      .type('text/html; charset=utf-8')
      .send(await readFile(index));
    return true;
  };
}
