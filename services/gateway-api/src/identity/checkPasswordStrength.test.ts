import { describe, expect, it } from 'vitest';
import { checkPasswordStrength } from './checkPasswordStrength.ts';

describe('checkPasswordStrength', () => {
  it.each([
    ['short1!', /at least 12/],
    ['aaaaaaaaaaaaaaaa', /5 different/],
    ['123456789012345', /only digits/],
    ['Password2024!!', /common password/],
    ['admin123456789', /common password/],
    ['x'.repeat(257), /at most 256/],
  ])('refuses %s', (password, reason) => {
    const problem = checkPasswordStrength(password);
    expect(problem).toMatch(reason);
    expect(problem).not.toContain(password);
  });

  it('refuses a password built on the account address', () => {
    expect(checkPasswordStrength('maria.lopez-2024!', { email: 'maria.lopez@example.com' })).toMatch(/e-mail/);
  });

  it.each(['correct horse battery staple', 'Tr0ub4dor&3xyz', 'kJ8_fQ2-zX9pLm3WqR'])('accepts %s', (password) => {
    expect(checkPasswordStrength(password, { email: 'someone@example.com' })).toBeNull();
  });
});
