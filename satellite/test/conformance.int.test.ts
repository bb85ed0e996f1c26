import { fileURLToPath } from 'node:url';
import { expectedFailureReasons, runConformanceSuite } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SatelliteApp } from '../src/app.ts';
import { stdioServer } from './helpers.ts';
import { startTestSatellite } from './startTestSatellite.ts';

/** The scenarios that cannot apply to a two-tool gateway, each with its reason. */
const expectedFailures = fileURLToPath(new URL('../conformance-expected-failures.yml', import.meta.url));

let satellite: SatelliteApp;
let url: string;

beforeAll(async () => {
  let address: URL;
  ({ satellite, url: address } = await startTestSatellite({ servers: [stdioServer('fixture')] }));
  // The suite's DNS-rebinding scenario expects the server to be addressed as localhost.
  url = address.href.replace('127.0.0.1', 'localhost');
}, 60000);

afterAll(async () => {
  await satellite?.close();
});

describe('the MCP conformance suite against the satellite', () => {
  it('gives a reason for every scenario it expects to fail', () => {
    const reasons = expectedFailureReasons(expectedFailures);
    expect(reasons.size).toBeGreaterThan(0);
    for (const [entry, reason] of reasons) expect(reason.length, entry).toBeGreaterThan(10);
  });

  // Every scenario each revision requires, server-sse-polling and server-stateless included; only
  // the listed ones may fail, and a listed one that passes fails the run too (the list stays true).
  for (const revision of ['2026-07-28', '2025-11-25']) {
    it(`passes every applicable scenario of revision ${revision}`, async () => {
      const run = await runConformanceSuite({ command: 'server', url, requirements: revision, expectedFailures });
      expect(run.exitCode, run.output).toBe(0);
      expect(run.passed).toBeGreaterThan(40);
    }, 300000);
  }
});
