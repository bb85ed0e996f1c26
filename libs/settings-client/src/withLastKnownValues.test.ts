import { AppError } from '@orbital/errors';
import { describe, expect, it } from 'vitest';
import { createSettingsReader } from './createSettingsReader.ts';
import { withLastKnownValues } from './withLastKnownValues.ts';

describe('withLastKnownValues', () => {
  it('reads through while the service answers and keeps the last value through an outage', async () => {
    const stored: Record<string, string> = { 'global.enable_login': 'true' };
    let down = false;
    const reader = createSettingsReader(
      withLastKnownValues({
        get: async (key) => {
          if (down) throw new AppError('unavailable', 'settings did not answer');
          return stored[key];
        },
        group: async () => stored,
      }),
    );
    expect(await reader.boolean('global.enable_login')).toBe(true);
    stored['global.enable_login'] = 'false';
    expect(await reader.boolean('global.enable_login')).toBe(false);
    down = true;
    expect(await reader.boolean('global.enable_login')).toBe(false);
    // Never read before: the outage is not hidden.
    await expect(reader.boolean('global.send_mail')).rejects.toMatchObject({ code: 'unavailable' });
  });

  it('does not hide errors other than an outage', async () => {
    const reader = createSettingsReader(
      withLastKnownValues({
        get: async () => {
          throw new AppError('internal', 'cannot be decrypted');
        },
        group: async () => ({}),
      }),
    );
    await expect(reader.string('smtp.password')).rejects.toMatchObject({ code: 'internal' });
  });
});
