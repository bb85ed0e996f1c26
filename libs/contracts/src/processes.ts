import { z } from 'zod';

/**
 * The processes of the backend. Each one connects to NATS as itself, so this is also the list of
 * identities a platform service may carry on a request, and the unit the contract catalogue is
 * enumerated by (what each process serves, requests, publishes and consumes).
 */
export const processNames = ['gateway-api', 'settings', 'satellite-registry', 'installations', 'jobs'] as const;
export const processName = z.enum(processNames);
export type ProcessName = z.infer<typeof processName>;
