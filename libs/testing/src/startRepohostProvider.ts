import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { freePort } from './freePort.ts';
import { closeNow, listenLocally } from './listenLocally.ts';

export type RepohostAccount = {
  id: number;
  login: string;
  name: string | null;
  emails: Array<{ email: string; primary: boolean; verified: boolean }>;
};

export type RepohostProvider = {
  /** The web address (authorize, access_token): `repohost.oauth.web_url`. */
  webUrl: string;
  /** The REST API's base, under /api/v3 as on GitHub Enterprise: `repohost.oauth.api_url`. */
  apiUrl: string;
  clientId: string;
  clientSecret: string;
  /** Who the next authorization signs in; null makes it answer `error=access_denied` (the person cancelled). */
  signInAs(account: RepohostAccount | null): void;
  /** Token requests the provider answered, newest last, as it saw them (for assertions on PKCE and secrets). */
  tokenRequests: Array<Record<string, string>>;
  /** Stops listening (connections refused), as a provider outage looks; `resume` listens again on the same port. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
};

type IssuedCode = { account: RepohostAccount; redirectUri: string; challenge: string; used: boolean };

/**
 * A local stand-in for a GitHub-compatible code-hosting provider, speaking the endpoints of the OAuth
 * web flow as GitHub documents them: GET /login/oauth/authorize (here: at once redirects back, as GitHub
 * does for an application the person already authorized), POST /login/oauth/access_token (refusals are
 * HTTP 200 with an `error` field, as GitHub answers them; codes are single-use and checked against the
 * PKCE challenge and the redirect URI), and the REST API's /user and /user/emails (the latter only with
 * the `user:email` scope).
 */
export async function startRepohostProvider(): Promise<RepohostProvider> {
  const port = await freePort();
  const webUrl = `http://127.0.0.1:${port}`;
  const clientId = `Iv1.${randomBytes(8).toString('hex')}`;
  const clientSecret = randomBytes(20).toString('hex');
  let account: RepohostAccount | null = null;
  const codes = new Map<string, IssuedCode>();
  const tokens = new Map<string, { account: RepohostAccount; scope: string }>();
  const scopes = new Map<string, string>();
  const tokenRequests: Array<Record<string, string>> = [];

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const readBody = (req: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let text = '';
      req.on('data', (chunk) => {
        text += chunk;
      });
      req.on('end', () => resolve(text));
    });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const url = new URL(req.url ?? '/', webUrl);
    if (req.method === 'GET' && url.pathname === '/login/oauth/authorize') {
      const redirect = new URL(url.searchParams.get('redirect_uri') ?? '');
      const state = url.searchParams.get('state') ?? '';
      if (url.searchParams.get('client_id') !== clientId) return json(res, 404, { message: 'unknown client' });
      if (!account) {
        redirect.search = new URLSearchParams({ error: 'access_denied', state }).toString();
      } else {
        const code = randomBytes(10).toString('hex');
        codes.set(code, {
          account,
          redirectUri: redirect.href,
          challenge: url.searchParams.get('code_challenge') ?? '',
          used: false,
        });
        scopes.set(code, url.searchParams.get('scope') ?? '');
        redirect.search = new URLSearchParams({ code, state }).toString();
      }
      res.writeHead(302, { location: redirect.href }).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/login/oauth/access_token') {
      const form = Object.fromEntries(new URLSearchParams(await readBody(req)));
      tokenRequests.push(form);
      if (form.client_id !== clientId || form.client_secret !== clientSecret) {
        return json(res, 200, { error: 'incorrect_client_credentials' });
      }
      const issued = codes.get(form.code ?? '');
      const verifierMatches =
        issued &&
        createHash('sha256')
          .update(form.code_verifier ?? '')
          .digest('base64url') === issued.challenge;
      if (!issued || issued.used || !verifierMatches) return json(res, 200, { error: 'bad_verification_code' });
      issued.used = true;
      if (form.redirect_uri !== issued.redirectUri) return json(res, 200, { error: 'redirect_uri_mismatch' });
      const token = `gho_${randomBytes(16).toString('hex')}`;
      tokens.set(token, { account: issued.account, scope: scopes.get(form.code ?? '') ?? '' });
      return json(res, 200, { access_token: token, token_type: 'bearer', scope: scopes.get(form.code ?? '') });
    }
    if (req.method === 'GET' && url.pathname.startsWith('/api/v3/')) {
      const bearer = /^Bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const grant = bearer ? tokens.get(bearer) : undefined;
      if (!grant) return json(res, 401, { message: 'Bad credentials' });
      if (!req.headers['user-agent']) return json(res, 403, { message: 'a User-Agent header is required' });
      if (url.pathname === '/api/v3/user') {
        const { id, login, name } = grant.account;
        const primary = grant.account.emails.find((e) => e.primary);
        return json(res, 200, { id, login, name, email: primary?.email ?? null });
      }
      if (url.pathname === '/api/v3/user/emails') {
        if (!grant.scope.split(/[ ,]/).includes('user:email')) return json(res, 404, { message: 'Not Found' });
        return json(
          res,
          200,
          grant.account.emails.map((e) => ({ ...e, visibility: e.primary ? 'private' : null })),
        );
      }
    }
    json(res, 404, { message: 'Not Found' });
  }

  let server: Server;
  const listen = async () => {
    server = createServer((req, res) => {
      handle(req, res).catch((error: unknown) => json(res, 500, { message: String(error) }));
    });
    await listenLocally(server, port);
  };
  const close = () => closeNow(server);
  await listen();
  return {
    webUrl,
    apiUrl: `${webUrl}/api/v3`,
    clientId,
    clientSecret,
    signInAs(next) {
      account = next;
    },
    tokenRequests,
    pause: close,
    resume: listen,
    stop: close,
  };
}
