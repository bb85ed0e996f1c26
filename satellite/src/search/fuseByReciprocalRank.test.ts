import { describe, expect, it } from 'vitest';
import { fuseByReciprocalRank } from './fuseByReciprocalRank.ts';
import type { SearchResult } from './searchableTool.ts';
import { testTool } from './testing/testTool.ts';

const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => testTool('s', name, name)) as [
  ReturnType<typeof testTool>,
  ReturnType<typeof testTool>,
  ReturnType<typeof testTool>,
  ReturnType<typeof testTool>,
];
const list = (...tools: Array<typeof a>): SearchResult[] => tools.map((tool) => ({ tool, score: 0.5 }));

describe('fuseByReciprocalRank', () => {
  it('lifts a tool several lists rank well above one a single list puts first', () => {
    const fused = fuseByReciprocalRank([{ results: list(a, b, c) }, { results: list(d, b, c) }], 10);
    expect(fused.map((r) => r.tool.name)).toEqual(['b', 'c', 'a', 'd']);
  });

  it('scores in [0, 1], 0 for a tool every list ranks first, sorted; ties keep first-met order', () => {
    const agreed = fuseByReciprocalRank([{ results: list(a, b) }, { results: list(a, c) }], 10);
    expect(agreed[0]?.score).toBe(0);
    expect(agreed.map((r) => r.tool.name)).toEqual(['a', 'b', 'c']);
    const scores = agreed.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((x, y) => x - y));
    expect(Math.max(...scores)).toBeLessThanOrEqual(1);
  });

  it('weighs lists, caps at the limit, and answers nothing for no lists', () => {
    const weighted = fuseByReciprocalRank(
      [
        { results: list(a), weight: 1 },
        { results: list(b), weight: 2 },
      ],
      1,
    );
    expect(weighted.map((r) => r.tool.name)).toEqual(['b']);
    expect(fuseByReciprocalRank([], 10)).toEqual([]);
    expect(fuseByReciprocalRank([{ results: list(a) }], 0)).toEqual([]);
  });
});
