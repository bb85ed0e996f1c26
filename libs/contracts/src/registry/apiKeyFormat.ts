/**
 * Satellite API keys are `<key id>.<secret>`: the key id names the satellite's row, so
 * authentication looks up one row and verifies one Argon2 hash. Key ids are `sk_` and 24 hex digits;
 * secrets are 32 random bytes in base64url (43 characters), which never contain a dot.
 */
export const apiKeyIdPattern = /^sk_[0-9a-f]{24}$/;
const secretPattern = /^[A-Za-z0-9_-]{43}$/;

export function parseApiKey(apiKey: string): { keyId: string; secret: string } | null {
  const dot = apiKey.indexOf('.');
  if (dot < 0) return null;
  const keyId = apiKey.slice(0, dot);
  const secret = apiKey.slice(dot + 1);
  if (!apiKeyIdPattern.test(keyId) || !secretPattern.test(secret)) return null;
  return { keyId, secret };
}

/** The prefix of the bearer value a satellite registers with: `Bearer service_satellite_<token>`. */
export const registrationBearerPrefix = 'service_satellite_';
