import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from 'jose';
import Provider, { type KoaContextWithOIDC } from 'oidc-provider';
import { freePort } from './freePort.ts';
import { closeNow, listenLocally } from './listenLocally.ts';

export type OidcAccount = { sub: string; claims: Record<string, unknown> };

export type OidcProvider = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Adds or replaces an account the provider can sign in. */
  addAccount(account: OidcAccount): void;
  /**
   * Who signs in at the next authorization, without a page (API tests): an account's `sub`, or null to
   * show the provider's own sign-in page (browser tests type the account's `sub` there and press "Sign in").
   */
  signInAs(sub: string | null): void;
  /**
   * Spoils the ID token of the next token responses, as an attacker between the gateway and the provider
   * would: `signature` flips a byte of its signature; `nonce` signs it again (with the provider's own key)
   * carrying another nonce, as a token issued for another sign-in. Null sends tokens untouched.
   */
  tamperIdTokens(how: 'signature' | 'nonce' | null): void;
  /**
   * Follows an authorization URL through the provider as a browser would (its cookies kept) until the
   * provider redirects to a URL outside itself: the client's callback with `code`, `state` and `iss`.
   */
  authorize(url: string): Promise<URL>;
  /** Stops listening (connections refused), as an outage looks; `resume` listens again on the same port. */
  pause(): Promise<void>;
  resume(): Promise<void>;
  stop(): Promise<void>;
};

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c);

/**
 * A real OpenID Provider (`oidc-provider`, the certified implementation) on a local port, for tests of
 * single sign-on: discovery, the authorization code flow with PKCE, signed ID tokens and UserInfo. One
 * confidential client (client_secret_post) whose redirect URI the test names. Accounts are given by the
 * test with their claims (email, email_verified, name, groups...); the interaction either completes at
 * once as the chosen account or shows a minimal sign-in page.
 */
export async function startOidcProvider(options: { redirectUris: string[] }): Promise<OidcProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const clientId = `orbital-${randomBytes(4).toString('hex')}`;
  const clientSecret = randomBytes(24).toString('base64url');
  const accounts = new Map<string, OidcAccount>();
  let autoSub: string | null = null;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', use: 'sig', alg: 'RS256' };

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_post',
      },
    ],
    jwks: { keys: [jwk as never] },
    cookies: { keys: [randomBytes(16).toString('hex')] },
    claims: {
      openid: ['sub'],
      email: ['email', 'email_verified'],
      profile: ['name', 'preferred_username'],
      groups: ['groups'],
    },
    scopes: ['openid', 'email', 'profile', 'groups'],
    pkce: { required: () => true },
    // Lifetimes given, so the provider does not print a notice about each default it uses.
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 600, IdToken: 600, Interaction: 600, Session: 600 },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: KoaContextWithOIDC, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx, sub) {
      const account = accounts.get(sub);
      if (!account) return undefined;
      return { accountId: sub, claims: async () => ({ ...account.claims, sub }) };
    },
  });
  // The provider logs nothing of its own to the test's output.
  provider.on('server_error', () => {});
  const oidcHandler = provider.callback();

  /** Signs the interaction in as `sub` and grants what the client asked for. */
  async function finish(req: IncomingMessage, res: ServerResponse, sub: string) {
    const details = await provider.interactionDetails(req, res);
    const grant = new provider.Grant({ accountId: sub, clientId });
    const scope = (details.params.scope as string | undefined) ?? 'openid';
    grant.addOIDCScope(scope);
    const grantId = await grant.save();
    await provider.interactionFinished(
      req,
      res,
      { login: { accountId: sub }, consent: { grantId } },
      { mergeWithLastSubmission: false },
    );
  }

  async function interaction(req: IncomingMessage, res: ServerResponse, path: string) {
    if (req.method === 'POST' && path.endsWith('/login')) {
      let body = '';
      for await (const chunk of req) body += chunk;
      const sub = new URLSearchParams(body).get('login') ?? '';
      if (!accounts.has(sub)) {
        res.writeHead(400, { 'content-type': 'text/html' }).end('<p role="alert">Unknown account</p>');
        return;
      }
      return finish(req, res, sub);
    }
    if (autoSub) return finish(req, res, autoSub);
    const uid = escapeHtml(path.split('/')[2] ?? '');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html>
<html lang="en"><head><title>Test identity provider</title></head><body>
  <h1>Test identity provider</h1>
  <form method="post" action="/interaction/${uid}/login">
    <label>Username <input name="login" autocomplete="off"></label>
    <button type="submit">Sign in</button>
  </form>
</body></html>`);
  }

  let tamper: 'signature' | 'nonce' | null = null;

  /** Holds back the token response, changes its id_token as `how` says, then sends it. */
  function spoilIdToken(res: ServerResponse, how: 'signature' | 'nonce') {
    const chunks: Buffer[] = [];
    const end = res.end.bind(res);
    res.write = ((chunk: string | Buffer) => {
      chunks.push(Buffer.from(chunk));
      return true;
    }) as typeof res.write;
    res.end = ((chunk?: string | Buffer) => {
      if (chunk && typeof chunk !== 'function') chunks.push(Buffer.from(chunk));
      void (async () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id_token?: string };
        if (body.id_token) {
          if (how === 'signature') {
            const [head, payload, signature = ''] = body.id_token.split('.');
            const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`;
            body.id_token = `${head}.${payload}.${flipped}`;
          } else {
            const claims = decodeJwt(body.id_token);
            body.id_token = await new SignJWT({ ...claims, nonce: 'a-nonce-of-another-sign-in' })
              .setProtectedHeader({ alg: 'RS256', kid: 'test-key', typ: 'JWT' })
              .sign(privateKey);
          }
        }
        const out = JSON.stringify(body);
        res.setHeader('content-length', Buffer.byteLength(out));
        end(out);
      })();
      return res;
    }) as typeof res.end;
  }

  let server: Server;
  const listen = async () => {
    server = createServer((req, res) => {
      const path = new URL(req.url ?? '/', issuer).pathname;
      if (path.startsWith('/interaction/')) {
        interaction(req, res, path).catch((error: unknown) => {
          res.writeHead(500).end(String(error));
        });
        return;
      }
      if (tamper && req.method === 'POST' && path === '/token') spoilIdToken(res, tamper);
      oidcHandler(req, res);
    });
    await listenLocally(server, port);
  };
  const close = () => closeNow(server);
  await listen();

  return {
    issuer,
    clientId,
    clientSecret,
    addAccount(account) {
      accounts.set(account.sub, account);
    },
    signInAs(sub) {
      autoSub = sub;
    },
    tamperIdTokens(how) {
      tamper = how;
    },
    async authorize(url) {
      const jar = new Map<string, string>();
      let next = new URL(url);
      for (let hop = 0; hop < 10; hop += 1) {
        if (next.origin !== issuer) return next;
        const response = await fetch(next, {
          redirect: 'manual',
          headers: { cookie: [...jar].map(([name, value]) => `${name}=${value}`).join('; ') },
        });
        for (const cookie of response.headers.getSetCookie()) {
          const [pair = ''] = cookie.split(';');
          const at = pair.indexOf('=');
          jar.set(pair.slice(0, at), pair.slice(at + 1));
        }
        const location = response.headers.get('location');
        if (!location)
          throw new Error(`the provider answered ${response.status} without a redirect: ${await response.text()}`);
        next = new URL(location, next);
      }
      throw new Error('the provider redirected too often');
    },
    pause: close,
    resume: listen,
    stop: close,
  };
}
