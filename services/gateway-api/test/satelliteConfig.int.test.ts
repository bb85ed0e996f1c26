import { settingsSubjects } from '@orbital/contracts';
import { twoTeamsInstallations } from '@orbital/satellite-registry/testing';
import { stackForFile } from '@orbital/testing/stackForFile';
import { beforeAll, describe, expect, it } from 'vitest';
import { call, globalAdmin, registerSatellite, startSatelliteStack, teamMember } from './satelliteHarness.ts';

const stack = stackForFile(() => startSatelliteStack({ settings: true }));
beforeAll(() => {
  stack.installations.push(...twoTeamsInstallations());
});

async function configOf(satellite: { id: string; apiKey: string }) {
  const response = await call(stack, satellite, 'GET', `${satellite.id}/config`);
  expect(response.statusCode).toBe(200);
  return response.json().data as {
    servers: Array<Record<string, unknown>>;
    settings?: { enable_swagger_docs: boolean; discovery?: Record<string, unknown> };
  };
}

const setSwaggerDocs = (value: string, identity = globalAdmin) =>
  stack.adminBus.request(
    settingsSubjects.updateSetting,
    { key: 'global.enable_swagger_docs', changes: { value } },
    { identity },
  );

/** The discovery settings' defaults: no endpoint, the time limit the definition gives. */
const noModels = { model_timeout_ms: 300 };

const setSetting = (key: string, value: string) =>
  stack.adminBus.request(settingsSubjects.updateSetting, { key, changes: { value } }, { identity: globalAdmin });

// How the registry scopes and merges a satellite's configuration is tested in the registry's own folder;
// here, that the route relays it whole to the satellite, to no other, with the settings service's values.
describe('GET /api/satellites/:id/config', () => {
  it("relays the team satellite's merged configuration whole, secrets included, as the registry built it", async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'team-a' }, 'cfg-a');
    const { servers } = await configOf(sat);
    expect(stack.installationRequests.at(-1)).toEqual({ team_ids: ['team-a'] });
    expect(servers.map((s) => s.process_id)).toEqual(['filesystem-alpha-a-files']);
    expect(servers[0]).toMatchObject({
      args: ['-y', '@mcp/fs', '/srv/a'],
      env: { MODE: 'rw', API_TOKEN: 'team-a-secret' },
    });
  });

  it("refuses another satellite's configuration", async () => {
    const a = await registerSatellite(stack, { scope: 'team', team_id: 'team-a' }, 'cfg-own');
    const b = await registerSatellite(stack, { scope: 'team', team_id: 'team-b' }, 'cfg-other');
    const response = await call(stack, a, 'GET', `${b.id}/config`);
    expect(response.statusCode).toBe(403);
  });
});

describe('global settings in the configuration', () => {
  it('carries global.enable_swagger_docs as the settings service holds it, changed by a global admin', async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'team-a' }, 'cfg-settings');
    // The definition's default, 'true', before anyone changed it.
    expect((await configOf(sat)).settings).toEqual({ enable_swagger_docs: true, discovery: noModels });

    await setSwaggerDocs('false');
    const off = await configOf(sat);
    expect(off.settings).toEqual({ enable_swagger_docs: false, discovery: noModels });
    expect(off.servers.map((s) => s.installation_id)).toEqual(['a-files']);

    await setSwaggerDocs('true');
    expect((await configOf(sat)).settings).toEqual({ enable_swagger_docs: true, discovery: noModels });
  });

  it('keeps the setting when someone who is not a global admin tries to change it', async () => {
    const sat = await registerSatellite(stack, { scope: 'global' }, 'cfg-settings-refused');
    await setSwaggerDocs('false');
    await expect(setSwaggerDocs('true', teamMember('team-a', 'team_admin'))).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect((await configOf(sat)).settings).toEqual({ enable_swagger_docs: false, discovery: noModels });
    await setSwaggerDocs('true');
  });

  it('sends the servers without settings when the stored value is not a boolean, so satellites keep theirs', async () => {
    const sat = await registerSatellite(stack, { scope: 'team', team_id: 'team-a' }, 'cfg-settings-bad');
    // The settings service refuses such a value now; one stored before it did (or by hand) still exists.
    await expect(setSwaggerDocs('sometimes')).rejects.toMatchObject({ code: 'validation_failed' });
    await stack.db.query(`UPDATE settings.settings SET value = 'sometimes' WHERE key = 'global.enable_swagger_docs'`);
    await stack.settings?.operations.reload();
    try {
      const reply = await configOf(sat);
      expect(reply).not.toHaveProperty('settings');
      expect(reply.servers.map((s) => s.installation_id)).toEqual(['a-files']);
    } finally {
      await setSwaggerDocs('true');
    }
  });

  it("carries discovery's model endpoints, their keys to global satellites only", async () => {
    const global = await registerSatellite(stack, { scope: 'global' }, 'cfg-discovery-global');
    const team = await registerSatellite(stack, { scope: 'team', team_id: 'team-a' }, 'cfg-discovery-team');
    await setSetting('discovery.embeddings_url', 'http://ollama:11434/v1');
    await setSetting('discovery.embeddings_model', 'nomic-embed-text');
    await setSetting('discovery.embeddings_api_key', 'emb-key-for-globals');
    await setSetting('discovery.model_timeout_ms', '250');
    try {
      expect((await configOf(global)).settings?.discovery).toEqual({
        embeddings: { url: 'http://ollama:11434/v1', model: 'nomic-embed-text', api_key: 'emb-key-for-globals' },
        model_timeout_ms: 250,
      });
      const teamReply = await configOf(team);
      expect(teamReply.settings?.discovery).toEqual({
        embeddings: { url: 'http://ollama:11434/v1', model: 'nomic-embed-text' },
        model_timeout_ms: 250,
      });
      expect(JSON.stringify(teamReply)).not.toContain('emb-key-for-globals');
    } finally {
      await setSetting('discovery.embeddings_url', '');
      await setSetting('discovery.embeddings_model', '');
      await setSetting('discovery.embeddings_api_key', '');
      await setSetting('discovery.model_timeout_ms', '300');
    }
  });
});
