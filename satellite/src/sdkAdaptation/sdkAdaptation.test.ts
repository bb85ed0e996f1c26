import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { SUPPORTED_PROTOCOL_VERSIONS } from '@modelcontextprotocol/server';
import { describe, expect, it } from 'vitest';
import {
  adaptedSdkVersion,
  legacyProtocolVersions,
  modernProtocolVersion,
  upstreamProtocolVersions,
} from './protocolVersions.ts';

const require = createRequire(import.meta.url);

/** The installed release of an SDK package, read from its package.json next to its entry point. */
function installedVersion(name: string): string {
  let dir = dirname(require.resolve(name));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name?: string;
        version: string;
      };
      if (manifest.name === name) return manifest.version;
    } catch {
      // Not this folder: look in its parent.
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json of ${name}`);
    dir = parent;
  }
}

describe('the SDK the adaptations were written for', () => {
  it.each(['@modelcontextprotocol/server', '@modelcontextprotocol/client'])(
    'is the installed %s (an upgrade reviews src/sdkAdaptation first, then changes adaptedSdkVersion)',
    (name) => {
      expect(installedVersion(name)).toBe(adaptedSdkVersion);
    },
  );

  it("takes the legacy revisions from the SDK's own list, and puts the modern one first upstream", () => {
    expect(legacyProtocolVersions).toEqual(SUPPORTED_PROTOCOL_VERSIONS);
    expect(upstreamProtocolVersions).toEqual([modernProtocolVersion, ...SUPPORTED_PROTOCOL_VERSIONS]);
    expect(legacyProtocolVersions).not.toContain(modernProtocolVersion);
  });
});
