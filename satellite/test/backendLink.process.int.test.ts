import { type ChildProcess, spawn } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createCredentialsStore } from '../src/backend/createCredentialsStore.ts';
import {
  acceptAll,
  type RecordedRequest,
  type ScriptedBackend,
  type ScriptedReply,
  startScriptedBackend,
} from './createScriptedBackend.ts';
import { freePort } from './helpers.ts';
import { storedCredentials, tempStateDir } from './linkFixture.ts';

/** The satellite process in backend mode, against a scripted backend: start-up and SIGTERM. */
const mainFile = fileURLToPath(new URL('../src/main.ts', import.meta.url));
const running: ChildProcess[] = [];
let backend: ScriptedBackend | undefined;

afterEach(async () => {
  for (const child of running.splice(0)) {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }
  await backend?.close();
  backend = undefined;
});

function startSatellite(env: Record<string, string>) {
  const child = spawn(process.execPath, [mainFile], {
    env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'info', SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.push(child);
  const lines: Array<Record<string, unknown>> = [];
  const waiters: Array<() => void> = [];
  let buffer = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    const parts = buffer.split('\n');
    buffer = parts.pop() ?? '';
    for (const part of parts) if (part) lines.push(JSON.parse(part));
    for (const waiter of [...waiters]) waiter();
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const waitForLine = (match: (line: Record<string, unknown>) => boolean) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const check = () => {
        const found = lines.find(match);
        if (found) {
          waiters.splice(waiters.indexOf(check), 1);
          resolve(found);
        }
      };
      waiters.push(check);
      check();
      void exited.then(() => {
        const found = lines.find(match);
        if (found) resolve(found);
        else reject(new Error(`exited without the line; saw: ${lines.map((l) => l.msg).join(' | ')}`));
      });
    });
  return { child, lines, exited, waitForLine };
}

/** A backend that answers the satellite's routes and holds every event batch open. */
function answerLinkRoutes(events: 'hang' | 'accept', first?: (request: RecordedRequest) => ScriptedReply | undefined) {
  backend?.respond((request) => {
    const answer = first?.(request);
    if (answer) return answer;
    if (request.path.endsWith('/heartbeat')) {
      return {
        status: 200,
        body: { success: true, data: { status: 'active', activated: false, next_heartbeat_ms: 30000 } },
      };
    }
    if (request.path.endsWith('/config')) return { status: 200, body: { success: true, data: { servers: [] } } };
    if (request.path.endsWith('/commands')) {
      return {
        status: 200,
        body: { success: true, data: { commands: [], polling: { mode: 'normal', next_poll_ms: 30000 } } },
      };
    }
    if (request.path.endsWith('/events')) return events === 'hang' ? 'hang' : acceptAll(request);
    return { status: 404, body: { success: false, error: { code: 'not_found', message: 'no' } } };
  });
}

/**
 * An unregistered satellite (no stored credentials) started with `env`, which must stop with exit
 * code 1 before asking the backend anything: its fatal log line, as JSON.
 */
async function refusedUnregistered(env: Record<string, string> = {}): Promise<string> {
  backend = await startScriptedBackend();
  const satellite = startSatellite({
    PORT: String(await freePort()),
    BACKEND_URL: backend.url,
    SATELLITE_STATE_DIR: await tempStateDir(),
    ...env,
  });
  const fatal = await satellite.waitForLine((l) => l.msg === 'cannot link to the backend');
  expect(await satellite.exited).toBe(1);
  expect(backend.requests).toHaveLength(0);
  return JSON.stringify(fatal);
}

describe('the satellite process in backend mode', () => {
  it('on SIGTERM against a hanging backend, gives up the flush at EVENT_FLUSH_TIMEOUT_MS and logs the lost events', async () => {
    backend = await startScriptedBackend();
    answerLinkRoutes('hang');
    const stateDir = await tempStateDir();
    await createCredentialsStore({ dir: stateDir }).save(storedCredentials(backend.url));
    const satellite = startSatellite({
      PORT: String(await freePort()),
      BACKEND_URL: backend.url,
      SATELLITE_STATE_DIR: stateDir,
      EVENT_BATCH_INTERVAL_MS: '50',
      EVENT_FLUSH_TIMEOUT_MS: '500',
    });
    await satellite.waitForLine((l) => l.msg === 'ready');
    // config.refreshed is the first event; its batch reaches the backend and never returns.
    await backend.waitForRequests(1);
    while (!backend.requests.some((r) => r.path.endsWith('/events'))) {
      await backend.waitForRequests(backend.requests.length + 1);
    }
    satellite.child.kill('SIGTERM');
    const lost = await satellite.waitForLine((l) => l.msg === 'shutdown: events not delivered are lost');
    expect(lost).toMatchObject({ timed_out: true, flush_timeout_ms: 500 });
    expect(lost.lost).toBeGreaterThanOrEqual(1);
    expect(await satellite.exited).toBe(0);
  });

  it('starts from stored credentials with the backend down and never touches them', async () => {
    backend = await startScriptedBackend();
    const url = backend.url;
    await backend.close();
    const stateDir = await tempStateDir();
    const store = createCredentialsStore({ dir: stateDir });
    await store.save(storedCredentials(url));
    const before = await readFile(store.path, 'utf8');
    const port = await freePort();
    const satellite = startSatellite({ PORT: String(port), BACKEND_URL: url, SATELLITE_STATE_DIR: stateDir });
    await satellite.waitForLine((l) => l.msg === 'heartbeat not delivered');
    const health = await (await fetch(`http://127.0.0.1:${port}/`)).json();
    expect(health).toMatchObject({ mode: 'backend', backend: { registered: true } });
    expect(await readFile(store.path, 'utf8')).toBe(before);
    satellite.child.kill('SIGTERM');
    expect(await satellite.exited).toBe(0);
    expect(await readFile(store.path, 'utf8')).toBe(before);
  });

  it('refuses to run unregistered without a token, saying what to set', async () => {
    expect(await refusedUnregistered()).toContain(
      'no registration token (SATELLITE_REGISTRATION_TOKEN or SATELLITE_REGISTRATION_TOKEN_FILE)',
    );
  });

  it('registers with the token in SATELLITE_REGISTRATION_TOKEN_FILE (a mounted Secret) and keeps the credentials', async () => {
    backend = await startScriptedBackend();
    const stateDir = dirname(await tempStateDir());
    const tokenFile = join(stateDir, 'registration-token');
    await writeFile(tokenFile, 'token-from-the-secret\n');
    answerLinkRoutes('accept', (request) => {
      if (request.path !== '/api/satellites/register') return undefined;
      return {
        status: 201,
        body: {
          success: true,
          data: {
            satellite_id: '7f3c2a0e-5b1d-4c8e-9a6f-2d4b8e1c0a55',
            api_key: 'sk_1.secret',
            status: 'inactive',
            satellite_type: 'global',
            team_id: null,
          },
        },
      };
    });
    const satellite = startSatellite({
      PORT: String(await freePort()),
      BACKEND_URL: backend.url,
      SATELLITE_STATE_DIR: join(stateDir, 'state'),
      SATELLITE_REGISTRATION_TOKEN_FILE: tokenFile,
    });
    await satellite.waitForLine((l) => l.msg === 'registered with the backend');
    const registration = backend.requests.find((r) => r.path === '/api/satellites/register');
    expect(registration?.authorization).toBe('Bearer service_satellite_token-from-the-secret');
    const saved = await createCredentialsStore({ dir: join(stateDir, 'state') }).load();
    expect(saved?.satellite_id).toBe('7f3c2a0e-5b1d-4c8e-9a6f-2d4b8e1c0a55');
    satellite.child.kill('SIGTERM');
    expect(await satellite.exited).toBe(0);
  });

  it('a token file that is not there counts as no token', async () => {
    const fatal = await refusedUnregistered({
      SATELLITE_REGISTRATION_TOKEN_FILE: '/nonexistent/orbital/registration/satellite-0',
    });
    expect(fatal).toContain('SATELLITE_REGISTRATION_TOKEN_FILE');
  });
});
