import { serverConfiguration } from '@orbital/contracts';
import { describe, expect, it } from 'vitest';
import { createRecordingEventSink } from './createRecordingEventSink.ts';
import { createRedactingEventSink, redacted, redactValue, secretValuesOf } from './createRedactingEventSink.ts';

const config = serverConfiguration.parse({
  process_id: 'remote-alpha-inst-1',
  installation_id: 'inst-1',
  installation_name: 'remote',
  team_id: 'team-alpha',
  team_slug: 'alpha',
  server_slug: 'remote',
  transport: 'http',
  url: 'https://mcp.example.com/mcp',
  env: { SHORT: 'dev' },
  headers: { authorization: 'Bearer sk_live_0123456789abcdef', 'x-api-key': 'key-9876543210' },
});

describe('secretValuesOf', () => {
  it('takes environment and header values, a header value word by word too, longest first', () => {
    const secrets = secretValuesOf(config, ['oauth-access-token-1']);
    expect(secrets).toEqual([
      'Bearer sk_live_0123456789abcdef',
      'sk_live_0123456789abcdef',
      'oauth-access-token-1',
      'key-9876543210',
    ]);
  });
});

describe('the redacting event sink', () => {
  it('replaces what an upstream server echoed in a request log, its parameters and its error', () => {
    const recorded = createRecordingEventSink();
    const sink = createRedactingEventSink(recorded, () => secretValuesOf(config, ['oauth-access-token-1']));
    sink.emit('mcp.tool.executed', {
      installation_id: 'inst-1',
      team_id: 'team-alpha',
      server_slug: 'remote',
      tool_name: 'echo',
      session_id: null,
      request_params: { text: 'my key is key-9876543210', nested: [{ token: 'oauth-access-token-1' }] },
      tool_response: { content: [{ type: 'text', text: 'you sent sk_live_0123456789abcdef' }] },
      duration_ms: 1,
      success: false,
      error_message: 'upstream said: Bearer sk_live_0123456789abcdef is invalid',
      executed_at: new Date().toISOString(),
    });
    const [event] = recorded.events;
    const text = JSON.stringify(event);
    expect(text).not.toMatch(/key-9876543210|sk_live_0123456789abcdef|oauth-access-token-1/);
    expect(event?.data).toMatchObject({
      request_params: { text: `my key is ${redacted}`, nested: [{ token: redacted }] },
      error_message: `upstream said: ${redacted} is invalid`,
    });
    // Still an event of its contract (the recording sink checks each against it).
    expect(recorded.invalid).toEqual([]);
  });

  it('replaces secrets in server log lines, and leaves short values and other installations alone', () => {
    const recorded = createRecordingEventSink();
    const sink = createRedactingEventSink(recorded, (id) => (id === 'inst-1' ? secretValuesOf(config) : []));
    sink.emit('mcp.server.logs', {
      installation_id: 'inst-1',
      server_slug: 'remote',
      team_id: 'team-alpha',
      lines: [
        {
          log_level: 'error',
          message: 'dev mode: auth with key-9876543210 failed',
          timestamp: new Date().toISOString(),
        },
      ],
    });
    expect(JSON.stringify(recorded.events[0]?.data)).toContain(`dev mode: auth with ${redacted} failed`);
    expect(redactValue({ a: 'key-9876543210' }, [])).toEqual({ a: 'key-9876543210' });
  });
});
