import { expect, it } from 'vitest';
import type { Claim } from './claim.ts';
import { codebaseOf } from './codebase.ts';

/**
 * A test that shows a claim on a made-up tree of `files`: it finds exactly `problems`, in its order
 * (none, when the tree keeps the claim).
 */
export function itFinds(claim: Claim, name: string, files: Record<string, string>, problems: unknown[] = []): void {
  it(name, () => {
    expect(claim.check(codebaseOf(files))).toEqual(problems);
  });
}
