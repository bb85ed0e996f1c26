import type { Bus } from '@orbital/bus';
import {
  apiKeyInvalidatedBroadcast,
  type CallerIdentity,
  type InstallationConfigRecord,
  type ReplyOf,
  type RequestOf,
  registrySubjects,
  type SatelliteIdentity,
  serviceIdentity,
} from '@orbital/contracts';
import { createLogger } from '@orbital/logger';
import { createTestBuses, createTestEnvironment, type ServiceUnderTest, type TestEnvironment } from '@orbital/testing';
import type { RegistryApp } from '../src/app.ts';
import * as shared from './startRegistryUnderTest.ts';

export * from './startRegistryUnderTest.ts';

const logger = createLogger({ name: 'registry-test', level: process.env.TEST_LOG_LEVEL ?? 'silent' });

/** The platform process that queues commands in production. */
export const installations = serviceIdentity('installations');
/** The only process that may read API key hashes: it verifies satellites' keys. */
export const gatewayApi = serviceIdentity('gateway-api');

export type Target = { scope: 'global' } | { scope: 'team'; team_id: string };

/** A registered satellite: its id, the API key it was given once, and the identity gateway-api signs for it. */
export type Registered = { id: string; apiKey: string; identity: SatelliteIdentity };

export type RegistryStack = {
  env: TestEnvironment;
  registry: ServiceUnderTest<RegistryApp>;
  /** The registry's clock, moved by tests for token expiry, leases and command expiry. */
  clock: shared.TestClock;
  /** What the stand-in installations service serves to `installations.config.for_satellite`. */
  installations: InstallationConfigRecord[];
  installationRequests: Array<{ team_ids: string[] | null }>;
  /** Sends a request as `identity`, as gateway-api does for the person or satellite it authenticated. */
  request: RequestAs;
  /** gateway-api's connection, as the tests use it: to watch what the registry announces. */
  client: Bus;
  /** The satellite ids whose key verification the registry told every gateway replica to drop, in order. */
  invalidated: string[];
  /** The registry's schema, for what a test must see or plant past the service. */
  sql(text: string, values?: unknown[]): Promise<Array<Record<string, unknown>>>;
  stop(): Promise<void>;
};

type Subjects = typeof registrySubjects;
type RequestAs = <K extends keyof Subjects>(
  subject: K,
  request: RequestOf<Subjects[K]>,
  identity: CallerIdentity,
) => Promise<ReplyOf<Subjects[K]>>;

/**
 * The registry in this process on the run's PostgreSQL and NATS, with a clock the tests move, and a
 * small stand-in answering the one installations subject it calls for satellite configuration.
 */
export async function startRegistryStack(
  options: Pick<
    Parameters<typeof shared.startRegistryUnderTest>[0],
    'leaseMs' | 'defaultCommandExpiryMs' | 'registrationHashing'
  > = {},
): Promise<RegistryStack> {
  const env = await createTestEnvironment();
  const buses = createTestBuses(env, logger);
  const { registry, clock, installations, installationRequests } = await shared.startRegistryUnderTest({
    env,
    buses,
    logger,
    ...options,
  });
  const client = await buses.connect('gateway-api-stand-in');
  const invalidated: string[] = [];
  client.listen(apiKeyInvalidatedBroadcast, ({ satellite_id }) => invalidated.push(satellite_id));
  await buses.flush();
  const db = await shared.connectToRegistrySchema(env);

  return {
    env,
    registry,
    clock,
    installations,
    installationRequests,
    client,
    invalidated,
    request: (subject, request, identity) =>
      client.request(registrySubjects[subject] as never, request as never, { identity }) as never,
    sql: async (text, values = []) => (await db.query(text, values)).rows,
    async stop() {
      await db.end();
      await registry.stop();
      await buses.drain();
      await env.cleanup();
    },
  };
}

export async function createToken(stack: RegistryStack, target: Target, identity = shared.globalAdmin, minutes = 60) {
  return stack.request('createToken', { target, options: { expires_in_minutes: minutes } }, identity);
}

/** The address gateway-api saw every registration come from. */
export const clientIp = '192.0.2.10';

/** A registration as gateway-api relays it: the Authorization header untouched, the caller anonymous. */
export function register(stack: RegistryStack, authorization: string | null, body: object) {
  return stack.request('register', { authorization, client_ip: clientIp, body: body as never }, { kind: 'anonymous' });
}

export async function registerSatellite(stack: RegistryStack, target: Target, name = 'sat'): Promise<Registered> {
  const token = await createToken(stack, target);
  const made = await register(stack, token.authorization, shared.satelliteBody(name));
  return {
    id: made.satellite_id,
    apiKey: made.api_key,
    identity: {
      kind: 'satellite',
      satellite_id: made.satellite_id,
      satellite_type: made.satellite_type,
      team_id: made.team_id,
    },
  };
}

export function heartbeat(stack: RegistryStack, satellite: Registered, body: object = shared.heartbeatBody()) {
  return stack.request('heartbeat', { satellite_id: satellite.id, heartbeat: body as never }, satellite.identity);
}

/** Polled commands, seen through the fields every command type has (the contract's union erases them). */
export type PolledCommands = {
  commands: Array<{ id: string; priority: string; command_type: string; payload: { team_id: string } }>;
  polling: { mode: string; next_poll_ms: number };
};

export async function poll(stack: RegistryStack, satellite: Registered, limit = 20): Promise<PolledCommands> {
  return (await stack.request('pollCommands', { satellite_id: satellite.id, limit }, satellite.identity)) as never;
}

export function report(stack: RegistryStack, satellite: Registered, commandId: string, status: string, extra = {}) {
  return stack.request(
    'reportResult',
    { satellite_id: satellite.id, result: { command_id: commandId, status, ...extra } as never },
    satellite.identity,
  );
}

export function queueCommand(stack: RegistryStack, request: Record<string, unknown>) {
  return stack.request('createCommand', request as never, installations);
}

export function commandStatus(stack: RegistryStack, commandId: string) {
  return stack.request('getCommand', { command_id: commandId }, installations);
}
