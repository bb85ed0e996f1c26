import { describe, expect } from 'vitest';
import { itFinds } from '../claimFinds.ts';
import { publishesAreChecked } from './publishesAreChecked.ts';

const document = 'one announcement ... (`evt.installation.request_logged`)';

describe(publishesAreChecked.name, () => {
  itFinds(
    publishesAreChecked,
    'holds when publishing goes through libs/bus and unchecked bytes only where the document says why',
    {
      'docs/architecture.md': document,
      'libs/bus/src/publishEvent.ts': 'connection.publish(subject, data); publishData(bus, def, bytes);',
      'services/installations/src/consumers/storeEventRuns.ts': 'await publishData(bus, requestLogged, bytes);',
      'services/settings/src/a.ts': 'await publishEvent(bus, settingsChanged, payload);',
    },
  );

  itFinds(
    publishesAreChecked,
    'fails on unchecked bytes or a publish around libs/bus, and on an exception the document no longer names',
    {
      'docs/architecture.md': '',
      'services/settings/src/a.ts': 'await publishData(bus, def, bytes);\nnc.publish(subject, bytes);\n',
    },
    [
      expect.stringContaining('storeEventRuns.ts publishes evt.installation.request_logged unchecked'),
      'services/settings/src/a.ts:1: publishes bytes no event definition checked (publishData)',
      'services/settings/src/a.ts:2: publishes to NATS around libs/bus',
    ],
  );
});
