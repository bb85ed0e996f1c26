import { describe, expect, it } from 'vitest';
import { parseExtendedQuery } from './parseExtendedQuery.ts';

describe('parseExtendedQuery', () => {
  it('reads each operator', () => {
    expect(parseExtendedQuery("file =read_file 'dir ^list csv$ !tmp !^draft !old$")).toEqual([
      [
        { type: 'fuzzy', pattern: 'file' },
        { type: 'exact', pattern: 'read_file' },
        { type: 'include', pattern: 'dir' },
        { type: 'prefix-exact', pattern: 'list' },
        { type: 'suffix-exact', pattern: 'csv' },
        { type: 'inverse-exact', pattern: 'tmp' },
        { type: 'inverse-prefix-exact', pattern: 'draft' },
        { type: 'inverse-suffix-exact', pattern: 'old' },
      ],
    ]);
  });

  it('splits OR groups on pipes but not on escaped ones', () => {
    expect(parseExtendedQuery('slack | teams')).toEqual([
      [{ type: 'fuzzy', pattern: 'slack' }],
      [{ type: 'fuzzy', pattern: 'teams' }],
    ]);
    expect(parseExtendedQuery('a\\|b')).toEqual([[{ type: 'fuzzy', pattern: 'a|b' }]]);
    expect(parseExtendedQuery('x |')).toEqual([[{ type: 'fuzzy', pattern: 'x' }], []]);
  });

  it('keeps quoted terms whole', () => {
    expect(parseExtendedQuery('\'"pull request" "send message"$ ="a b"')).toEqual([
      [
        { type: 'include', pattern: 'pull request' },
        { type: 'suffix-exact', pattern: 'send message' },
        { type: 'exact', pattern: 'a b' },
      ],
    ]);
  });

  it('passes over operators with nothing after them, as Fuse does', () => {
    // Each bare operator is a fuzzy term of itself.
    const bare = ['=', "'", '^', '$', '!'];
    expect(parseExtendedQuery(bare.join(' '))).toEqual([bare.map((pattern) => ({ type: 'fuzzy', pattern }))]);
    expect(parseExtendedQuery('""')).toEqual([[{ type: 'fuzzy', pattern: '""' }]]);
  });

  it('drops terms holding a line break, which no operator reads', () => {
    expect(parseExtendedQuery('a\nb c')).toEqual([[{ type: 'fuzzy', pattern: 'c' }]]);
  });
});
