import { type Bus, createBus } from '@orbital/bus';
import { loadConfig } from '@orbital/config';
import { type CallerIdentity, processNames, serviceIdentity, subjectCatalogue } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { createJobsApp, type JobsApp } from '@orbital/jobs/app';
import { configSchema as jobsConfigSchema } from '@orbital/jobs/config';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminCredentials, bearer, type IdentityStack, login, startIdentityStack } from './identityStack.ts';
import {
  type Outcome,
  type SubjectCaller,
  type SubjectContext,
  subjectCallers,
  subjectMatrix,
} from './subjectAccessMatrix.ts';

let stack: IdentityStack;
let client: Bus;
let jobs: JobsApp;
let ctx: SubjectContext;
const identities = new Map<SubjectCaller, CallerIdentity>();

const user = (
  id: string,
  globalRole: 'global_admin' | 'global_user',
  memberships: Array<{ team_id: string; role: 'team_admin' | 'team_user' }>,
): CallerIdentity => ({ kind: 'user', user_id: id, global_role: globalRole, memberships });

beforeAll(async () => {
  stack = await startIdentityStack();
  const gateway = stack.gateways[0];
  if (!gateway) throw new Error('no gateway');
  const admin = await login(gateway.app, adminCredentials.email, adminCredentials.password);
  const post = async (url: string, payload: unknown, headers: Record<string, string> = bearer(admin)) => {
    const response = await gateway.app.inject({ method: 'POST', url, headers, payload: payload as object });
    if (response.statusCode >= 300) throw new Error(`${url}: ${response.statusCode} ${response.body}`);
    return response.json().data;
  };
  const teamA = (await post('/api/teams', { slug: 'subjects-a', name: 'A' })).id as string;
  const teamB = (await post('/api/teams', { slug: 'subjects-b', name: 'B' })).id as string;
  const register = async (name: string, tokens = `/api/teams/${teamA}/satellites/registration-tokens`) => {
    const token = await post(tokens, { expires_in_minutes: 5 });
    const registered = await post('/api/satellites/register', { name }, { authorization: token.authorization });
    return registered.satellite_id as string;
  };
  ctx = {
    teamA,
    teamB,
    satelliteId: await register('matrix'),
    doomedSatelliteId: await register('doomed'),
    globalSatelliteId: await register('everywhere', '/api/satellites/registration-tokens'),
  };

  identities.set('anonymous', { kind: 'anonymous' });
  identities.set('global_admin', user('00000000-0000-4000-8000-00000000000a', 'global_admin', []));
  identities.set(
    'team_admin',
    user('00000000-0000-4000-8000-00000000000b', 'global_user', [{ team_id: teamA, role: 'team_admin' }]),
  );
  identities.set(
    'team_user',
    user('00000000-0000-4000-8000-00000000000c', 'global_user', [{ team_id: teamA, role: 'team_user' }]),
  );
  identities.set(
    'other_team',
    user('00000000-0000-4000-8000-00000000000d', 'global_user', [{ team_id: teamB, role: 'team_admin' }]),
  );
  identities.set('no_team', user('00000000-0000-4000-8000-00000000000e', 'global_user', []));
  const satellite = (id: string): CallerIdentity => ({
    kind: 'satellite',
    satellite_id: id,
    satellite_type: 'team',
    team_id: teamA,
  });
  identities.set('satellite', satellite(ctx.satelliteId));
  identities.set('other_satellite', satellite(ctx.doomedSatelliteId));
  for (const name of processNames) identities.set(name, serviceIdentity(name));

  client = await createBus({
    ...stack.env.busOptions('subject-matrix'),
    logger: stack.logger,
    requestTimeoutMs: 10_000,
  });
  // jobs answers jobs.status.get; its own schedules run as in production, idempotent and harmless here.
  jobs = await createJobsApp({
    bus: client,
    logger: stack.logger,
    config: loadConfig(jobsConfigSchema, stack.env.env),
  });
  await client.flush();
});

afterAll(async () => {
  await jobs?.stopWorkers();
  await jobs?.close();
  await client?.drain();
  await stack?.stop();
});

/** What a caller got: `ok`, `refused` (with the code), or `hidden`; any other failure is the handler's own answer. */
async function outcomeOf(row: (typeof subjectMatrix)[number], caller: SubjectCaller): Promise<string> {
  const identity = identities.get(caller);
  if (!identity) throw new Error(`no identity for ${caller}`);
  try {
    await client.request(row.def, row.request(ctx) as never, { identity });
    return 'ok';
  } catch (error) {
    if (!(error instanceof AppError)) throw error;
    if (error.code === 'unauthenticated' || error.code === 'forbidden') return `refused:${error.code}`;
    if (error.code === 'not_found') return 'not_found';
    if (error.code === 'internal') throw error;
    return `answered:${error.code}`;
  }
}

function matches(expected: Outcome, got: string, caller: SubjectCaller): boolean {
  if (expected === 'refused') return got === (caller === 'anonymous' ? 'refused:unauthenticated' : 'refused:forbidden');
  if (expected === 'hidden') return got === 'not_found';
  return !got.startsWith('refused');
}

describe('the subject access matrix', () => {
  it('has a row for every subject of the catalogue', () => {
    const covered = new Set(subjectMatrix.map((row) => row.def.subject));
    expect(subjectCatalogue.map((def) => def.subject).filter((name) => !covered.has(name))).toEqual([]);
  });

  const publicRows = subjectMatrix.filter((row) => row.expect === 'public');
  it.each(publicRows.map((row) => ({ row, name: row.def.subject })))(
    '$name answers every caller alike',
    async ({ row }) => {
      const outcomes = new Set<string>();
      for (const caller of subjectCallers) outcomes.add(await outcomeOf(row, caller));
      expect([...outcomes]).toHaveLength(1);
    },
  );

  const cases = subjectMatrix
    .filter((row) => row.expect !== 'public')
    .flatMap((row) =>
      subjectCallers.map((caller) => ({
        row,
        caller,
        name: `${row.def.subject}${row.variant ? ` (${row.variant})` : ''}`,
        expected: (row.expect as Record<SubjectCaller, Outcome>)[caller] ?? 'refused',
      })),
    );
  it.each(cases)('$name as $caller is $expected', async ({ row, caller, expected }) => {
    const got = await outcomeOf(row, caller);
    expect({ caller, got, matches: matches(expected, got, caller) }).toEqual({ caller, got, matches: true });
  });
});
