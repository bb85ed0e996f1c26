import { stackForFile } from '@orbital/testing/stackForFile';
import { describe, expect, it } from 'vitest';
import { createToken, gatewayApi, register, satelliteBody, startRegistryStack } from './registryHarness.ts';

/**
 * Many satellites registering at once: their Argon2 runs go one at a time, and those that cannot start
 * soon are told to come back before their token is touched, so no registration completes for a caller
 * that has given up (its token spent, its key never received).
 */
const stack = stackForFile(() => startRegistryStack({ registrationHashing: { concurrency: 1, maxWaiting: 1 } }));

describe('a burst of registrations', () => {
  it('is answered at once with unavailable and a time to come back, leaving the tokens unused', async () => {
    const tokens = await Promise.all(Array.from({ length: 6 }, () => createToken(stack, { scope: 'global' })));
    const outcomes = await Promise.allSettled(
      tokens.map((token, index) => register(stack, token.authorization, satelliteBody(`burst-${index}`))),
    );
    const registered = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    const refusals = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    // One running and one waiting at most: the others are refused, all for the same reason.
    expect(registered.length).toBeGreaterThanOrEqual(2);
    expect(refusals.length).toBeGreaterThan(0);
    for (const refusal of refusals) {
      expect(refusal).toMatchObject({
        code: 'unavailable',
        details: { reason: 'busy', retry_after_seconds: expect.any(Number) },
      });
      expect(refusal.details.retry_after_seconds).toBeGreaterThanOrEqual(1);
    }

    // Every refused satellite registers when it comes back, with the very token it was refused with.
    for (const [index, outcome] of outcomes.entries()) {
      if (outcome.status === 'fulfilled') continue;
      const token = tokens[index] as (typeof tokens)[number];
      const made = await register(stack, token.authorization, satelliteBody(`burst-again-${index}`));
      const keyId = made.api_key.split('.')[0] as string;
      expect(await stack.request('lookupApiKey', { key_id: keyId }, gatewayApi)).toMatchObject({ status: 'inactive' });
    }
    const rows = await stack.sql("SELECT count(*)::int AS n FROM satellites WHERE name LIKE 'burst-%'");
    expect(rows[0]?.n).toBe(6);
  });
});
