import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineSubject, subjectToken } from './subject.ts';

describe('subjects', () => {
  it('rejects subject tokens that would address other subjects', () => {
    for (const bad of ['a.b', '*', '>', 'a b', '', 'x\ty']) expect(subjectToken.safeParse(bad).success).toBe(false);
    expect(subjectToken.safeParse('sat_123-abc').success).toBe(true);
  });

  it('refuses a subject outside its service namespace', () => {
    expect(() =>
      defineSubject({
        subject: 'registry.x.get',
        service: 'settings',
        description: '',
        access: {},
        request: z.object({}),
        reply: z.object({}),
      }),
    ).toThrow(/must start with its service name/);
  });
});
