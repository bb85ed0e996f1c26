import { describe } from 'vitest';
import { itFinds } from '../claimFinds.ts';
import { namedThingsExist } from './namedThingsExist.ts';

const code = {
  'package.json': '{"scripts": {"check:architecture": "node scripts/checkArchitecture.ts"}}',
  'libs/bus/src/createBus.ts': "export function createBus() { serve('audit.entry.record'); app.get('/api/audit'); }",
  'services/settings/src/config.ts': 'NATS_SUBJECT_PREFIX: z.string()',
  'services/settings/README.md': '# settings\n## Audit log\n- **Cache** (kept coherent): ...\n',
  'docs/events.md': '',
};

describe(namedThingsExist.name, () => {
  itFinds(namedThingsExist, 'holds when every named file, script, route, section and name is in the tree', {
    ...code,
    'docs/architecture.md': [
      '`createBus` (`libs/bus`, `createBus.ts`) answers `audit.entry.record` under `NATS_SUBJECT_PREFIX`;',
      '`npm run check:architecture`, `GET /api/audit`, [events](events.md),',
      '(services/settings/README.md, "Audit log"), (services/settings/README.md, "Cache");',
      'shapes are not names: `{ok: true, data}`.',
      '```ts',
      'notInTheCode();',
      '```',
      '## Benchmark',
      '`json_to_recordset`, tried and not kept.',
    ].join('\n'),
  });

  itFinds(
    namedThingsExist,
    'fails on each kind of name that is gone',
    {
      ...code,
      'docs/architecture.md': [
        '`createBusses` in `libs/busses` and `createBusses.ts`, under `NATS_PREFIX`;',
        '`npm run check:layout`, `GET /api/logs`, [events](event.md), (services/settings/README.md, "Retention").',
      ].join('\n'),
    },
    [
      'docs/architecture.md:1: `createBusses` is nowhere in the code',
      'docs/architecture.md:1: no file or folder libs/busses',
      'docs/architecture.md:1: no file or folder createBusses.ts',
      'docs/architecture.md:1: `NATS_PREFIX` is nowhere in the code',
      'docs/architecture.md:2: no npm script check:layout',
      'docs/architecture.md:2: no route GET /api/logs',
      'docs/architecture.md: links to event.md, which does not exist',
      'docs/architecture.md: services/settings/README.md has no section "Retention"',
    ],
  );
});
