import type { SatelliteEventData, SatelliteEventType } from '@orbital/contracts';

/**
 * Where the satellite's runtime and gateway put their events. Emission is fire-and-forget, so an event never
 * slows or breaks what emits it: `emit` never throws and never blocks, whatever the sink does behind it.
 * The batching queue that sends events to the backend is one more implementation of this.
 */
export type EventSink = {
  emit<T extends SatelliteEventType>(type: T, data: SatelliteEventData<T>): void;
};
