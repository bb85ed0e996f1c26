import { randomUUID } from 'node:crypto';

/**
 * A batch of satellite events as a satellite sends it to `POST /api/satellites/:id/events`: `count`
 * "a client connected" events, each with a new id and session (so none is a duplicate of another), of no
 * team. The event every outage test and load run sends when what matters is the path, not the event.
 */
export function clientConnectedBatch(count = 1): string {
  return JSON.stringify({
    events: Array.from({ length: count }, () => ({
      id: randomUUID(),
      type: 'mcp.client.connected',
      timestamp: new Date().toISOString(),
      data: {
        session_id: randomUUID(),
        client_type: 'vscode',
        user_agent: 'vscode/1.99',
        transport: 'sse',
        ip_address: '10.0.0.1',
        team_id: null,
      },
    })),
  });
}
