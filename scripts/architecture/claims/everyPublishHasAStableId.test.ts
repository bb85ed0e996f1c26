import { describe, expect, it } from 'vitest';
import { codebaseOf } from '../codebase.ts';
import { everyPublishHasAStableId } from './everyPublishHasAStableId.ts';

describe(everyPublishHasAStableId.name, () => {
  it('holds when every publish names its msgId', () => {
    const codebase = codebaseOf({
      'services/settings/src/a.ts': 'await publishEvent(bus, settingsChanged, payload, { msgId: id });',
      'libs/bus/src/parkMessage.ts': 'await publishData(bus, subject, data, { headers, msgId });',
      'services/settings/test/a.int.test.ts': 'await publishEvent(bus, settingsChanged, payload);',
    });
    expect(everyPublishHasAStableId.check(codebase)).toEqual([]);
  });

  it('fails on a publish without one, or with options it cannot see', () => {
    const codebase = codebaseOf({
      'services/settings/src/a.ts':
        'await publishEvent(bus, settingsChanged, payload);\nawait publishEventParts(bus, def, parts, options);\n',
    });
    expect(everyPublishHasAStableId.check(codebase)).toEqual([
      'services/settings/src/a.ts:1: publishEvent without a msgId, so a retry is stored twice',
      'services/settings/src/a.ts:2: publishEventParts without a msgId, so a retry is stored twice',
    ]);
  });
});
