/** How a client says it runs (OpenID Connect Dynamic Client Registration): on a device, or on a web server. */
export type ApplicationType = 'native' | 'web';

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);
/** Schemes that are never a client's own: a browser or the system acts on them instead. */
const deniedSchemes = new Set([
  'javascript',
  'data',
  'vbscript',
  'file',
  'blob',
  'about',
  'ftp',
  'ws',
  'wss',
  'mailto',
]);

/**
 * Why a client may not register this redirect URI, or null when it may.
 *
 * - A `native` application (editor, desktop or command-line tool) receives its code on a loopback
 *   http address or on a private-use scheme of its own (`cursor://...`), which PKCE keeps safe from
 *   another app claiming the scheme.
 * - A `web` application is served from a real host: https, never a loopback host (a web client
 *   redirecting to localhost would hand codes to whatever runs on the user's machine).
 * - A client that does not say (every client before the 2026-07-28 MCP revision) may register any of
 *   these, as the MCP spec's "localhost URLs or HTTPS URLs" allowed, plus private-use schemes.
 */
export function redirectUriProblem(value: string, applicationType?: ApplicationType): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.hash) return 'must not have a fragment';
  const scheme = url.protocol.slice(0, -1);
  if (deniedSchemes.has(scheme)) return `the ${url.protocol} scheme is not allowed`;
  const loopback = loopbackHosts.has(url.hostname);
  if (applicationType === 'web') {
    if (scheme !== 'https') return 'of a web application must use https';
    return loopback ? 'of a web application must not be a loopback host; register it as a native application' : null;
  }
  if (applicationType === 'native') {
    if (scheme === 'http') return loopback ? null : 'http is only allowed on a loopback host';
    if (scheme === 'https') {
      return 'of a native application must be a loopback http address or a private-use scheme; https is for web applications';
    }
    return null;
  }
  if (scheme === 'http' && !loopback) return 'http is only allowed on a loopback host';
  return null;
}
