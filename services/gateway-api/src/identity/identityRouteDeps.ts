import type { Logger } from '@orbital/logger';
import type { IdentityAudit } from './createIdentityAudit.ts';
import type { ReplicaBroadcast } from './createReplicaBroadcast.ts';
import type { IdentityStore } from './identityStore.ts';

/** What the identity routes share: the store, the cross-replica session eviction, a logger, the clock. */
export type IdentityRouteDeps = {
  store: IdentityStore;
  broadcast: ReplicaBroadcast;
  logger: Logger;
  now: () => number;
  /** Records identity's actions in the audit log. */
  audit: IdentityAudit;
};
