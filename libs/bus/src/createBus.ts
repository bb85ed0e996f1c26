import { randomUUID } from 'node:crypto';
import {
  connect,
  createInbox,
  type Msg,
  type MsgHdrs,
  type NatsConnection,
  headers as natsHeaders,
  nkeyAuthenticator,
  type Subscription,
} from '@nats-io/transport-node';
import { type AccessGrant, authorizeRequest } from '@orbital/access';
import {
  type BroadcastDef,
  type BroadcastPayloadOf,
  type CallerIdentity,
  type EventDef,
  type EventPayloadOf,
  type EventTokens,
  eventFilter,
  headerNames,
  type ParsedRequestOf,
  type ProcessName,
  type ReplyEnvelope,
  type ReplyOf,
  type RequestOf,
  type RequestOrigin,
  replyEnvelope,
  requestOrigin,
  type SubjectDef,
} from '@orbital/contracts';
import { AppError, toAppError } from '@orbital/errors';
import type { Logger } from '@orbital/logger';
import type { z } from 'zod';
import { createReplyMux } from './createReplyMux.ts';
import {
  createIdentitySigner,
  createIdentityVerifier,
  type IdentityKeyConfig,
  type IdentityKeys,
  issuerOf,
  parseIdentityKeys,
  requestDigest,
} from './identityTokens.ts';
import { busDisconnected, translateRequestError } from './natsErrors.ts';
import { inboxPrefixOf } from './natsPermissions.ts';
import { watchConnection } from './watchConnection.ts';

export type BusOptions = {
  servers: string;
  /** Connection name, shown in NATS monitoring. */
  name: string;
  /** Deployment prefix; every subject is `<prefix>.<subject>` when set. */
  prefix?: string;
  logger: Logger;
  requestTimeoutMs?: number;
  /** Told the duration and outcome of every request sent and every request handled (for metrics). */
  observer?: BusObserver;
  /**
   * Caps the size of every stream this bus creates (ensureStream). JetStream reserves a stream's whole
   * max_bytes on the server when the stream is created, so machines where many stacks or test runs share
   * one NATS server set a small cap; production leaves it unset and gets the sizes of libs/contracts.
   */
  streamMaxBytes?: number;
  /** Copies of every stream this bus creates: 1 on a single server, 3 on a production NATS cluster. */
  streamReplicas?: number;
  /**
   * The keys that sign the identity on every request this bus sends and verify it on every request it
   * serves (identityTokens.ts): configuration text or keys already read.
   */
  identity: IdentityKeyConfig | IdentityKeys;
  /**
   * Who this connection is on NATS: the process's NKey seed (NATS_NKEY_SEED). Without it the connection
   * is anonymous, which only an open server (a developer's or a test's) accepts. With it, replies come
   * to the process's own inbox prefix, the only one its permissions let it read.
   */
  credentials?: { process: ProcessName; nkeySeed: string };
};

export type BusObserver = {
  requestSent(subject: string, seconds: number, outcome: string): void;
  requestHandled(subject: string, seconds: number, outcome: string): void;
};

export type RequestContext = {
  identity: CallerIdentity;
  requestId?: string;
  timeoutMs?: number;
  /** Where the request came from and who made it (gateway-api sets it for people and satellites). */
  origin?: RequestOrigin;
};

export type HandlerContext = {
  identity: CallerIdentity;
  /** What the subject's declared access granted this caller (its team scope, its user id). */
  access: AccessGrant;
  requestId: string;
  /**
   * Where the request came from, as gateway-api saw it; null unless gateway-api vouches for the
   * identity (a service speaking for itself has none) and sent one.
   */
  origin: RequestOrigin | null;
  logger: Logger;
  headers: MsgHdrs | undefined;
};

export type Handler<S extends SubjectDef> = (
  request: ParsedRequestOf<S>,
  context: HandlerContext,
) => Promise<ReplyOf<S>> | ReplyOf<S>;

export type ServeOptions = {
  /** Queue group; defaults to the subject's service, so replicas share the work. */
  queue?: string;
};

/** Answers a broadcast; its return value is the reply when the broadcast asks for one. */
export type BroadcastListener<B extends BroadcastDef> = (
  payload: BroadcastPayloadOf<B>,
) => B['reply'] extends z.ZodType ? z.input<B['reply']> : void;

export type Bus = {
  readonly connection: NatsConnection;
  readonly prefix: string;
  /** See BusOptions.streamMaxBytes. */
  readonly streamMaxBytes?: number;
  /** See BusOptions.streamReplicas. */
  readonly streamReplicas?: number;
  /** The subject as it is on the wire, with the deployment prefix. */
  subject(name: string): string;
  /** False while the connection is down (reconnecting or closed): requests and publishes fail at once. */
  isConnected(): boolean;
  request<S extends SubjectDef>(def: S, payload: RequestOf<S>, context: RequestContext): Promise<ReplyOf<S>>;
  /**
   * Answers a subject in its service's queue group. Each request is parsed against the subject's
   * schema, then checked against its declared access, before the handler runs; the reply the handler
   * produced is checked against the subject's reply schema before it is sent, and again by the requester.
   */
  serve<S extends SubjectDef>(def: S, handler: Handler<S>, options?: ServeOptions): Subscription;
  /** Sends a broadcast to every listening replica; `replyTo` collects their replies (an inbox). */
  broadcast<B extends BroadcastDef>(def: B, payload: z.input<B['payload']>, options?: { replyTo?: string }): void;
  /** Every replica receives every broadcast; a malformed one is logged and ignored. */
  listen<B extends BroadcastDef>(def: B, listener: BroadcastListener<B>): Subscription;
  /**
   * The messages of an event (the given tokens fixed) as they are stored, on this connection, from now
   * on: no replay, nothing acknowledged, one that breaks the contract logged and skipped. For waking
   * whatever waits here (a held poll); work that must not be missed uses consumeDurable.
   */
  watch<E extends EventDef>(
    def: E,
    tokens: EventTokens<E>,
    listener: (payload: EventPayloadOf<E>) => void,
  ): Subscription;
  /** A new reply subject under this connection's inbox prefix, the only one its NATS permissions let it read. */
  createInbox(): string;
  /** Waits until every subscription made so far is registered with the server. */
  flush(): Promise<void>;
  /** Stops taking new messages, finishes those in flight, then closes the connection. */
  drain(): Promise<void>;
};

export async function createBus(options: BusOptions): Promise<Bus> {
  const connection = await connect({
    servers: options.servers,
    name: options.name,
    // Stack traces on every request cost about a third of the throughput.
    noAsyncTraces: true,
    maxReconnectAttempts: -1,
    // A server that stops answering (a partition rather than a closed socket) is noticed within about
    // 15 s instead of the default 4 minutes; from then on requests are refused at once.
    pingInterval: 5000,
    maxPingOut: 2,
    ...(options.credentials
      ? {
          authenticator: nkeyAuthenticator(new TextEncoder().encode(options.credentials.nkeySeed)),
          inboxPrefix: inboxPrefixOf(options.credentials.process),
        }
      : {}),
  });
  return createBusFromConnection(connection, options);
}

export function createBusFromConnection(
  connection: NatsConnection,
  options: Pick<
    BusOptions,
    | 'prefix'
    | 'logger'
    | 'requestTimeoutMs'
    | 'observer'
    | 'streamMaxBytes'
    | 'streamReplicas'
    | 'identity'
    | 'credentials'
  >,
): Bus {
  const keys = 'signing' in options.identity ? options.identity : parseIdentityKeys(options.identity);
  const signIdentity = createIdentitySigner(keys);
  const verifyIdentity = createIdentityVerifier(keys);
  const observer = options.observer;
  const prefix = options.prefix ?? '';
  const defaultTimeout = options.requestTimeoutMs ?? 5000;
  const logger = options.logger;
  const subject = (name: string) => (prefix ? `${prefix}.${name}` : name);
  const { isConnected } = watchConnection(connection);
  const replies = createReplyMux(
    connection,
    options.credentials ? inboxPrefixOf(options.credentials.process) : undefined,
  );

  async function request<S extends SubjectDef>(
    def: S,
    payload: RequestOf<S>,
    context: RequestContext,
  ): Promise<ReplyOf<S>> {
    const wireSubject = subject(def.subject);
    if (!isConnected()) {
      observer?.requestSent(def.subject, 0, 'unavailable');
      throw busDisconnected(def.subject);
    }
    const started = performance.now();
    const hdrs = natsHeaders();
    hdrs.set(headerNames.requestId, context.requestId ?? randomUUID());
    const origin = context.origin ? encodeOrigin(context.origin) : undefined;
    if (origin) hdrs.set(headerNames.origin, origin);
    const body = Buffer.from(JSON.stringify(payload));
    // The identity vouches for this request only: subject, origin and these very bytes.
    const digest = requestDigest({ subject: wireSubject, origin, body });
    hdrs.set(headerNames.identity, await signIdentity(context.identity, wireSubject, digest));
    let msg: Msg;
    try {
      msg = await replies.request(wireSubject, body, {
        timeoutMs: context.timeoutMs ?? defaultTimeout,
        headers: hdrs,
      });
    } catch (error) {
      const translated = translateRequestError(error, def.subject);
      observer?.requestSent(def.subject, (performance.now() - started) / 1000, translated.code);
      throw translated;
    }
    const envelope = parseEnvelope(msg, def.subject);
    observer?.requestSent(def.subject, (performance.now() - started) / 1000, envelope.ok ? 'ok' : envelope.error.code);
    if (!envelope.ok) throw AppError.fromBody(envelope.error);
    const reply = def.reply.safeParse(envelope.data);
    if (!reply.success) {
      throw new AppError('internal', 'A service answered with a reply that breaks its contract', {
        cause: reply.error,
        details: { subject: def.subject },
      });
    }
    return reply.data as ReplyOf<S>;
  }

  function serve<S extends SubjectDef>(def: S, handler: Handler<S>, serveOptions: ServeOptions = {}): Subscription {
    const wireSubject = subject(def.subject);
    return connection.subscribe(wireSubject, {
      queue: serveOptions.queue ?? def.service,
      // A callback runs each message as it arrives, so one slow request does not hold up the others.
      callback: (error, msg) => {
        if (error) {
          logger.error({ err: error, subject: def.subject }, 'subscription failed');
          return;
        }
        void handleMessage(def, wireSubject, handler, msg);
      },
    });
  }

  async function handleMessage<S extends SubjectDef>(
    def: S,
    wireSubject: string,
    handler: Handler<S>,
    msg: Msg,
  ): Promise<void> {
    const requestId = msg.headers?.get(headerNames.requestId) || randomUUID();
    const started = performance.now();
    // Made on first use: most requests log nothing, and a child logger per request was a tenth of a
    // busy service's CPU time.
    let log: Logger | undefined;
    const requestLog = () => {
      log ??= logger.child({ request_id: requestId, subject: def.subject });
      return log;
    };
    let envelope: ReplyEnvelope;
    try {
      // Before the request is even parsed: nobody learns anything from a subject without a valid identity.
      const digest = requestDigest({
        subject: wireSubject,
        origin: msg.headers?.get(headerNames.origin),
        body: msg.data,
      });
      const identity = await verifyIdentity(msg.headers?.get(headerNames.identity), wireSubject, digest);
      const parsed = def.request.safeParse(decodeJson(msg));
      if (!parsed.success) {
        throw new AppError('validation_failed', 'The request does not match its contract', {
          details: parsed.error.issues.map((i) => ({ path: i.path.join('.'), message: i.message })),
        });
      }
      const access = authorizeRequest(def.access, identity, parsed.data);
      const data = await handler(parsed.data as ParsedRequestOf<S>, {
        identity,
        access,
        requestId,
        // Read on first use: only handlers that record an audit entry ask, and the poll path never does.
        get origin() {
          return issuerOf(identity) === 'gateway-api' ? decodeOrigin(msg.headers?.get(headerNames.origin)) : null;
        },
        get logger() {
          return requestLog();
        },
        headers: msg.headers,
      });
      // The reply is checked where it is made, so a handler that breaks its contract is logged by the
      // service at fault; the requester checks it again on arrival, as it reads it.
      const reply = def.reply.safeParse(data);
      if (!reply.success) {
        throw new AppError('internal', `The ${def.subject} handler produced a reply that breaks its contract`, {
          cause: reply.error,
        });
      }
      envelope = { ok: true, data };
    } catch (error) {
      const appError = toAppError(error);
      if (appError.code === 'internal') requestLog().error({ err: appError.cause ?? appError }, 'handler failed');
      else requestLog().debug({ code: appError.code }, 'handler refused the request');
      envelope = { ok: false, error: appError.toBody() };
    }
    if (msg.reply) msg.respond(JSON.stringify(envelope));
    observer?.requestHandled(
      def.subject,
      (performance.now() - started) / 1000,
      envelope.ok ? 'ok' : envelope.error.code,
    );
  }

  function broadcast<B extends BroadcastDef>(
    def: B,
    payload: z.input<B['payload']>,
    broadcastOptions: { replyTo?: string } = {},
  ): void {
    const checked = def.payload.safeParse(payload);
    if (!checked.success) {
      throw new AppError('internal', 'A broadcast breaks its contract', {
        cause: checked.error,
        details: { subject: def.subject },
      });
    }
    connection.publish(subject(def.subject), JSON.stringify(checked.data), {
      ...(broadcastOptions.replyTo ? { reply: broadcastOptions.replyTo } : {}),
    });
  }

  function listen<B extends BroadcastDef>(def: B, listener: BroadcastListener<B>): Subscription {
    return connection.subscribe(subject(def.subject), {
      callback: (error, msg) => {
        if (error) return;
        let parsed: ReturnType<B['payload']['safeParse']>;
        try {
          parsed = def.payload.safeParse(msg.json()) as typeof parsed;
        } catch {
          parsed = { success: false } as typeof parsed;
        }
        if (!parsed.success) {
          logger.warn({ subject: def.subject }, 'ignored a malformed broadcast');
          return;
        }
        const reply = listener(parsed.data as BroadcastPayloadOf<B>);
        if (def.reply && msg.reply) msg.respond(JSON.stringify(reply));
      },
    });
  }

  function watch<E extends EventDef>(
    def: E,
    tokens: EventTokens<E>,
    listener: (payload: EventPayloadOf<E>) => void,
  ): Subscription {
    return connection.subscribe(subject(eventFilter(def, tokens)), {
      callback: (error, msg) => {
        if (error) return;
        let parsed: { success: boolean; data?: unknown };
        try {
          parsed = def.payload.safeParse(msg.json());
        } catch {
          parsed = { success: false };
        }
        if (parsed.success) listener(parsed.data as EventPayloadOf<E>);
        else logger.warn({ subject: msg.subject }, 'ignored an event that breaks its contract');
      },
    });
  }

  return {
    connection,
    prefix,
    ...(options.streamMaxBytes ? { streamMaxBytes: options.streamMaxBytes } : {}),
    ...(options.streamReplicas ? { streamReplicas: options.streamReplicas } : {}),
    subject,
    isConnected,
    request,
    serve,
    broadcast,
    listen,
    watch,
    createInbox: () => createInbox(options.credentials ? inboxPrefixOf(options.credentials.process) : undefined),
    flush: () => connection.flush(),
    drain: async () => {
      if (!connection.isClosed()) await connection.drain();
    },
  };
}

/** Base64url, so any text (a name with accents, a quote) travels in a header as it was. */
function encodeOrigin(origin: RequestOrigin): string {
  return Buffer.from(JSON.stringify(origin)).toString('base64url');
}

/** The origin a request carries, or null when it carries none or one that is not well formed. */
function decodeOrigin(header: string | undefined): RequestOrigin | null {
  if (!header) return null;
  try {
    const parsed = requestOrigin.safeParse(JSON.parse(Buffer.from(header, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

function decodeJson(msg: Msg): unknown {
  if (msg.data.length === 0) return {};
  try {
    return msg.json();
  } catch (cause) {
    throw new AppError('validation_failed', 'The request body is not valid JSON', { cause });
  }
}

function parseEnvelope(msg: Msg, subjectName: string): ReplyEnvelope {
  try {
    return replyEnvelope.parse(msg.json());
  } catch (cause) {
    throw new AppError('internal', 'A service answered with a malformed reply', {
      cause,
      details: { subject: subjectName },
    });
  }
}
