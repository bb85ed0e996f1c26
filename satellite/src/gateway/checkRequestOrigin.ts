export type OriginPolicy = {
  /** Host names (no port) the satellite answers to; `*` accepts any. */
  allowedHosts: readonly string[];
  /** Full origins (`https://app.example.com`) browsers may call from; `*` accepts any. */
  allowedOrigins: readonly string[];
};

const loopbackNames = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

function hostnameOf(host: string): string {
  if (host.startsWith('[')) return host.slice(0, host.indexOf(']') + 1).toLowerCase();
  return (host.split(':')[0] ?? '').toLowerCase();
}

/**
 * DNS-rebinding protection. A page on an attacker's domain that resolves
 * to this satellite sends its own Host and Origin; only names the satellite is meant to be reached
 * by, and pages it trusts, get through. Loopback names are always accepted as hosts. A request
 * without Origin is not from a browser page and is judged by its Host alone.
 */
export function checkRequestOrigin(
  headers: { host?: string | undefined; origin?: string | undefined },
  policy: OriginPolicy,
): { ok: true } | { ok: false; reason: string } {
  const host = headers.host ? hostnameOf(headers.host) : '';
  const hostAllowed =
    policy.allowedHosts.includes('*') ||
    loopbackNames.has(host) ||
    policy.allowedHosts.some((allowed) => allowed.toLowerCase() === host);
  if (!hostAllowed) return { ok: false, reason: 'Host header not allowed' };
  if (headers.origin === undefined) return { ok: true };
  if (policy.allowedOrigins.includes('*')) return { ok: true };
  let origin: URL;
  try {
    origin = new URL(headers.origin);
  } catch {
    return { ok: false, reason: 'Origin header not allowed' };
  }
  if (loopbackNames.has(origin.hostname.toLowerCase())) return { ok: true };
  if (
    policy.allowedOrigins.some((allowed) => allowed.replace(/\/$/, '').toLowerCase() === origin.origin.toLowerCase())
  ) {
    return { ok: true };
  }
  return { ok: false, reason: 'Origin header not allowed' };
}
