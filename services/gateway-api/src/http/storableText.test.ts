import { describe, expect, it } from 'vitest';
import { findUnstorableText, withStorableText } from './storableText.ts';

describe('text PostgreSQL cannot store', () => {
  it('are found in strings, array items and object keys, with their path', () => {
    expect(findUnstorableText({ name: 'ok', tags: ['a', 'b\u0000'] }, ['body'])?.path).toEqual(['body', 'tags', '1']);
    expect(findUnstorableText({ 'bad\u0000key': 1 })?.path).toEqual(['bad\\0key']);
    expect(findUnstorableText('x\u0000')).toEqual({ path: [], problem: 'must not contain NUL characters (U+0000)' });
    expect(findUnstorableText({ name: 'fine', n: 1, nested: { ok: true, none: null } })).toBeNull();
  });

  it('are reported at the first place in document order', () => {
    expect(findUnstorableText({ a: [{ b: 'x' }, { c: '\u0000' }], d: '\u0000' })?.path).toEqual(['a', '1', 'c']);
    expect(findUnstorableText({ a: 'fine', 'k\u0000': { deeper: '\u0000' } })?.path).toEqual(['k\\0']);
  });

  it('are removed everywhere, leaving everything else as it was', () => {
    expect(withStorableText({ line: 'a\u0000b', list: ['\u0000'], n: 2, 'k\u0000': null })).toEqual({
      line: 'ab',
      list: [''],
      n: 2,
      k: null,
    });
    const stripped = withStorableText(JSON.parse('{"__proto__": {"x": "\\u0000"}}') as object);
    expect(Object.getPrototypeOf(stripped)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(stripped, '__proto__')?.value).toEqual({ x: '' });
  });

  it('include unpaired surrogates: found with their own problem, and replaced by U+FFFD', () => {
    const lone = JSON.parse('{"ok":"a\\ud83d\\ude00b","bad":["x","a\\ud800b"]}') as object;
    expect(findUnstorableText(lone, ['body'])).toEqual({
      path: ['body', 'bad', '1'],
      problem: 'must be Unicode text: it holds an unpaired surrogate (U+D800 to U+DFFF)',
    });
    expect(withStorableText(lone)).toEqual({ ok: 'a\u{1f600}b', bad: ['x', 'a\ufffdb'] });
    expect(findUnstorableText({ 'k\udfff': 1 })?.path).toEqual(['k\ufffd']);
    expect(findUnstorableText({ pair: '\ud83d\ude00' })).toBeNull();
  });

  it('leave a value holding none untouched, the very same object', () => {
    const body = { events: [{ id: 'a', data: { lines: ['x', 'y'] } }], n: 1 };
    expect(withStorableText(body)).toBe(body);
    expect(withStorableText({ deep: [{ k: ['\u0000'] }] })).toEqual({ deep: [{ k: [''] }] });
  });

  it('are found and removed in values nested deeper than the call stack allows', () => {
    const depth = 100_000;
    const value = JSON.parse(`${'['.repeat(depth)}"a\\u0000"${']'.repeat(depth)}`) as unknown;
    expect(findUnstorableText(value)?.path.length).toBe(depth);
    let stripped = withStorableText(value);
    for (let level = 0; level < depth; level++) stripped = (stripped as unknown[])[0];
    expect(stripped).toBe('a');
    expect(findUnstorableText(JSON.parse('['.repeat(depth) + ']'.repeat(depth)))).toBeNull();
  });
});
