/**
 * No text the platform accepts may hold a NUL character (U+0000): PostgreSQL's text and jsonb cannot
 * store it, so a value holding one would fail deep inside a service (a 500) or, on an asynchronous path,
 * be accepted and then lost. It is refused where input enters, or, for satellite events (log lines of a
 * process may hold anything), removed.
 *
 * Every walk here keeps its own list of containers still to open instead of calling itself: input is
 * hostile until checked, and a recursive walk of a value nested a few thousand deep overflows the stack.
 */
const nul = '\u0000';

/**
 * The path (`['body', 'name']`) of the first string or object key holding a NUL character, or null.
 * It runs on every request body, so it walks without building anything and makes the path only once
 * a NUL is known to be there.
 */
export function findNulCharacter(value: unknown, path: string[] = []): string[] | null {
  if (!holdsNul(value)) return null;
  return [...path, ...pathToFirstNul(value)];
}

/**
 * The same value with every NUL character removed from its strings and object keys. A value holding
 * none is given back as it is (the usual case, and the cheap one: nothing is copied).
 */
export function withoutNulCharacters<T>(value: T): T {
  return holdsNul(value) ? stripNul(value) : value;
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function holdsNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes(nul);
  if (!isContainer(value)) return false;
  const pending: object[] = [value];
  for (let top = pending.pop(); top !== undefined; top = pending.pop()) {
    if (Array.isArray(top)) {
      for (let index = 0; index < top.length; index++) {
        const item: unknown = top[index];
        if (typeof item === 'string') {
          if (item.includes(nul)) return true;
        } else if (isContainer(item)) pending.push(item);
      }
      continue;
    }
    for (const key in top) {
      if (!Object.hasOwn(top, key)) continue;
      if (key.includes(nul)) return true;
      const item: unknown = (top as Record<string, unknown>)[key];
      if (typeof item === 'string') {
        if (item.includes(nul)) return true;
      } else if (isContainer(item)) pending.push(item);
    }
  }
  return false;
}

/** A place inside the value: what is there, and how it was reached (its parent and the key it sits at). */
type Place = { value: unknown; parent: Place | null; key: string };

function pathOf(place: Place): string[] {
  const path: string[] = [];
  for (let at: Place | null = place; at?.parent; at = at.parent) path.push(at.key.replaceAll(nul, '\\0'));
  return path.reverse();
}

/**
 * The path to the first NUL in document order (a key holding one ends the path, shown with `\0`), of a
 * value known to hold one. Children are queued last first, so they are taken in their own order; each
 * place remembers its parent, so no path is copied on the way.
 */
function pathToFirstNul(value: unknown): string[] {
  const pending: Place[] = [{ value, parent: null, key: '' }];
  for (let place = pending.pop(); place !== undefined; place = pending.pop()) {
    const here = place.value;
    if (place.key.includes(nul) || (typeof here === 'string' && here.includes(nul))) return pathOf(place);
    if (!isContainer(here)) continue;
    const keys = Array.isArray(here) ? here.map((_item, index) => String(index)) : Object.keys(here);
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index] as string;
      pending.push({ value: (here as Record<string, unknown>)[key], parent: place, key });
    }
  }
  return [];
}

/** A copy without NULs; containers are copied from the outside in, each filled when it is taken. */
function stripNul<T>(value: T): T {
  const pending: Array<[source: object, copy: Record<string, unknown>]> = [];
  const cleaned = (item: unknown): unknown => {
    if (typeof item === 'string') return item.replaceAll(nul, '');
    if (!isContainer(item)) return item;
    const copy = Array.isArray(item) ? new Array(item.length) : {};
    pending.push([item, copy as Record<string, unknown>]);
    return copy;
  };
  const root = cleaned(value) as T;
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [source, copy] = next;
    if (Array.isArray(source)) {
      for (let index = 0; index < source.length; index++) copy[index] = cleaned(source[index]);
      continue;
    }
    for (const key in source) {
      if (!Object.hasOwn(source, key)) continue;
      // Defined, not assigned: a key named `__proto__` stays an own field instead of replacing the prototype.
      Object.defineProperty(copy, key.replaceAll(nul, ''), {
        value: cleaned((source as Record<string, unknown>)[key]),
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
  }
  return root;
}
