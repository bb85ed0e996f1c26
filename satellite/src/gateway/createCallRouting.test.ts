import { describe, expect, it } from 'vitest';
import { createCallRouting } from './createCallRouting.ts';

const secret = 'a secret the replicas share, 32+ characters long';

describe('routing hints in requestState', () => {
  it("names the call, the process holding it and that process's address, signed", async () => {
    const holder = createCallRouting({ replicaUrl: 'http://10.0.0.7:3001', secret, ttlMs: 60_000 });
    const other = createCallRouting({ replicaUrl: 'http://10.0.0.8:3001', secret, ttlMs: 60_000 });
    const state = await holder.mint('call-1');
    const route = await other.read(state);
    expect(route).toEqual({ callId: 'call-1', instance: holder.instanceTag, replica: 'http://10.0.0.7:3001' });
    expect(other.isLocal(route as NonNullable<typeof route>)).toBe(false);
    expect(holder.isLocal(route as NonNullable<typeof route>)).toBe(true);
  });

  it('finds nothing in a tampered or forged state, or one signed with another secret', async () => {
    const holder = createCallRouting({ replicaUrl: 'http://10.0.0.7:3001', secret, ttlMs: 60_000 });
    const state = await holder.mint('call-1');
    const [version, body, mac] = state.split('.');
    const forgedBody = Buffer.from(
      JSON.stringify({ p: { c: 'call-1', i: holder.instanceTag, r: 'http://169.254.169.254' }, exp: 9e9 }),
    ).toString('base64url');
    expect(await holder.read(`${version}.${forgedBody}.${mac}`)).toBeUndefined();
    expect(await holder.read(`${version}.${body}.${mac}x`)).toBeUndefined();
    expect(await holder.read('not a state')).toBeUndefined();
    const stranger = createCallRouting({ secret: 'another secret, also 32+ characters long', ttlMs: 60_000 });
    expect(await stranger.read(state)).toBeUndefined();
    // Without a secret each process signs with a key of its own.
    const alone = createCallRouting({ ttlMs: 60_000 });
    expect(alone.shared).toBe(false);
    expect(await alone.read(await alone.mint('c'))).toMatchObject({ callId: 'c', replica: null });
    expect(await createCallRouting({ ttlMs: 60_000 }).read(await alone.mint('c'))).toBeUndefined();
  });
});
