import type { SatelliteEventType } from './events.ts';

/**
 * When each satellite event is emitted, for the AsyncAPI document. `ours` marks the types the
 * product specification does not define (it names `mcp.server.status_changed` without fields and counts a
 * thirteenth type without showing it); their fields are Orbital's decision, documented in docs/events.md.
 */
export const satelliteEventDescriptions: Record<SatelliteEventType, { emittedWhen: string; origin: 'spec' | 'ours' }> =
  {
    'mcp.server.started': { emittedWhen: 'A stdio process was spawned and its handshake completed.', origin: 'spec' },
    'mcp.server.crashed': { emittedWhen: 'A process exited unexpectedly with a non-zero code.', origin: 'spec' },
    'mcp.server.restarted': { emittedWhen: 'An automatic restart after a crash succeeded.', origin: 'spec' },
    'mcp.server.permanently_failed': { emittedWhen: 'Three restart attempts were exhausted.', origin: 'spec' },
    'mcp.server.dormant': { emittedWhen: 'An idle stdio process was terminated.', origin: 'spec' },
    'mcp.server.respawned': { emittedWhen: 'A dormant process was respawned on an API call.', origin: 'spec' },
    'mcp.client.connected': {
      emittedWhen:
        'An MCP client opened a connection (a 2025 session), or a 2026-07-28 client, which opens none, sent its first request (transport `stateless`).',
      origin: 'spec',
    },
    'mcp.client.disconnected': {
      emittedWhen:
        'An MCP client connection closed, or a 2026-07-28 client sent no request for SESSION_IDLE_TIMEOUT_MS (`timeout`).',
      origin: 'spec',
    },
    'mcp.client.activity': {
      emittedWhen:
        'A 2025 client session or a 2026-07-28 client made tool calls since its last report (checked every SESSION_SWEEP_INTERVAL_MS): ' +
        'its tool-call count so far and when it was last seen, for the recent clients list.',
      origin: 'ours',
    },
    'mcp.tools.discovered': {
      emittedWhen: 'Tool discovery of an HTTP or stdio server finished; feeds the tool metadata table.',
      origin: 'spec',
    },
    'mcp.tools.updated': { emittedWhen: 'The tool list changed during a configuration refresh.', origin: 'spec' },
    'config.refreshed': { emittedWhen: 'The configuration was fetched from the backend.', origin: 'spec' },
    'config.error': { emittedWhen: 'Fetching the configuration failed.', origin: 'spec' },
    'mcp.server.status_changed': {
      emittedWhen:
        'The status of an installation changed on the satellite: credential validation (online, requires_reauth, ' +
        'error), recovery of an offline server, the process life cycle, or a configuration change. Carries the new ' +
        'and previous status, a message and what caused the change.',
      origin: 'ours',
    },
    'mcp.tool.executed': {
      emittedWhen:
        'The thirteenth type: one tool execution through execute_mcp_tool, for the request log of the installation ' +
        '(params, duration, success; tool_response only when request_logging_enabled is true).',
      origin: 'ours',
    },
    'mcp.server.logs': {
      emittedWhen: 'A batch of stderr lines of a stdio server, for the server logs of the installation.',
      origin: 'ours',
    },
  };
