import { nkeys } from '@nats-io/transport-node';
import {
  contractsOf,
  eventFilter,
  type ProcessName,
  parkedEventsStream,
  processNames,
  type StreamDefinition,
} from '@orbital/contracts';

/**
 * What each process may do on NATS, derived from the contract catalogue (libs/contracts `contractsOf`),
 * so the permissions and the code that uses them have one source: a subject added to a process's
 * contracts is allowed to it, and nothing else is.
 *
 * - Subjects it serves: subscribe (in its queue group), and answer through `allow_responses` (only to
 *   the reply subject of a message it received, once).
 * - Subjects it requests, broadcasts and publishes events on: publish.
 * - Replies to its own requests: subscribe to its own inbox prefix only (`_INBOX_<process>`; the bus
 *   connects with that prefix), so no process reads another's replies.
 * - Broadcasts it listens to, events it watches: subscribe.
 * - JetStream: the API subjects of its own streams (create, update, info), of the streams it consumes
 *   (consumers created, read, acknowledged and deleted there), publishing to the streams it writes, and
 *   the parked stream for durable consumers.
 */
export type NatsPermissions = {
  publish: { allow: string[] };
  subscribe: { allow: string[] };
  allow_responses: boolean;
};

/** The inbox prefix of a process's connection; its permissions allow replies there and nowhere else. */
export function inboxPrefixOf(process: ProcessName): string {
  return `_INBOX_${process.replaceAll('-', '_')}`;
}

const sorted = (values: Iterable<string>) => [...new Set(values)].sort();

export function natsPermissionsOf(process: ProcessName, options: { prefix?: string } = {}): NatsPermissions {
  const prefix = options.prefix ?? '';
  const wire = (subject: string) => (prefix ? `${prefix}.${subject}` : subject);
  const stream = (def: StreamDefinition) => (prefix ? `${prefix}_${def.name}` : def.name);
  const contracts = contractsOf(process);
  const publish = new Set<string>();
  const subscribe = new Set<string>([`${inboxPrefixOf(process)}.>`]);

  for (const def of contracts.serves) subscribe.add(wire(def.subject));
  for (const def of contracts.requests) publish.add(wire(def.subject));
  for (const def of contracts.broadcasts) publish.add(wire(def.subject));
  for (const def of contracts.listens) subscribe.add(wire(def.subject));

  const jetStream = new Set<string>();
  const consumed = new Map<string, StreamDefinition>();
  for (const def of contracts.consumes) {
    // Core NATS watchers (a held poll woken by an event) and JetStream consumers both read these.
    subscribe.add(wire(eventFilter(def)));
    consumed.set(def.stream.name, def.stream);
  }
  for (const def of contracts.publishes) publish.add(wire(eventFilter(def)));
  const owned = new Map(contracts.owns.map((def) => [def.name, def]));
  // A durable consumer parks what it gives up on, and makes sure the parked stream exists first.
  const durableConsumer = contracts.consumes.length > 0 && process !== 'gateway-api';
  if (durableConsumer) {
    owned.set(parkedEventsStream.name, parkedEventsStream);
    for (const subject of parkedEventsStream.subjects) publish.add(wire(subject));
  }
  if (owned.size > 0 || consumed.size > 0 || contracts.publishes.length > 0) jetStream.add('$JS.API.INFO');
  for (const def of owned.values()) {
    for (const verb of ['CREATE', 'UPDATE', 'INFO']) jetStream.add(`$JS.API.STREAM.${verb}.${stream(def)}`);
  }
  for (const def of consumed.values()) {
    const name = stream(def);
    jetStream.add(`$JS.API.STREAM.INFO.${name}`);
    // Consumers are created with a name (and filter) in the subject, or as durables on older servers.
    jetStream.add(`$JS.API.CONSUMER.CREATE.${name}`);
    jetStream.add(`$JS.API.CONSUMER.CREATE.${name}.>`);
    jetStream.add(`$JS.API.CONSUMER.DURABLE.CREATE.${name}.*`);
    for (const verb of ['INFO', 'DELETE', 'MSG.NEXT']) jetStream.add(`$JS.API.CONSUMER.${verb}.${name}.*`);
    // Acknowledgements go to the reply subject of each message, repeatedly (progress, then done).
    jetStream.add(`$JS.ACK.${name}.>`);
  }
  for (const subject of jetStream) publish.add(subject);

  return {
    publish: { allow: sorted(publish) },
    subscribe: { allow: sorted(subscribe) },
    allow_responses: contracts.serves.length > 0 || contracts.listens.some((def) => def.reply !== undefined),
  };
}

export type NatsAuthorizationOptions = {
  /** Deployment prefix of subjects and streams (NATS_SUBJECT_PREFIX). */
  prefix?: string;
  /** Each process's NKey public key (`U...`): the server holds no secret. */
  users: Partial<Record<ProcessName, string>>;
};

export type NatsAuthorization = { users: Array<{ nkey: string; permissions: NatsPermissions }> };

/**
 * The `authorization` block of a nats-server configuration: one user per process, authenticated by its
 * NKey, with the permissions above. There is no anonymous user, so a client without a key is refused
 * at connection. The Helm chart takes the same object under `config.merge`.
 */
export function natsAuthorization(options: NatsAuthorizationOptions): NatsAuthorization {
  return {
    users: processNames.flatMap((process) => {
      const nkey = options.users[process];
      if (!nkey) return [];
      return [{ nkey, permissions: natsPermissionsOf(process, options.prefix ? { prefix: options.prefix } : {}) }];
    }),
  };
}

/** A whole nats-server configuration file; `server` is what a deployment adds (listen address, JetStream). */
export function natsServerConfig(options: NatsAuthorizationOptions & { server?: string }): string {
  return [
    '# Generated from the contract catalogue (libs/bus natsPermissions.ts): do not edit by hand.',
    ...(options.server ? [options.server] : []),
    // The configuration format reads JSON.
    `authorization: ${JSON.stringify(natsAuthorization(options), null, 2)}`,
    '',
  ].join('\n');
}

/** A new NATS user key pair: the seed is the process's secret (NATS_NKEY_SEED), the public key goes in the server's configuration. */
export function generateNatsUser(): { seed: string; publicKey: string } {
  const pair = nkeys.createUser();
  return { seed: new TextDecoder().decode(pair.getSeed()), publicKey: pair.getPublicKey() };
}
