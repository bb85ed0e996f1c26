/**
 * No text the platform accepts may hold what PostgreSQL cannot store: a NUL character (U+0000), which
 * neither text nor jsonb takes, or an unpaired surrogate (half of a UTF-16 pair, valid in a JSON string
 * escape but not Unicode text), which jsonb refuses when the value travels as JSON (an audit entry's
 * details, an event). A value holding either would fail deep inside a service (a 500) or, on an
 * asynchronous path, be accepted and then lost. It is refused where input enters, or, for satellite events
 * (log lines of a process may hold anything), removed: NULs dropped, unpaired surrogates replaced by U+FFFD.
 *
 * Every walk here keeps its own list of containers still to open instead of calling itself: input is
 * hostile until checked, and a recursive walk of a value nested a few thousand deep overflows the stack.
 */
const nul = '\u0000';

/** Whether a string holds text PostgreSQL cannot store. */
function unstorable(text: string): boolean {
  return text.includes(nul) || !text.isWellFormed();
}

/** The string PostgreSQL can store: NULs removed, unpaired surrogates replaced by U+FFFD. */
function storable(text: string): string {
  return text.replaceAll(nul, '').toWellFormed();
}

/** What is wrong with a string or key that cannot be stored, in the words of a validation error. */
export function unstorableTextProblem(text: string): string {
  return text.includes(nul)
    ? 'must not contain NUL characters (U+0000)'
    : 'must be Unicode text: it holds an unpaired surrogate (U+D800 to U+DFFF)';
}

/**
 * The first string or object key holding text that cannot be stored: its path (`['body', 'name']`) and
 * what is wrong with it, or null. It runs on every request body, so it walks without building anything
 * and makes the path only once such text is known to be there.
 */
export function findUnstorableText(value: unknown, path: string[] = []): { path: string[]; problem: string } | null {
  if (!holdsUnstorable(value)) return null;
  const found = placeOfFirstUnstorable(value);
  return { path: [...path, ...found.path], problem: unstorableTextProblem(found.text) };
}

/**
 * The same value with every string and object key made storable (NULs removed, unpaired surrogates
 * replaced). A value holding nothing unstorable is given back as it is (the usual case, and the cheap
 * one: nothing is copied).
 */
export function withStorableText<T>(value: T): T {
  return holdsUnstorable(value) ? copyStorable(value) : value;
}

function isContainer(value: unknown): value is object {
  return typeof value === 'object' && value !== null;
}

function holdsUnstorable(value: unknown): boolean {
  if (typeof value === 'string') return unstorable(value);
  if (!isContainer(value)) return false;
  const pending: object[] = [value];
  for (let top = pending.pop(); top !== undefined; top = pending.pop()) {
    if (Array.isArray(top)) {
      for (let index = 0; index < top.length; index++) {
        const item: unknown = top[index];
        if (typeof item === 'string') {
          if (unstorable(item)) return true;
        } else if (isContainer(item)) pending.push(item);
      }
      continue;
    }
    for (const key in top) {
      if (!Object.hasOwn(top, key)) continue;
      if (unstorable(key)) return true;
      const item: unknown = (top as Record<string, unknown>)[key];
      if (typeof item === 'string') {
        if (unstorable(item)) return true;
      } else if (isContainer(item)) pending.push(item);
    }
  }
  return false;
}

/** A place inside the value: what is there, and how it was reached (its parent and the key it sits at). */
type Place = { value: unknown; parent: Place | null; key: string };

function pathOf(place: Place): string[] {
  const path: string[] = [];
  for (let at: Place | null = place; at?.parent; at = at.parent) path.push(storable(at.key.replaceAll(nul, '\\0')));
  return path.reverse();
}

/**
 * The path to the first unstorable text in document order (a key holding some ends the path, a NUL shown
 * as `\0`) and that text, of a value known to hold some. Children are queued last first, so they are
 * taken in their own order; each place remembers its parent, so no path is copied on the way.
 */
function placeOfFirstUnstorable(value: unknown): { path: string[]; text: string } {
  const pending: Place[] = [{ value, parent: null, key: '' }];
  for (let place = pending.pop(); place !== undefined; place = pending.pop()) {
    const here = place.value;
    if (unstorable(place.key)) return { path: pathOf(place), text: place.key };
    if (typeof here === 'string' && unstorable(here)) return { path: pathOf(place), text: here };
    if (!isContainer(here)) continue;
    const keys = Array.isArray(here) ? here.map((_item, index) => String(index)) : Object.keys(here);
    for (let index = keys.length - 1; index >= 0; index--) {
      const key = keys[index] as string;
      pending.push({ value: (here as Record<string, unknown>)[key], parent: place, key });
    }
  }
  return { path: [], text: '' };
}

/** A storable copy; containers are copied from the outside in, each filled when it is taken. */
function copyStorable<T>(value: T): T {
  const pending: Array<[source: object, copy: Record<string, unknown>]> = [];
  const cleaned = (item: unknown): unknown => {
    if (typeof item === 'string') return storable(item);
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
      Object.defineProperty(copy, storable(key), {
        value: cleaned((source as Record<string, unknown>)[key]),
        writable: true,
        enumerable: true,
        configurable: true,
      });
    }
  }
  return root;
}
