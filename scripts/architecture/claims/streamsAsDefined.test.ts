import { describe, expect, it } from 'vitest';
import { codebaseOf } from '../codebase.ts';
import { streamsAsDefined } from './streamsAsDefined.ts';

const definitions = [
  'const minute = 60_000;',
  'const day = 24 * 60 * minute;',
  'const mebibyte = 1024 * 1024;',
  'const gibibyte = 1024 * mebibyte;',
  'export const satelliteEventsStream: StreamDefinition = {',
  "  name: 'EVENTS_SATELLITE', subjects: ['evt.satellite.>'], owner: 'satellite-registry', description: 'x',",
  "  maxAgeMs: 7 * day, maxBytes: 2 * gibibyte, maxMessageBytes: mebibyte, duplicateWindowMs: 10 * minute, discard: 'new',",
  '};',
  'export const auditEventsStream: StreamDefinition = {',
  "  name: 'EVENTS_AUDIT', subjects: ['evt.audit.>'], owner: 'settings', description: 'x',",
  "  maxAgeMs: day, maxBytes: 256 * mebibyte, maxMessageBytes: mebibyte, duplicateWindowMs: 10 * minute, discard: 'old',",
  '};',
  'export const eventStreams = [satelliteEventsStream, auditEventsStream];',
].join('\n');

const table = (rows: string[]) =>
  [
    '| Stream | Subjects | Owner | Max age | Max bytes | Duplicate window | When full |',
    '| ------ | -------- | ----- | ------- | --------- | ---------------- | --------- |',
    ...rows,
    '',
  ].join('\n');

const tree = (rows: string[]) =>
  codebaseOf({ 'libs/contracts/src/events/eventStreams.ts': definitions, 'docs/events.md': table(rows) });

describe(streamsAsDefined.name, () => {
  it('holds when the table gives every stream as defined', () => {
    const codebase = tree([
      '| EVENTS_SATELLITE | `evt.satellite.>` | satellite-registry | 7 days | 2 GiB | 10 min | refuse (satellites get 503) |',
      '| EVENTS_AUDIT | `evt.audit.>` | settings | 1 day | 256 MiB | 10 min | drop oldest |',
    ]);
    expect(streamsAsDefined.check(codebase)).toEqual([]);
  });

  it('fails on a limit written otherwise, a stream left out and one that is not defined', () => {
    const codebase = tree([
      '| EVENTS_SATELLITE | `evt.satellite.>` | installations | 1 day | 1 GiB | 2 min | drop oldest |',
      '| EVENTS_JOBS | `evt.jobs.>` | jobs | 1 day | 1 GiB | 2 min | refuse |',
    ]);
    expect(streamsAsDefined.check(codebase)).toEqual([
      "docs/events.md: EVENTS_SATELLITE's owner is written installations, defined satellite-registry",
      "docs/events.md: EVENTS_SATELLITE's max age is written 1 day, defined 604800000 ms",
      "docs/events.md: EVENTS_SATELLITE's max bytes is written 1 GiB, defined 2147483648 bytes",
      "docs/events.md: EVENTS_SATELLITE's duplicate window is written 2 min, defined 600000 ms",
      "docs/events.md: EVENTS_SATELLITE's when full is written drop oldest, defined discard new",
      'docs/events.md: the streams table leaves out EVENTS_AUDIT',
      'docs/events.md: the streams table names EVENTS_JOBS, which is not defined',
    ]);
  });
});
