import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { K8sObject } from '../scripts/rehearsal/k8sObject.ts';
import { rehearseCompose } from '../scripts/rehearsal/rehearseCompose.ts';
import { rehearseKubernetes } from '../scripts/rehearsal/rehearseKubernetes.ts';

/**
 * The deployment rehearsed on every run (npm run deploy:rehearse does the same): each overlay's secrets
 * made by npm run credentials, rendered as kubectl apply -k renders it, every workload run with exactly
 * what the objects give it, and the day-one path walked to a tool call through the satellites' Service;
 * the compose file likewise.
 * Then manifests broken as a careless edit would break them: the rehearsal must fail naming the object
 * and what it lacks.
 */
const root = resolve(import.meta.dirname, '..');
const lines: string[] = [];
const log = (line: string) => lines.push(line);

type Container = { name: string; env?: Array<{ name: string }>; volumeMounts?: Array<{ name: string }> };
const containerOf = (objects: K8sObject[], kind: string, name: string): Container => {
  const object = objects.find((o) => o.kind === kind && o.metadata?.name === name);
  const container = (object?.spec as { template: { spec: { containers: Container[] } } } | undefined)?.template.spec
    .containers[0];
  if (!container) throw new Error(`${kind} ${name} is not in the rendered overlay`);
  return container;
};

/** The production overlay, changed by `alter`, started until its workloads are ready (no day-one walk). */
const startAltered = (alter: (objects: K8sObject[]) => void) =>
  rehearseKubernetes('production', { root, log, startOnly: true, alter });

describe('the deployment rehearsal', () => {
  for (const overlay of ['production', 'development']) {
    it(`brings the ${overlay} overlay from secrets to a tool call through the satellites' Service`, async () => {
      lines.length = 0;
      await rehearseKubernetes(overlay, { root, log });
      const text = lines.join('\n');
      expect(text).toContain('the database was set up by the rollout, and the first admin signed in');
      expect(text).toMatch(/2026-07-28 tool calls through Service satellite answered/);
      expect(text).toContain('a 2025 session through Service satellite-sessions kept its replica');
      expect(text).toMatch(/restarted without its token and came back as the same satellite/);
      // The one translation, shown: cluster addresses to this machine's.
      expect(text).toMatch(/NATS_URL\s+nats:\/\/orbital-nats:4222\s+-> nats:\/\/127\.0\.0\.1:\d+/);
    }, 600_000);
  }

  it('brings deploy/compose.yaml from secrets to a tool call through its satellite', async () => {
    lines.length = 0;
    await rehearseCompose({ root, log });
    const text = lines.join('\n');
    expect(text).toContain('the satellite registered with the token from .env and is active');
    expect(text).toContain('a tool call through the satellite answered');
  }, 600_000);

  // Manifests broken as a careless edit would break them, and the refusal that must name what broke.
  const broken: Array<{ leftOut: string; alter: (objects: K8sObject[]) => void; refusal: RegExp | string }> = [
    {
      leftOut: 'a variable a process needs',
      alter: (objects) => {
        const settings = containerOf(objects, 'Deployment', 'settings');
        settings.env = settings.env?.filter((variable) => variable.name !== 'IDENTITY_SIGNING_KEY');
      },
      refusal:
        /Deployment orbital\/settings \(container settings\) refused to start:\n\s+- IDENTITY_SIGNING_KEY: is required/,
    },
    {
      leftOut: 'a volume a process writes to',
      alter: (objects) => {
        const satellite = containerOf(objects, 'StatefulSet', 'satellite');
        satellite.volumeMounts = satellite.volumeMounts?.filter((mount) => mount.name !== 'state');
      },
      refusal:
        "StatefulSet orbital/satellite (container satellite): SATELLITE_STATE_DIR (/var/lib/orbital-satellite) is on no volume, and the container's root filesystem is read-only",
    },
  ];
  for (const { leftOut, alter, refusal } of broken) {
    it(`fails naming the object and the variable when a manifest leaves out ${leftOut}`, async () => {
      await expect(startAltered(alter)).rejects.toThrow(refusal);
    }, 300_000);
  }
});
