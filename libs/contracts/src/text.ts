/**
 * No text the platform accepts may hold a NUL character (U+0000): PostgreSQL's text and jsonb cannot
 * store it, so a value holding one would fail deep inside a service (a 500) or, on an asynchronous path,
 * be accepted and then lost. It is refused where input enters, or, for satellite events (log lines of a
 * process may hold anything), removed.
 */
const nul = '\u0000';

/** The path (`['body', 'name']`) of the first string or object key holding a NUL character, or null. */
export function findNulCharacter(value: unknown, path: string[] = []): string[] | null {
  if (typeof value === 'string') return value.includes(nul) ? path : null;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findNulCharacter(item, [...path, String(index)]);
      if (found) return found;
    }
    return null;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes(nul)) return [...path, key.replaceAll(nul, '\\0')];
      const found = findNulCharacter(item, [...path, key]);
      if (found) return found;
    }
  }
  return null;
}

/** The same value with every NUL character removed from its strings and object keys. */
export function withoutNulCharacters<T>(value: T): T {
  if (typeof value === 'string') return value.replaceAll(nul, '') as T;
  if (Array.isArray(value)) return value.map((item) => withoutNulCharacters(item)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key.replaceAll(nul, ''), withoutNulCharacters(item)]),
    ) as T;
  }
  return value;
}
