import { z } from 'zod';
import { defineEvent } from '../events/defineEvent.ts';
import { teamIdField } from '../ids.ts';
import { isoTimestamp } from '../isoTimestamp.ts';
import { clientType } from '../satellite/events.ts';
import { installationsToGateway } from './installationEvents.ts';

/**
 * One MCP client session of a satellite, from its `mcp.client.connected` and `mcp.client.disconnected`
 * events (installations keeps the recent ones). `team_id` is the team the session served: for a team
 * satellite always its own team, whatever the event claims; null for a global satellite's session that
 * named no team, which only global admins see. The client's IP address is not kept.
 */
export const clientSessionView = z.object({
  satellite_id: z.string(),
  session_id: z.string(),
  team_id: z.string().nullable(),
  client_type: clientType.nullable(),
  /** The name and version the client gave in `clientInfo` (null when its satellite did not say). */
  client_name: z.string().nullable(),
  client_version: z.string().nullable(),
  user_agent: z.string().nullable(),
  transport: z.string().nullable(),
  /** Null when only the disconnection was seen (the connection fell outside the event window). */
  connected_at: isoTimestamp.nullable(),
  disconnected_at: isoTimestamp.nullable(),
  active: z.boolean(),
  connection_duration_seconds: z.number().nullable(),
  tool_execution_count: z.number().int().nullable(),
  disconnect_reason: z.string().nullable(),
  /** When the last event of the session was recorded; the list is ordered by it, newest first. */
  updated_at: isoTimestamp,
});
export type ClientSessionView = z.infer<typeof clientSessionView>;

/** Query of GET /api/users/me/mcp/client-activity and its stream. */
export const clientActivityQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(500).default(50),
    /** Only this team's sessions (the caller must belong to it, or be a global admin). */
    team_id: teamIdField.optional(),
  })
  .strict();
export type ClientActivityQuery = z.infer<typeof clientActivityQuery>;

export const clientActivityPage = z.object({ items: z.array(clientSessionView) });
export type ClientActivityPage = z.infer<typeof clientActivityPage>;

/** The subject token of a session's team: its id, or `_global` for a session without a team (team ids are UUIDs). */
export const globalClientActivityToken = '_global';

/** A session's record changed (connected or disconnected); carries the record as the REST route lists it. */
export const clientActivityRecordedPayload = z.object({ session: clientSessionView });
export type ClientActivityRecorded = z.infer<typeof clientActivityRecordedPayload>;

/** One subject per team, so a stream of one team's sessions is a server-side filter. */
export const clientActivityRecordedEvent = defineEvent({
  subject: 'evt.installation.client_activity.{team_id}',
  ...installationsToGateway,
  description:
    'An MCP client session connected or disconnected (feeds the client activity stream); `_global` for sessions of no team.',
  payload: clientActivityRecordedPayload,
  tokensOf: (p) => ({ team_id: p.session.team_id ?? globalClientActivityToken }),
});
