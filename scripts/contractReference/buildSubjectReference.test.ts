import { readFileSync } from 'node:fs';
import { subjectCatalogue } from '@orbital/contracts';
import { describe, expect, it } from 'vitest';
import { buildSubjectReference } from './buildSubjectReference.ts';

const reference = buildSubjectReference();

describe('subject reference', () => {
  it('is checked in as generated: run `npm run docs:contracts` after changing a contract', () => {
    // The one file read of this unit test: the generated reference must match the catalogue.
    const checkedIn = readFileSync(new URL('../../docs/subjects.md', import.meta.url), 'utf8');
    expect(checkedIn).toBe(reference);
  });

  it('has a section per subject of the catalogue, with who answers it and who may call it', () => {
    const headings = reference.split('\n').filter((line) => line.startsWith('### '));
    expect(headings.toSorted()).toEqual(subjectCatalogue.map((def) => `### \`${def.subject}\``).toSorted());
    const poll = reference.slice(reference.indexOf('### `registry.command.poll`'));
    const section = poll.slice(0, poll.indexOf('\n### '));
    expect(section).toContain('Answered by: `satellite-registry` (queue group `registry`)');
    expect(section).toContain('a satellite on its own id, at `satellite_id`');
    expect(section).toContain('users with `satellites.manage_global`');
  });

  it('shows request and reply types with optional fields and enums', () => {
    const result = reference.slice(reference.indexOf('### `registry.command.result`'));
    const section = result.slice(0, result.indexOf('\n### '));
    expect(section).toMatch(/status: 'acknowledged' \| 'executing' \| 'completed' \| 'failed';/);
    expect(section).toMatch(/error_message\?: /);
  });
});
