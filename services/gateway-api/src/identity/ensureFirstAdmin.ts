import { processActor } from '@orbital/audit';
import { ConfigError } from '@orbital/config';
import type { Logger } from '@orbital/logger';
import { checkPasswordStrength } from './checkPasswordStrength.ts';
import type { IdentityStore } from './identityStore.ts';
import { hashPassword } from './passwordHashing.ts';

export type FirstAdmin = { email: string; password: string; name: string };

/**
 * The first global admin from ADMIN_EMAIL and ADMIN_PASSWORD, checked at start: one without the other,
 * or a weak password, stops the gateway with a message that names the problem and never the password.
 * Neither set is allowed (an admin may already exist); the gateway then warns if none does.
 */
export function firstAdminFromConfig(config: {
  ADMIN_EMAIL?: string | undefined;
  ADMIN_PASSWORD?: string | undefined;
  ADMIN_NAME: string;
}): FirstAdmin | null {
  const { ADMIN_EMAIL: email, ADMIN_PASSWORD: password } = config;
  if (!email && !password) return null;
  if (!email) throw new ConfigError([{ variable: 'ADMIN_EMAIL', problem: 'is required when ADMIN_PASSWORD is set' }]);
  if (!password) {
    throw new ConfigError([
      { variable: 'ADMIN_PASSWORD', problem: 'is required when ADMIN_EMAIL is set (there is no default password)' },
    ]);
  }
  const weakness = checkPasswordStrength(password, { email });
  if (weakness) {
    throw new ConfigError([{ variable: 'ADMIN_PASSWORD', problem: `is too weak: it ${weakness}` }]);
  }
  return { email, password, name: config.ADMIN_NAME };
}

/**
 * Creates the first global admin once identity's schema exists: called after every successful
 * migration (at start once setup is done, and when setup runs while the gateway is up). Idempotent
 * across restarts and replicas: nothing happens once any global admin exists.
 */
export async function ensureFirstAdmin(deps: { store: IdentityStore; admin: FirstAdmin | null; logger: Logger }) {
  const { store, admin, logger } = deps;
  if (await store.hasGlobalAdmin()) return;
  if (!admin) {
    logger.warn('no global admin exists yet: set ADMIN_EMAIL and ADMIN_PASSWORD and restart gateway-api');
    return;
  }
  const passwordHash = await hashPassword(admin.password);
  const result = await store.inTransaction(async (tx) => {
    const outcome = await tx.createFirstAdmin({ email: admin.email, name: admin.name, passwordHash });
    if (outcome === 'created') {
      const created = await tx.findUserByEmail(admin.email);
      await tx.audit({
        actor: processActor('gateway-api'),
        action: 'user.created',
        target: { kind: 'user', id: created?.id ?? null },
        details: { email: admin.email, name: admin.name, global_role: 'global_admin', from: 'ADMIN_EMAIL' },
      });
    }
    return outcome;
  });
  if (result === 'created') logger.info({ account: admin.email }, 'first global admin created');
}
