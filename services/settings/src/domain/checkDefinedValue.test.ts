import { describe, expect, it } from 'vitest';
import { checkDefinedValue } from './checkDefinedValue.ts';

describe('checkDefinedValue', () => {
  it('accepts what typed reads accept and names what they would refuse', () => {
    expect(checkDefinedValue({ type: 'number', required: false }, '587')).toBeNull();
    expect(checkDefinedValue({ type: 'number', required: false }, 'five')).toBe('must be a number');
    expect(checkDefinedValue({ type: 'boolean', required: false }, 'Yes')).toBeNull();
    expect(checkDefinedValue({ type: 'boolean', required: false }, 'maybe')).toBe('must be true or false');
    expect(checkDefinedValue({ type: 'string', required: false }, 'anything')).toBeNull();
  });

  it('refuses an empty required value and lets an optional one be emptied', () => {
    expect(checkDefinedValue({ type: 'string', required: true }, '  ')).toBe('is required');
    expect(checkDefinedValue({ type: 'number', required: false }, '')).toBeNull();
  });
});
