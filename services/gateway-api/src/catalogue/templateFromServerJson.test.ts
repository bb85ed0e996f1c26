import { describe, expect, it } from 'vitest';
import { serverJsonDocument, templateFromServerJson } from './templateFromServerJson.ts';

const base = { name: 'io.github.user/local-weather', description: 'Weather for the agent', version: '1.0.0' };

function convert(document: unknown, slug?: string) {
  return templateFromServerJson(serverJsonDocument.parse(document), slug ? { slug } : {});
}

describe('templateFromServerJson', () => {
  it('runs an npm package with npx at its exact version, fixed values in the template, the rest as inputs', () => {
    const result = convert({
      ...base,
      title: 'Local weather',
      packages: [
        {
          registryType: 'npm',
          identifier: '@example/server-weather',
          version: '1.0.0',
          transport: { type: 'stdio' },
          packageArguments: [
            { type: 'positional', valueHint: 'config_path', description: 'Where the configuration is' },
            { type: 'named', name: '--port', value: '8080' },
            { type: 'named', name: '--verbose' },
          ],
          environmentVariables: [
            { name: 'API_KEY', isSecret: true, isRequired: true, description: 'The weather API key' },
            { name: 'UNITS', default: 'metric' },
          ],
        },
      ],
    });
    expect(result).toEqual({
      template: {
        slug: 'local-weather',
        name: 'Local weather',
        description: 'Weather for the agent',
        transport: 'stdio',
        command: 'npx',
        args: ['-y', '@example/server-weather@1.0.0', '--port=8080'],
        env: { UNITS: 'metric' },
      },
      inputs: [
        {
          kind: 'argument',
          name: 'config_path',
          description: 'Where the configuration is',
          required: true,
          secret: false,
        },
        { kind: 'env', name: 'API_KEY', description: 'The weather API key', required: true, secret: true },
      ],
    });
  });

  it('runs PyPI packages with uvx and containers with docker, passing their variables by name', () => {
    const pypi = convert({
      ...base,
      packages: [{ registryType: 'pypi', identifier: 'weather-mcp', version: '0.3.1', transport: { type: 'stdio' } }],
    });
    expect(pypi).toMatchObject({ template: { command: 'uvx', args: ['weather-mcp==0.3.1'] } });
    const oci = convert({
      ...base,
      packages: [
        {
          registryType: 'oci',
          identifier: 'docker.io/example/weather',
          version: '2.0.0',
          transport: { type: 'stdio' },
          environmentVariables: [{ name: 'TOKEN', isSecret: true }],
        },
      ],
    });
    expect(oci).toMatchObject({
      template: { command: 'docker', args: ['run', '-i', '--rm', '-e', 'TOKEN', 'docker.io/example/weather:2.0.0'] },
    });
  });

  it('takes a remote when no package runs over stdio, filling URL variables and listing secret headers', () => {
    const result = convert({
      ...base,
      packages: [{ registryType: 'nuget', identifier: 'Weather', version: '1.0.0', transport: { type: 'stdio' } }],
      remotes: [
        {
          type: 'streamable-http',
          url: 'https://{host}/mcp',
          variables: { host: { default: 'api.example.com' } },
          headers: [{ name: 'Authorization', isSecret: true, isRequired: true }],
        },
      ],
    });
    expect(result).toEqual({
      template: {
        slug: 'local-weather',
        name: 'io.github.user/local-weather',
        description: 'Weather for the agent',
        transport: 'http',
        url: 'https://api.example.com/mcp',
        headers: {},
      },
      inputs: [{ kind: 'header', name: 'Authorization', description: null, required: true, secret: true }],
    });
  });

  it('names what cannot be imported', () => {
    const nothing = convert({
      ...base,
      packages: [{ registryType: 'nuget', identifier: 'Weather', version: '1.0.0', transport: { type: 'stdio' } }],
    });
    expect(nothing).toEqual({
      problems: [{ path: 'server', message: expect.stringContaining('nuget (stdio)') }],
    });
    expect(convert({ ...base, remotes: [{ type: 'sse', url: 'https://{tenant}.example.com/sse' }] })).toEqual({
      problems: [{ path: 'server.remotes.0.url', message: 'needs a value for tenant' }],
    });
    expect(
      convert({ ...base, name: 'io.example/...', remotes: [{ type: 'sse', url: 'https://a.example/sse' }] }),
    ).toEqual({
      problems: [{ path: 'slug', message: expect.stringContaining('give one') }],
    });
  });

  it('refuses documents the registry refuses', () => {
    const issues = (document: unknown) =>
      serverJsonDocument.safeParse(document).error?.issues.map((i) => `${i.path.join('.')}: ${i.message}`) ?? [];
    expect(issues({ ...base, name: 'weather' })).toEqual([expect.stringMatching(/^name: must be a reverse-DNS name/)]);
    expect(issues({ ...base, description: 'x'.repeat(101) })).toEqual([expect.stringMatching(/^description: /)]);
    expect(
      issues({
        ...base,
        packages: [{ registryType: 'npm', identifier: 'a', version: 'latest', transport: { type: 'stdio' } }],
      }),
    ).toEqual(['packages.0.version: must be an exact version, not latest or a range']);
    expect(
      issues({
        ...base,
        packages: [{ registryType: 'npm', identifier: 'a', version: '^1.2.0', transport: { type: 'stdio' } }],
      }),
    ).toHaveLength(1);
    expect(issues({ ...base, version: undefined })).toEqual([expect.stringMatching(/^version: /)]);
  });
});
