import { describe, expect, it } from 'vitest';
import { findNulCharacter, withoutNulCharacters } from './text.ts';

describe('NUL characters', () => {
  it('are found in strings, array items and object keys, with their path', () => {
    expect(findNulCharacter({ name: 'ok', tags: ['a', 'b\u0000'] }, ['body'])).toEqual(['body', 'tags', '1']);
    expect(findNulCharacter({ 'bad\u0000key': 1 })).toEqual(['bad\\0key']);
    expect(findNulCharacter('x\u0000')).toEqual([]);
    expect(findNulCharacter({ name: 'fine', n: 1, nested: { ok: true, none: null } })).toBeNull();
  });

  it('are removed everywhere, leaving everything else as it was', () => {
    expect(withoutNulCharacters({ line: 'a\u0000b', list: ['\u0000'], n: 2, 'k\u0000': null })).toEqual({
      line: 'ab',
      list: [''],
      n: 2,
      k: null,
    });
  });

  it('leave a value holding none untouched, the very same object', () => {
    const body = { events: [{ id: 'a', data: { lines: ['x', 'y'] } }], n: 1 };
    expect(withoutNulCharacters(body)).toBe(body);
    expect(withoutNulCharacters({ deep: [{ k: ['\u0000'] }] })).toEqual({ deep: [{ k: [''] }] });
  });
});
