import { describe, expect, it } from 'vitest';
import { codebaseOf } from '../codebase.ts';
import { relaysTakeTheirSubjects } from './relaysTakeTheirSubjects.ts';

const route = (options: string) => `proxyRoute(bus, settingsSubjects.getGroup, ${options});\n`;
const tree = (extra: string) =>
  codebaseOf({
    'services/gateway-api/src/routes/settingsRoutes.ts': route("{ method: 'GET', url: '/a' }").repeat(40) + extra,
  });

describe(relaysTakeTheirSubjects.name, () => {
  it('holds when every relaying route leaves access and reply to its subject', () => {
    expect(relaysTakeTheirSubjects.check(tree(''))).toEqual([]);
  });

  it('fails on a route that states its own access, directly or through a spread', () => {
    const own = route("{ method: 'GET', url: '/b', access: signedIn }");
    const spread =
      "const extra = { response: view };\nrelay(settingsSubjects.getGroup, 'GET /c', 'c', { ...extra });\n";
    expect(relaysTakeTheirSubjects.check(tree(own + spread))).toEqual([
      expect.stringMatching(/settingsRoutes\.ts:41: .* its own `access`/),
      expect.stringMatching(/settingsRoutes\.ts:43: .* its own `response`/),
    ]);
  });

  it('takes the rows of a subject table, which may state a response but not an access', () => {
    const rows =
      "const serve = subjectTable(bus, ['a']);\n" +
      "serve(subjects.poll, 'GET /d', 'd', { response: answer, handler });\n" +
      "serve(subjects.poll, 'GET /e', 'e', { access: signedIn, handler });\n";
    expect(relaysTakeTheirSubjects.check(tree(rows))).toEqual([
      expect.stringMatching(/settingsRoutes\.ts:43: .* its own `access`/),
    ]);
  });

  it('fails on a route of its own access that calls a subject', () => {
    const own = 'defineRoute({ access: signedIn, handler: () => bus.request(subjects.poll, {}, context) });\n';
    expect(relaysTakeTheirSubjects.check(tree(own))).toEqual([
      expect.stringMatching(/settingsRoutes\.ts:41: a route calls a subject beside an access of its own/),
    ]);
  });

  it('fails when options are not written in place, or when too few routes are found to trust the check', () => {
    const problems = relaysTakeTheirSubjects.check(
      codebaseOf({ 'services/gateway-api/src/routes/a.ts': 'proxyRoute(bus, subject, options);' }),
    );
    expect(problems).toEqual([
      expect.stringContaining('options not written in place'),
      expect.stringContaining('only 1 relaying routes found'),
    ]);
  });
});
