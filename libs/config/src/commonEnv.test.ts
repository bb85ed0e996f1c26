import { describe, expect, it } from 'vitest';
import { commaList, networkList } from './commonEnv.ts';

describe('comma-separated variables', () => {
  it('reads the entries, trimmed, leaving out empty ones; unset is an empty list', () => {
    expect(commaList.parse(' ./a.ts, ./b.ts,, ')).toEqual(['./a.ts', './b.ts']);
    expect(commaList.parse(undefined)).toEqual([]);
  });

  it('takes networks only when every entry is an address or a CIDR block', () => {
    expect(networkList.parse('10.0.0.0/8, 127.0.0.1')).toEqual(['10.0.0.0/8', '127.0.0.1']);
    expect(networkList.safeParse('10.0.0.0/8, intranet').success).toBe(false);
  });
});
