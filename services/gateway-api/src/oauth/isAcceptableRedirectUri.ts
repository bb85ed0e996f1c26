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
 * Why a client may not register this redirect URI, or null when it may. The MCP authorization spec:
 * "redirect URIs MUST be either localhost URLs or HTTPS URLs"; RFC 8252 adds private-use schemes for
 * native apps (editors such as Cursor receive their code on `cursor://...`), which PKCE keeps safe from
 * another app claiming the scheme. So: https; http only on a loopback host; or a private-use scheme.
 */
export function redirectUriProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.hash) return 'must not have a fragment';
  if (url.protocol === 'https:') return null;
  if (url.protocol === 'http:')
    return loopbackHosts.has(url.hostname) ? null : 'http is only allowed on a loopback host';
  if (deniedSchemes.has(url.protocol.slice(0, -1))) return `the ${url.protocol} scheme is not allowed`;
  return null;
}
