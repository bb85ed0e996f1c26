import { execFile } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { registrySubjects } from '@orbital/contracts';
import { errorCodeList } from '@orbital/errors';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { type IdentityStack, startIdentityStack } from './identityStack.ts';

/**
 * The OpenAPI document of the whole gateway, as /documentation/json serves it, checked by Redocly's
 * recommended rules (the CLI is a pinned devDependency and runs offline) and by what a client generator
 * needs: an operation id for every operation, its credentials, its error answers, a server.
 */
const root = resolve(import.meta.dirname, '../../..');
const run = promisify(execFile);

type JsonSchema = { properties?: Record<string, JsonSchema>; enum?: unknown[] };

type Operation = {
  operationId?: string;
  security?: unknown[];
  responses: Record<string, unknown>;
};

let stack: IdentityStack;
let document: {
  servers?: Array<{ url: string }>;
  components?: { securitySchemes?: Record<string, unknown> };
  paths: Record<string, Record<string, Operation>>;
};

beforeAll(async () => {
  // Published somewhere other than the default, so the document's server must come from the configuration.
  stack = await startIdentityStack({ issuerUrl: new URL('https://orbital.example.test:8443') });
  const gateway = stack.app;
  document = (await gateway.inject({ url: '/documentation/json' })).json();
});
afterAll(() => stack.stop());

const operations = () =>
  Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
  );

describe('the OpenAPI document', () => {
  it("passes Redocly's recommended rules without an error", async () => {
    const dir = join(root, 'test-results');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'openapi.json');
    writeFileSync(file, JSON.stringify(document, null, 2));
    const result = await run(
      join(root, 'node_modules/.bin/redocly'),
      ['lint', file, '--extends', 'recommended', '--format', 'stylish'],
      {
        cwd: root,
        env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
      },
    ).then(
      (ok) => ({ code: 0, output: ok.stdout + ok.stderr }),
      (failed: { code: number; stdout: string; stderr: string }) => ({
        code: failed.code,
        output: failed.stdout + failed.stderr,
      }),
    );
    expect(result.output.match(/^\s+\d+:\d+\s+error\s.*$/gm) ?? [], `the document is ${file}`).toEqual([]);
    expect(result.code).toBe(0);
  }, 60000);

  it('gives every operation a unique id, its credentials and its error answers', () => {
    const all = operations();
    expect(all.length).toBeGreaterThan(60);
    const ids = all.map(({ operation }) => operation.operationId);
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][A-Za-z0-9]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    for (const { operation } of all) {
      expect(Array.isArray(operation.security)).toBe(true);
      expect(operation.responses).toHaveProperty('503');
    }
    expect(document.components?.securitySchemes).toHaveProperty('sessionCookie');
    // "Try it out" calls the gateway where it is published, not a fixed localhost:3000.
    expect(document.servers?.[0]?.url).toBe('https://orbital.example.test:8443');

    const find = (path: string, method: string) => document.paths[path]?.[method];
    expect(find('/api/teams/{teamId}/members', 'get')).toMatchObject({
      operationId: 'getTeamsByTeamIdMembers',
      security: [{ sessionCookie: [] }, { bearerAuth: [] }],
    });
    expect(Object.keys(find('/api/teams/{teamId}/members', 'get')?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '401', '403', '404', '500', '503']),
    );
    expect(find('/api/satellites/{id}/heartbeat', 'post')?.security).toEqual([{ satelliteKey: [] }]);
    // A satellite's read routes take a global admin's session too.
    expect(find('/api/satellites/{id}/commands', 'get')?.security).toEqual([
      { satelliteKey: [] },
      { sessionCookie: [] },
      { bearerAuth: [] },
    ]);
    expect(find('/api/auth/login', 'post')?.security).toEqual([]);
  });

  it('lets an error answer carry every code of the closed registry, as routes do (403 login_disabled)', () => {
    const forbidden = document.paths['/api/teams/{teamId}/members']?.get?.responses['403'] as
      | { content?: { 'application/json'?: { schema: JsonSchema } } }
      | undefined;
    const code = forbidden?.content?.['application/json']?.schema.properties?.error?.properties?.code;
    expect(code?.enum).toEqual(errorCodeList);
    expect(code?.enum).toContain('login_disabled');
  });

  it("describes a relayed subject's answer with the subject's own reply schema", () => {
    const dataOf = (path: string, method: string) =>
      (
        document.paths[path]?.[method]?.responses['200'] as
          | { content: { 'application/json': { schema: JsonSchema } } }
          | undefined
      )?.content['application/json'].schema.properties?.data;
    const expected = z.toJSONSchema(registrySubjects.reportResult.reply, { target: 'openapi-3.0', io: 'input' });
    const { $schema: _ignored, ...reply } = expected as JsonSchema & { $schema?: string };
    expect(dataOf('/api/satellites/{id}/command-results', 'post')).toEqual(reply);
    expect(dataOf('/api/satellites/{id}/command-results', 'post')?.properties?.status?.enum).toEqual([
      'acknowledged',
      'executing',
      'completed',
      'failed',
    ]);
  });
});
