import { describe } from 'vitest';
import { itFinds } from '../claimFinds.ts';
import { everyPublishHasAStableId } from './everyPublishHasAStableId.ts';

describe(everyPublishHasAStableId.name, () => {
  itFinds(everyPublishHasAStableId, 'holds when every publish names its msgId', {
    'services/settings/src/a.ts': 'await publishEvent(bus, settingsChanged, payload, { msgId: id });',
    'libs/bus/src/parkMessage.ts': 'await publishData(bus, subject, data, { headers, msgId });',
    'services/settings/test/a.int.test.ts': 'await publishEvent(bus, settingsChanged, payload);',
  });

  itFinds(
    everyPublishHasAStableId,
    'fails on a publish without one, or with options it cannot see',
    {
      'services/settings/src/a.ts':
        'await publishEvent(bus, settingsChanged, payload);\nawait publishEventParts(bus, def, parts, options);\n',
    },
    [
      'services/settings/src/a.ts:1: publishEvent without a msgId, so a retry is stored twice',
      'services/settings/src/a.ts:2: publishEventParts without a msgId, so a retry is stored twice',
    ],
  );
});
