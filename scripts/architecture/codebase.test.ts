import { describe, expect, it } from 'vitest';
import { codebaseOf } from './codebase.ts';

describe('codebaseOf', () => {
  it('knows files and the folders that hold them, and reads and parses a file on demand', () => {
    const codebase = codebaseOf({ 'libs/bus/src/createBus.ts': 'export const a = 1;\n', 'README.md': '# Orbital\n' });
    expect(codebase.paths).toEqual(['README.md', 'libs/bus/src/createBus.ts']);
    expect(codebase.exists('libs/bus')).toBe(true);
    expect(codebase.exists('libs/bus/')).toBe(true);
    expect(codebase.exists('libs/db')).toBe(false);
    expect(codebase.read('README.md')).toBe('# Orbital\n');
    expect(codebase.parse('libs/bus/src/createBus.ts').statements).toHaveLength(1);
  });
});
