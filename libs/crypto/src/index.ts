export { checkSecretBox, createSecretBox, DecryptionError, type SecretBox } from './createSecretBox.ts';
