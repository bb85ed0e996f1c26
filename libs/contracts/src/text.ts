/**
 * No text the platform accepts may hold a NUL character (U+0000): PostgreSQL's text and jsonb cannot
 * store it, so a value holding one would fail deep inside a service (a 500) or, on an asynchronous path,
 * be accepted and then lost. It is refused where input enters, or, for satellite events (log lines of a
 * process may hold anything), removed.
 */
const nul = '\u0000';

/**
 * The path (`['body', 'name']`) of the first string or object key holding a NUL character, or null.
 * It runs on every request body, so it walks without building anything and makes the path only once
 * a NUL is found.
 */
export function findNulCharacter(value: unknown, path: string[] = []): string[] | null {
  const found = nulPath(value);
  return found === null ? null : [...path, ...found.reverse()];
}

/** The path to the first NUL, innermost token first (it is built on the way back out). */
function nulPath(value: unknown): string[] | null {
  if (typeof value === 'string') return value.includes(nul) ? [] : null;
  if (typeof value !== 'object' || value === null) return null;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = nulPath(value[index]);
      if (found) {
        found.push(String(index));
        return found;
      }
    }
    return null;
  }
  for (const key in value) {
    if (!Object.hasOwn(value, key)) continue;
    if (key.includes(nul)) return [key.replaceAll(nul, '\\0')];
    const found = nulPath((value as Record<string, unknown>)[key]);
    if (found) {
      found.push(key);
      return found;
    }
  }
  return null;
}

/**
 * The same value with every NUL character removed from its strings and object keys. A value holding
 * none is given back as it is (the usual case, and the cheap one: nothing is copied).
 */
export function withoutNulCharacters<T>(value: T): T {
  return nulPath(value) === null ? value : stripNul(value);
}

function stripNul<T>(value: T): T {
  if (typeof value === 'string') return value.replaceAll(nul, '') as T;
  if (Array.isArray(value)) return value.map((item) => stripNul(item)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key.replaceAll(nul, ''), stripNul(item)]),
    ) as T;
  }
  return value;
}
