import { z } from 'zod';

/** The 11 installation statuses. Only `online` makes an installation's tools available. */
export const installationStatuses = [
  'provisioning',
  'command_received',
  'connecting',
  'discovering_tools',
  'syncing_tools',
  'online',
  'restarting',
  'offline',
  'error',
  'requires_reauth',
  'permanently_failed',
] as const;
export const installationStatus = z.enum(installationStatuses);
export type InstallationStatus = z.infer<typeof installationStatus>;

/** A server's health as its satellite reports it; `unknown` until there is evidence either way. */
export const processHealth = z.enum(['healthy', 'unhealthy', 'unknown']);
export type ProcessHealth = z.infer<typeof processHealth>;
