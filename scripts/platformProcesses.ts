/**
 * The processes that make up the platform, in start order. `npm start` and the end-to-end harness both
 * read this list, so what a person runs is what the tests run.
 */
import type { ProcessName } from '@orbital/contracts';

/** `process` names the backend process it is (its NATS user and identity key); the satellite is none. */
export type PlatformProcess = { name: string; entry: string; process?: ProcessName; env?: Record<string, string> };

export const platformProcesses: PlatformProcess[] = [
  { name: 'settings', entry: 'services/settings/src/main.ts', process: 'settings' },
  { name: 'registry', entry: 'services/satellite-registry/src/main.ts', process: 'satellite-registry' },
  { name: 'installations', entry: 'services/installations/src/main.ts', process: 'installations' },
  { name: 'jobs', entry: 'services/jobs/src/main.ts', process: 'jobs' },
  { name: 'gateway-api', entry: 'services/gateway-api/src/main.ts', process: 'gateway-api' },
  // A development satellite serves every team without client authentication on 127.0.0.1; it must
  // say so explicitly (SATELLITE_AUTH_MODE=oauth is the production setting of a global satellite).
  { name: 'satellite', entry: 'satellite/src/main.ts', env: { SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: 'true' } },
];

/**
 * Secrets the services refuse to start without, and the development admin's password: `npm start` generates them once for this machine (random, kept in .orbital/dev.env). ADMIN_PASSWORD
 * is the development admin's password: random per machine, so there are no default credentials.
 */
export const developmentSecretNames: string[] = [
  'SERVICE_ENCRYPTION_SECRET',
  'ADMIN_PASSWORD',
  'REGISTRATION_TOKEN_SECRET',
];

/** The development admin's address; gateway-api creates the account on first start after setup. */
export const developmentAdminEmail = 'admin@orbital.localhost';
