import { describe, expect, it } from 'vitest';
import { createSatelliteMetrics } from './createSatelliteMetrics.ts';

describe('the satellite metrics', () => {
  it('shows the 2026-07-28 clients followed and those not followed, read at scrape time', async () => {
    let counts = { followed: 20, notFollowed: 7 };
    const metrics = createSatelliteMetrics({ servers: () => [], sessions: () => 0, sessionlessClients: () => counts });
    const scrape = async () =>
      (await metrics.registry.getSingleMetric('orbital_satellite_sessionless_clients')?.get())?.values;
    expect(await scrape()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ labels: expect.objectContaining({ state: 'followed' }), value: 20 }),
        expect.objectContaining({ labels: expect.objectContaining({ state: 'not_followed' }), value: 7 }),
      ]),
    );
    counts = { followed: 3, notFollowed: 0 };
    expect(await scrape()).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ labels: expect.objectContaining({ state: 'followed' }), value: 3 }),
        expect.objectContaining({ labels: expect.objectContaining({ state: 'not_followed' }), value: 0 }),
      ]),
    );
  });
});
