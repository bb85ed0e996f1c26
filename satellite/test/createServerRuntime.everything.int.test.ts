import { beforeEach, describe, expect, it } from 'vitest';
import type { ServerRuntime } from '../src/runtime/createServerRuntime.ts';
import type { ToolCallOptions } from '../src/runtime/managedServer.ts';
import { createRuntimeHarness } from './createRuntimeHarness.ts';
import { everythingServer, stdioServer, textOf, waitUntil } from './helpers.ts';

/**
 * The reference server `@modelcontextprotocol/server-everything` as a real upstream, through the
 * runtime API the gateway uses: every kind of result comes back as the server gave it, and its
 * long-running, elicitation and sampling tools work across the satellite.
 */
const harness = createRuntimeHarness();
let rt: ServerRuntime;

beforeEach(async () => {
  rt = harness.start([stdioServer('everything', { server_slug: 'everything', args: [everythingServer, 'stdio'] })]);
  await rt.start();
  // Its elicitation and sampling tools appear once it has seen the client's capabilities.
  await waitUntil(() => rt.lookup('everything:trigger-sampling-request').kind === 'found', 10000, 'conditional tools');
});

describe('server-everything behind the runtime', () => {
  it('returns an image as an image item', async () => {
    const result = await rt.callTool(harness.found('everything:get-tiny-image'), {});
    const image = result.content.find((c) => c.type === 'image');
    expect(image).toMatchObject({ type: 'image', mimeType: 'image/png' });
    expect(
      Buffer.from((image as { data: string }).data, 'base64')
        .subarray(1, 4)
        .toString(),
    ).toBe('PNG');
  });

  it('returns structured content next to its text', async () => {
    const result = await rt.callTool(harness.found('everything:get-structured-content'), { location: 'Chicago' });
    expect(result.structuredContent).toEqual({
      temperature: expect.any(Number),
      conditions: expect.any(String),
      humidity: expect.any(Number),
    });
    expect(JSON.parse(textOf(result))).toEqual(result.structuredContent);
  });

  it('keeps annotations on the content items', async () => {
    const result = await rt.callTool(harness.found('everything:get-annotated-message'), {
      messageType: 'error',
      includeImage: true,
    });
    expect(result.content[0]).toMatchObject({ type: 'text', annotations: { priority: 1.0 } });
    expect(result.content.some((c) => c.type === 'image' && c.annotations !== undefined)).toBe(true);
  });

  it('hands the progress of a long-running operation to the caller', async () => {
    const seen: Parameters<NonNullable<ToolCallOptions['onProgress']>>[0][] = [];
    const result = await rt.callTool(
      harness.found('everything:trigger-long-running-operation'),
      { duration: 0.3, steps: 3 },
      { onProgress: (p) => seen.push(p) },
    );
    expect(textOf(result)).toContain('Long running operation completed');
    expect(seen).toEqual([
      { progress: 1, total: 3 },
      { progress: 2, total: 3 },
      { progress: 3, total: 3 },
    ]);
  });

  it('relays its elicitation request to the caller and its answer back', async () => {
    const asked: string[] = [];
    const result = await rt.callTool(
      harness.found('everything:trigger-elicitation-request'),
      {},
      {
        onServerRequest: async (request) => {
          asked.push(request.method);
          return { action: 'accept', content: { name: 'Ada Lovelace', check: true, integer: 7 } };
        },
      },
    );
    expect(asked).toEqual(['elicitation/create']);
    const text = result.content.map((c) => (c.type === 'text' ? c.text : '')).join('\n');
    expect(text).toContain('- Name: Ada Lovelace');
    expect(text).toContain('- Favorite Integer: 7');
  });

  it('relays its sampling request to the caller and its answer back', async () => {
    let prompt: unknown;
    const result = await rt.callTool(
      harness.found('everything:trigger-sampling-request'),
      { prompt: 'Name a colour', maxTokens: 10 },
      {
        onServerRequest: async (request) => {
          prompt = request.params?.messages;
          return { model: 'client-model', role: 'assistant', content: { type: 'text', text: 'Teal.' } };
        },
      },
    );
    expect(JSON.stringify(prompt)).toContain('Name a colour');
    expect(textOf(result)).toContain('Teal.');
  });
});
