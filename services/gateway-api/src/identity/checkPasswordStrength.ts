/**
 * The password policy, for the first admin and for every account created later. Length and a blocklist
 * rather than composition rules (NIST SP 800-63B): a long pass phrase is strong without digits or symbols.
 * Returns what is wrong in words that never repeat the password, or null when it is acceptable.
 */
export const minimumPasswordLength = 12;
export const maximumPasswordLength = 256;

const commonStems = ['password', 'passwort', 'admin', 'administrator', 'changeme', 'letmein', 'welcome', 'qwerty'];
const commonStemWithDecoration = new RegExp(`^(${commonStems.join('|')}|orbital)[^a-z]*$`, 'i');

export function checkPasswordStrength(password: string, context: { email?: string } = {}): string | null {
  if (password.length < minimumPasswordLength) {
    return `must be at least ${minimumPasswordLength} characters long`;
  }
  if (password.length > maximumPasswordLength) {
    return `must be at most ${maximumPasswordLength} characters long`;
  }
  if (new Set(password).size < 5) return 'must use at least 5 different characters';
  if (/^\d+$/.test(password)) return 'must not be only digits';
  if (commonStemWithDecoration.test(password)) return 'is a common password with digits or symbols added';
  const email = context.email?.toLowerCase();
  if (email) {
    const local = email.split('@')[0] ?? '';
    const lowered = password.toLowerCase();
    if (lowered === email || (local.length >= 4 && lowered.includes(local))) {
      return 'must not contain the account e-mail address';
    }
  }
  return null;
}
