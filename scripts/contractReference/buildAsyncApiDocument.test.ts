import { readFileSync } from 'node:fs';
import { broadcastCatalogue, eventCatalogue } from '@orbital/contracts';
import { describe, expect, it } from 'vitest';
import { buildAsyncApiDocument } from './buildAsyncApiDocument.ts';

type Doc = {
  channels: Record<string, { address: string; 'x-jetstream-stream': { name: string } }>;
  components: { messages: Record<string, { payload: { required?: string[] }; 'x-origin'?: string }> };
};
const document = buildAsyncApiDocument() as unknown as Doc;

describe('AsyncAPI document', () => {
  it('is checked in as generated: run `npm run docs:contracts` after changing a contract', () => {
    // The one file read of this unit test: the generated reference must match the catalogue.
    const checkedIn = JSON.parse(readFileSync(new URL('../../docs/asyncapi.json', import.meta.url), 'utf8'));
    expect(checkedIn).toEqual(buildAsyncApiDocument());
  });

  it('has a channel per event and broadcast of the catalogue, events with their stream', () => {
    const addresses = Object.values(document.channels).map((c) => c.address);
    for (const event of eventCatalogue) expect(addresses).toContain(event.subject);
    for (const broadcast of broadcastCatalogue) expect(addresses).toContain(broadcast.subject);
    expect(addresses).toContain('evt.satellite.{satellite_id}.mcp.server.crashed');
    expect(addresses).toContain('parked.{durable}');
    expect(document.channels.satellite_mcp_server_crashed?.['x-jetstream-stream'].name).toBe('EVENTS_SATELLITE');
  });

  it('describes the envelope with its client id, and marks the types the spec does not define', () => {
    const crashed = document.components.messages.satellite_mcp_server_crashed;
    expect(crashed?.payload.required).toEqual(['id', 'type', 'timestamp', 'data']);
    const ours = Object.entries(document.components.messages)
      .filter(([, message]) => message['x-origin'] === 'ours')
      .map(([id]) => id);
    expect(ours).toEqual([
      'satellite_batch_mcp_client_activity',
      'satellite_batch_mcp_server_status_changed',
      'satellite_batch_mcp_tool_executed',
      'satellite_batch_mcp_server_logs',
      'satellite_mcp_client_activity',
      'satellite_mcp_server_status_changed',
      'satellite_mcp_tool_executed',
      'satellite_mcp_server_logs',
    ]);
  });

  it('describes a batch of satellite events as a list of the same envelope, on a subject of its own', () => {
    expect(document.channels.satellite_batch_mcp_server_crashed?.address).toBe(
      'evt.satellite.{satellite_id}.batch.mcp.server.crashed',
    );
    const batch = document.components.messages.satellite_batch_mcp_server_crashed?.payload as unknown as {
      required: string[];
      properties: { events: { items: { required: string[] } } };
    };
    expect(batch.required).toEqual(['events']);
    expect(batch.properties.events.items.required).toEqual(['id', 'type', 'timestamp', 'data']);
  });
});
