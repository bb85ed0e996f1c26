import { hash } from 'node:crypto';

/**
 * The fast verifier of a satellite API key (`<key id>.<secret>`), kept beside its Argon2 hash, so any
 * gateway replica, after any restart, recognises a key with one SHA-256 instead of an Argon2 run.
 *
 * Why a plain SHA-256 is safe here when it would not be for a password: Argon2's cost multiplies the work
 * of each guess, which matters only when guesses can succeed, as they do against the small space of
 * passwords people choose. A satellite secret is 32 bytes from the operating system's random source: to
 * find a secret matching a stolen digest means trying about 2^255 of them whatever each try costs, so a
 * database read gives an attacker no more with this digest than with the Argon2 hash. The key id is part
 * of what is hashed, under a label of its own, so a digest belongs to one row and to this purpose only.
 */
export function satelliteKeyDigest(keyId: string, secret: string): string {
  return `sha256:${hash('sha256', `orbital satellite api key\n${keyId}.${secret}`, 'base64url')}`;
}
