import { describe, expect, it } from 'vitest';
import { detectClientType } from './detectClientType.ts';

describe('detectClientType', () => {
  it('detects the client type from the User-Agent, case-insensitively', () => {
    expect(detectClientType('Visual Studio Code/1.95 (VSCode)')).toBe('vscode');
    expect(detectClientType('Cursor/0.42')).toBe('cursor');
    expect(detectClientType('Claude-Desktop/1.0')).toBe('claude');
    expect(detectClientType('curl/8.0')).toBe('unknown');
    expect(detectClientType(undefined)).toBe('unknown');
  });
});
