import type { Bus } from '@orbital/bus';
import type { LivePool } from '@orbital/db';
import type { Logger } from '@orbital/logger';
import type { OutboxRelay } from '../domain/outboxRelay.ts';

/** What the handlers of satellite events share. */
export type SatelliteEventDeps = { pool: LivePool; bus: Bus; relay: OutboxRelay; logger: Logger };

/** The satellite that sent an event, as gateway-api stamped it on the message (never the payload's claim). */
export type EventSource = { satelliteId: string | null; teamId: string | null };
