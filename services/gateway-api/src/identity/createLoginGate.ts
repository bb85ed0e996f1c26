import { AppError } from '@orbital/errors';
import type { SettingsReader } from '@orbital/settings-client';

export type LoginGate = {
  /** Whether new sessions and tokens may be handed out now (`global.enable_login`). */
  isEnabled(): Promise<boolean>;
  /** Throws `login_disabled` (403) when they may not. */
  assertEnabled(): Promise<void>;
};

export const loginDisabledMessage =
  'Login is turned off on this platform; a global admin can turn it back on (Settings, "Enable login")';

/**
 * The platform's login switch, `global.enable_login`: every way of obtaining a new session or token
 * (password login, registration, invitation acceptance, OAuth consent and code exchange, personal access
 * tokens, single sign-on) asks it first. Read from the settings service on every call, so a change made
 * through any replica holds at once on every replica; through a settings outage the last value read
 * stands. Sessions and tokens already handed out are not affected: a global admin who turned it off can
 * turn it back on.
 */
export function createLoginGate(settings: SettingsReader): LoginGate {
  const isEnabled = async () => (await settings.boolean('global.enable_login', true)) ?? true;
  return {
    isEnabled,
    async assertEnabled() {
      if (!(await isEnabled())) throw new AppError('login_disabled', loginDisabledMessage);
    },
  };
}
