import { toolSearchFuseOptions } from './toolSearchFuseOptions.ts';

/**
 * The most errors Fuse's Bitap accepts for a pattern chunk of `length` code units with
 * `ignoreLocation` (score = errors / length): it tries rows 0 to length - 1 while errors / length stays
 * at or under the threshold, computed in the same floating point. At 0.3: 0 up to 3 units, 1 up to 6,
 * 2 up to 9, 3 up to 13, ... 9 at 32.
 */
export function fuzzyErrorBudget(length: number): number {
  let errors = 0;
  while (errors + 1 < length && (errors + 1) / length <= toolSearchFuseOptions.threshold) errors++;
  return errors;
}
