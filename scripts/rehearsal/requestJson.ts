/**
 * JSON over HTTP with an optional bearer token: the parsed answer, or an error with the answer's text
 * when its status is not one expected (by default 200, and 201 for a POST).
 */
export async function requestJson<T = unknown>(
  base: string,
  method: string,
  path: string,
  options: { token?: string; body?: unknown; expect?: number | number[]; timeoutMs?: number } = {},
): Promise<T> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: {
      ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
    ...(options.timeoutMs === undefined ? {} : { signal: AbortSignal.timeout(options.timeoutMs) }),
  });
  const text = await response.text();
  const expected = [options.expect ?? (method === 'POST' ? [200, 201] : [200])].flat();
  if (!expected.includes(response.status)) throw new Error(`${method} ${path} answered ${response.status}: ${text}`);
  return (text ? JSON.parse(text) : null) as T;
}
