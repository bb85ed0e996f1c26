import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadConfig } from '@orbital/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger, stdioServer } from '../test/helpers.ts';
import { createSatelliteApp, type SatelliteApp } from './app.ts';
import { satelliteEnv } from './config.ts';
import { createRecordingEventSink } from './events/createRecordingEventSink.ts';

const conformanceCli = fileURLToPath(
  new URL('../../node_modules/@modelcontextprotocol/conformance/dist/index.js', import.meta.url),
);

/** Server scenarios of @modelcontextprotocol/conformance that apply to a two-tool gateway. */
const applicable = [
  'server-initialize',
  'ping',
  'tools-list',
  'resources-list',
  'prompts-list',
  'dns-rebinding-protection',
  'server-sse-multiple-streams',
];

/**
 * The others, and why they cannot apply. Most exercise fixtures of the conformance suite's own
 * reference server (tools named `test_*`, resources, prompts); the spec fixes the satellite's
 * surface to two tools and empty lists.
 */
export const inapplicable: Record<string, string> = {
  'logging-set-level': 'the spec advertises capabilities {tools: {}} only; no logging capability',
  'completion-complete': 'no completions capability (no prompts or resource templates to complete)',
  'tools-call-simple-text': 'calls the suite fixture tool test_simple_text; the satellite has exactly two tools',
  'tools-call-image': 'suite fixture tool test_image_content',
  'tools-call-audio': 'suite fixture tool test_audio_content',
  'tools-call-embedded-resource': 'suite fixture tool test_embedded_resource',
  'tools-call-mixed-content': 'suite fixture tool test_multiple_content_types',
  'tools-call-with-logging': 'suite fixture tool test_tool_with_logging; no logging capability',
  'tools-call-error': 'suite fixture tool test_error_handling',
  'tools-call-with-progress': 'suite fixture tool test_tool_with_progress',
  'tools-call-sampling': 'suite fixture tool test_sampling; the meta-tools never ask the client to sample',
  'tools-call-elicitation': 'suite fixture tool test_elicitation; the meta-tools never elicit',
  'json-schema-2020-12': 'suite fixture tool json_schema_2020_12_tool',
  'elicitation-sep1034-defaults': 'suite fixture tool; the meta-tools never elicit',
  'elicitation-sep1330-enums': 'suite fixture tool; the meta-tools never elicit',
  'server-sse-polling':
    'SHOULD-level resumability (priming event, retry field) needs an event store; sessions keep none (0 checks fail, 2 warnings)',
  'resources-read-text': 'resources/list is empty by spec; nothing to read',
  'resources-read-binary': 'resources/list is empty by spec',
  'resources-templates-read': 'resources/templates/list is empty by spec',
  'resources-subscribe': 'no resources capability',
  'resources-unsubscribe': 'no resources capability',
  'prompts-get-simple': 'prompts/list is empty by spec',
  'prompts-get-with-args': 'prompts/list is empty by spec',
  'prompts-get-embedded-resource': 'prompts/list is empty by spec',
  'prompts-get-with-image': 'prompts/list is empty by spec',
};

let satellite: SatelliteApp;
let url: string;

beforeAll(async () => {
  satellite = createSatelliteApp({
    config: loadConfig(satelliteEnv, {
      LOG_LEVEL: 'silent',
      PROCESS_IDLE_TIMEOUT_MS: '0',
      SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: 'true',
    }),
    servers: [stdioServer('fixture')],
    events: createRecordingEventSink(),
    logger: silentLogger,
  });
  await satellite.start();
  const address = await satellite.app.listen({ port: 0, host: '127.0.0.1' });
  // The suite's DNS-rebinding scenario expects the server to be addressed as localhost.
  url = `${address.replace('127.0.0.1', 'localhost')}/mcp`;
}, 60000);

afterAll(async () => {
  await satellite?.close();
});

describe('MCP conformance suite', () => {
  it('lists every server scenario as applicable or not, with a reason', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, [conformanceCli, 'list']);
    const serverPart = stdout.split('Client scenarios')[0] ?? '';
    const scenarios = [...serverPart.matchAll(/^\s+- (\S+)/gm)].map((m) => m[1]);
    expect(scenarios.length).toBeGreaterThan(0);
    expect(scenarios.filter((s) => !applicable.includes(s as string) && !((s as string) in inapplicable))).toEqual([]);
  });

  for (const scenario of applicable) {
    it(`passes ${scenario}`, async () => {
      const cwd = mkdtempSync(join(tmpdir(), 'satellite-conformance-'));
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [conformanceCli, 'server', '--url', url, '--scenario', scenario],
        { cwd, timeout: 60000 },
      );
      const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(stdout);
      expect(summary, stdout).not.toBeNull();
      expect(Number(summary?.[3])).toBe(0);
      expect(Number(summary?.[1])).toBe(Number(summary?.[2]));
      expect(Number(summary?.[1])).toBeGreaterThan(0);
    });
  }
});
