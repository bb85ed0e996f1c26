/**
 * `npm run identity-keys`: a new key pair for every backend process, printed as environment lines for
 * a deployment's secrets (deploy/.env for compose, identity.env for a Kubernetes overlay). Each
 * process is given only its own `IDENTITY_SIGNING_KEY_<PROCESS>` as IDENTITY_SIGNING_KEY, and every
 * process the shared IDENTITY_PUBLIC_KEYS. `--kid <name>` names the keys (default: today's date), so a
 * rotation can trust old and new public keys side by side: append the new public keys to the old list,
 * roll out, switch the signing keys, roll out, then drop the old public keys.
 */
import { generateIdentityKey } from '@orbital/bus';
import { processNames } from '@orbital/contracts';

const kidFlag = process.argv.indexOf('--kid');
const kidBase = kidFlag >= 0 ? process.argv[kidFlag + 1] : new Date().toISOString().slice(0, 10);
if (!kidBase) {
  console.error('usage: npm run identity-keys -- [--kid <name>]');
  process.exit(1);
}

const pairs = processNames.map((name) => ({ name, ...generateIdentityKey(name, `${name}-${kidBase}`) }));
const variable = (name: string) => `IDENTITY_SIGNING_KEY_${name.toUpperCase().replaceAll('-', '_')}`;
for (const pair of pairs) console.log(`${variable(pair.name)}=${pair.signingKey}`);
console.log(`IDENTITY_PUBLIC_KEYS=${pairs.map((pair) => pair.publicKey).join(',')}`);
