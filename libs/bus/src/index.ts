export {
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
export {
  type ConsumeOptions,
  consumeDurable,
  type DurableConsumer,
  type EventHandler,
  ensureStream,
  type PublishOptions,
  publishJson,
  type StreamDefinition,
} from './jetstream.ts';
export { translateRequestError } from './natsErrors.ts';
