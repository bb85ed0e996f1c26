import type { Bus } from '@orbital/bus';
import type { LivePool } from '@orbital/db';
import type { Logger } from '@orbital/logger';
import type { RegistrationTokenSigner } from './registrationTokenSigner.ts';

/** What the registry's operations share. `now` is the one clock: tests move it instead of sleeping. */
export type RegistryDeps = {
  pool: LivePool;
  bus: Bus;
  logger: Logger;
  signer: RegistrationTokenSigner;
  now: () => Date;
  leaseMs: number;
  /** Expiry of a command whose creator gave none. */
  defaultCommandExpiryMs: number;
  heartbeatIntervalMs: number;
  /** Argon2 options for new API keys; the defaults of the argon2 package when not given. */
  argon2Options?: { memoryCost?: number; timeCost?: number; parallelism?: number };
  /** The bounds of registration's Argon2 queue (registrationHashing), for tests. */
  registrationHashing?: { concurrency?: number; maxWaiting?: number; maxWaitMs?: number };
};
