export { createLiveStreams, type LiveStream, type LiveStreams } from './createLiveStreams.ts';
export { formatSseComment, formatSseEvent, type SseEvent } from './formatSseEvent.ts';
export {
  type FeedMessage,
  type JetStreamFeed,
  openJetStreamFeed,
  readStreamBounds,
  type StreamBounds,
} from './openJetStreamFeed.ts';
export { createSseParser, type ReceivedSseEvent } from './parseSseStream.ts';
export {
  alreadyInSnapshot,
  type EventStreamOptions,
  serveEventStream,
  skipMessage,
  type UpdateContext,
} from './serveEventStream.ts';
