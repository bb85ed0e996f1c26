import type { Logger } from '@orbital/logger';
import { buildSatelliteEvent } from './buildSatelliteEvent.ts';
import type { EventSink } from './eventSink.ts';

/**
 * The sink used until the batching queue exists: validates every event against its schema and logs
 * it. An invalid event is a bug in the emitter; it is logged with the failing field paths, not thrown.
 * With info lines off (LOG_LEVEL warn or above) nothing would be written, so nothing is built: every
 * tool call emits an event, and checking it against its schema is a measurable share of a small call.
 */
export function createLoggingEventSink(logger: Logger): EventSink {
  return {
    emit(type, data) {
      if (!logger.isLevelEnabled('info')) return;
      try {
        const built = buildSatelliteEvent(type, data);
        if (built.ok) logger.info({ event: built.event }, 'satellite event');
        else logger.error({ event_type: type, issues: built.issues }, 'invalid satellite event dropped');
      } catch (error) {
        logger.error({ err: error, event_type: type }, 'satellite event could not be emitted');
      }
    },
  };
}
