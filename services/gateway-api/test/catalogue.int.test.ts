import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AdminStack, startAdminStack } from './identityStack.ts';

/** The catalogue on day one (the reference templates setup adds) and imports of server.json documents. */
let given: AdminStack;
beforeAll(async () => {
  given = await startAdminStack();
});
afterAll(() => given.stack.stop());
const call: AdminStack['call'] = (...args) => given.call(...args);

const weather = {
  $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
  name: 'io.github.user/local-weather',
  description: 'Local MCP server distributed as an npm package.',
  version: '1.0.0',
  packages: [
    {
      registryType: 'npm',
      identifier: '@example/server-weather',
      version: '1.0.0',
      transport: { type: 'stdio' },
      environmentVariables: [{ name: 'API_KEY', isSecret: true, isRequired: true }],
    },
  ],
};

describe('the catalogue', () => {
  it('holds the reference servers once setup has run, pinned and ready to install', async () => {
    const templates = (await call('GET', '/api/mcp/servers')).json().data as Array<Record<string, unknown>>;
    const seeded = templates.filter((t) => String(t.slug).startsWith('server-'));
    expect(seeded.map((t) => t.slug).sort()).toEqual([
      'server-everything',
      'server-filesystem',
      'server-memory',
      'server-sequential-thinking',
    ]);
    for (const template of seeded) {
      expect(template).toMatchObject({ transport: 'stdio', command: 'npx' });
      expect((template.args as string[])[1]).toMatch(/^@modelcontextprotocol\/server-[a-z-]+@\d+\.\d+\.\d+$/);
    }
  });

  it("holds the vendors' remote servers behind OAuth, marked untested here, with their documentation", async () => {
    const templates = (await call('GET', '/api/mcp/servers')).json().data as Array<Record<string, unknown>>;
    const remote = templates.filter((t) => t.untested === true);
    expect(remote.map((t) => t.slug).sort()).toEqual(['atlassian', 'linear', 'notion', 'sentry', 'stripe']);
    for (const template of remote) {
      expect(template).toMatchObject({ transport: 'http', oauth: { token_scope: 'user' }, command: null });
      expect(String(template.url)).toMatch(/^https:\/\//);
      expect(String(template.documentation_url)).toMatch(/^https:\/\//);
    }
    expect(templates.filter((t) => String(t.slug).startsWith('server-')).every((t) => t.untested === false)).toBe(true);
  });

  it('imports a server.json document and says what each installation must provide', async () => {
    const response = await call('POST', '/api/mcp/servers/import', { server: weather });
    expect(response.statusCode).toBe(201);
    expect(response.json().data).toMatchObject({
      template: { slug: 'local-weather', command: 'npx', args: ['-y', '@example/server-weather@1.0.0'], env: {} },
      inputs: [{ kind: 'env', name: 'API_KEY', required: true, secret: true }],
    });
    expect((await call('GET', '/api/mcp/servers/local-weather')).statusCode).toBe(200);
    // The same document again is a conflict on its slug; another slug takes it.
    expect((await call('POST', '/api/mcp/servers/import', { server: weather })).statusCode).toBe(409);
    const renamed = await call('POST', '/api/mcp/servers/import', { server: weather, slug: 'weather-two' });
    expect(renamed.json().data.template.slug).toBe('weather-two');
  });

  it('refuses a document the registry would refuse, naming each bad field', async () => {
    const response = await call('POST', '/api/mcp/servers/import', {
      server: {
        ...weather,
        name: 'weather',
        description: 'x'.repeat(120),
        packages: [{ ...weather.packages[0], version: 'latest' }],
      },
    });
    expect(response.statusCode).toBe(400);
    const paths = (response.json().error.details as Array<{ path: string }>).map((d) => d.path).sort();
    expect(paths).toEqual(['body.server.description', 'body.server.name', 'body.server.packages.0.version']);
    const nothingRunnable = await call('POST', '/api/mcp/servers/import', {
      server: { ...weather, packages: [{ registryType: 'nuget', identifier: 'W', transport: { type: 'stdio' } }] },
    });
    expect(nothingRunnable.json().error).toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'body.server', message: expect.stringContaining('supported are npm, pypi and oci') }],
    });
    expect((await call('POST', '/api/mcp/servers/import', { server: 'not an object' })).statusCode).toBe(400);
  });
});
