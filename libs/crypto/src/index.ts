export { checkSecretBox, createSecretBox, DecryptionError, type SecretBox } from './createSecretBox.ts';
export { satelliteKeyDigest } from './satelliteKeyDigest.ts';
