export type { JsMsg } from '@nats-io/jetstream';
export {
  type BatchEventHandler,
  type ConsumeOptions,
  consumeDurable,
  type DurableConsumer,
  defaultBackoffMs,
  type EventHandler,
} from './consumeDurable.ts';
export {
  type BroadcastListener,
  type Bus,
  type BusObserver,
  type BusOptions,
  createBus,
  createBusFromConnection,
  type Handler,
  type HandlerContext,
  type RequestContext,
  type ServeOptions,
} from './createBus.ts';
export { type EnsureStreamOptions, ensureStream, streamConfig } from './ensureStream.ts';
export {
  createIdentitySigner,
  createIdentityVerifier,
  generateIdentityKey,
  type IdentityKeyConfig,
  type IdentityKeys,
  type IdentitySigner,
  type IdentityVerifier,
  identityTokenLifetimeSeconds,
  issuerOf,
  parseIdentityKeys,
  requestDigest,
} from './identityTokens.ts';
export { translatePublishError } from './jetStreamErrors.ts';
export { listParked, type ParkedMessage, replayParked } from './listParked.ts';
export { translateRequestError } from './natsErrors.ts';
export {
  generateNatsUser,
  inboxPrefixOf,
  type NatsAuthorization,
  type NatsAuthorizationOptions,
  type NatsPermissions,
  natsAuthorization,
  natsPermissionsOf,
  natsServerConfig,
} from './natsPermissions.ts';
export {
  checkEventPart,
  type EventPart,
  encodeEvent,
  type PublishOptions,
  type PublishResult,
  publishData,
  publishEvent,
  publishEventParts,
} from './publishEvent.ts';
export { durableName, streamName } from './streamName.ts';
