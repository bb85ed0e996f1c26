import { describe, expect, it } from 'vitest';
import { fuzzyErrorBudget } from './fuzzyErrorBudget.ts';

describe('fuzzyErrorBudget', () => {
  it('allows errors / length up to the 0.3 threshold, never a whole pattern', () => {
    const budgets = Array.from({ length: 32 }, (_, i) => fuzzyErrorBudget(i + 1));
    expect(budgets).toEqual([
      0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 5, 5, 5, 6, 6, 6, 6, 7, 7, 7, 8, 8, 8, 9, 9, 9,
    ]);
  });
});
