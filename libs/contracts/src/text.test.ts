import { describe, expect, it } from 'vitest';
import { findNulCharacter, withoutNulCharacters } from './text.ts';

describe('NUL characters', () => {
  it('are found in strings, array items and object keys, with their path', () => {
    expect(findNulCharacter({ name: 'ok', tags: ['a', 'b\u0000'] }, ['body'])).toEqual(['body', 'tags', '1']);
    expect(findNulCharacter({ 'bad\u0000key': 1 })).toEqual(['bad\\0key']);
    expect(findNulCharacter('x\u0000')).toEqual([]);
    expect(findNulCharacter({ name: 'fine', n: 1, nested: { ok: true, none: null } })).toBeNull();
  });

  it('are reported at the first place in document order', () => {
    expect(findNulCharacter({ a: [{ b: 'x' }, { c: '\u0000' }], d: '\u0000' })).toEqual(['a', '1', 'c']);
    expect(findNulCharacter({ a: 'fine', 'k\u0000': { deeper: '\u0000' } })).toEqual(['k\\0']);
  });

  it('are removed everywhere, leaving everything else as it was', () => {
    expect(withoutNulCharacters({ line: 'a\u0000b', list: ['\u0000'], n: 2, 'k\u0000': null })).toEqual({
      line: 'ab',
      list: [''],
      n: 2,
      k: null,
    });
    const stripped = withoutNulCharacters(JSON.parse('{"__proto__": {"x": "\\u0000"}}') as object);
    expect(Object.getPrototypeOf(stripped)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(stripped, '__proto__')?.value).toEqual({ x: '' });
  });

  it('leave a value holding none untouched, the very same object', () => {
    const body = { events: [{ id: 'a', data: { lines: ['x', 'y'] } }], n: 1 };
    expect(withoutNulCharacters(body)).toBe(body);
    expect(withoutNulCharacters({ deep: [{ k: ['\u0000'] }] })).toEqual({ deep: [{ k: [''] }] });
  });

  it('are found and removed in values nested deeper than the call stack allows', () => {
    const depth = 100_000;
    const value = JSON.parse(`${'['.repeat(depth)}"a\\u0000"${']'.repeat(depth)}`) as unknown;
    expect(findNulCharacter(value)?.length).toBe(depth);
    let stripped = withoutNulCharacters(value);
    for (let level = 0; level < depth; level++) stripped = (stripped as unknown[])[0];
    expect(stripped).toBe('a');
    expect(findNulCharacter(JSON.parse('['.repeat(depth) + ']'.repeat(depth)))).toBeNull();
  });
});
