import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
  type webcrypto,
} from 'node:crypto';
import { type CallerIdentity, callerIdentity, type ProcessName, processName } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';

/**
 * Signed caller identities. Whoever sends a bus request signs the identity it carries (a short-lived
 * EdDSA JWS whose audience is the subject); `bus.serve` verifies it before anything else runs, so a
 * client that reaches NATS cannot claim to be someone it is not. The token also carries the digest of
 * the request it was made for (`requestDigest`: subject, origin and body), checked on receipt: a token
 * read off the wire vouches for that request only, never for another payload sent with it within its
 * lifetime. Sending the very same request again stays possible, as it would with any retry.
 *
 * Each process holds its own private key and everyone's public keys. A key is bound to the process it
 * was made for, and a process may only vouch for what it knows: gateway-api for the people and
 * satellites it authenticated (and itself), every other process only for itself. A service broken
 * into therefore cannot speak as a user, nor as another service. Keys are named (`kid`) so one can be
 * replaced while the old one is still trusted: publish the new public key everywhere, switch the signer,
 * then drop the old public key.
 *
 * Configuration text (environment):
 * - signing key: `<process>:<kid>:<seed>`, the seed the 32 bytes of an Ed25519 private key in base64url;
 * - public keys: a comma-separated list of `<process>:<kid>:<key>`, each key 32 bytes in base64url.
 */

/** Keys are held as WebCrypto keys, imported once: jose would otherwise convert a KeyObject on every call. */
export type SigningKey = { process: ProcessName; kid: string; key: webcrypto.CryptoKey };
export type PublicKey = { process: ProcessName; kid: string; key: webcrypto.CryptoKey };

function cryptoKey(key: KeyObject, usage: 'sign' | 'verify'): webcrypto.CryptoKey {
  return key.toCryptoKey({ name: 'Ed25519' }, false, [usage]);
}

export type IdentityKeys = {
  /** Keys this process signs with, one per process it speaks as (in production: itself). */
  signing: ReadonlyMap<ProcessName, SigningKey>;
  /** Keys it accepts, by kid. */
  trusted: ReadonlyMap<string, PublicKey>;
};

/** The configuration text of both, as the environment gives it. */
export type IdentityKeyConfig = { signingKeys: string; publicKeys: string };

/** How long a signed identity is good for. Short: a token seen on the wire is soon worthless. */
export const identityTokenLifetimeSeconds = 60;
/** Clocks of two machines may disagree this much. */
const clockToleranceSeconds = 5;
/** A signer reuses a token for the same subject and identity while more than this is left of it. */
const reuseMarginSeconds = 30;
const cacheLimit = 10_000;

const pkcs8Ed25519Prefix = Buffer.from('302e020100300506032b657004220420', 'hex');
const spkiEd25519Prefix = Buffer.from('302a300506032b6570032100', 'hex');
const kidPattern = /^[A-Za-z0-9_.-]{1,64}$/;

function parseEntry(entry: string, what: string): { process: ProcessName; kid: string; bytes: Buffer } {
  const [proc, kid, encoded, ...rest] = entry.trim().split(':');
  const parsedProcess = processName.safeParse(proc);
  if (!parsedProcess.success || rest.length > 0 || !kid || !kidPattern.test(kid) || !encoded) {
    // Never echo the entry: it may be a private key.
    throw new Error(`${what}: each entry must be <process>:<kid>:<base64url key>, with a known process name`);
  }
  const bytes = Buffer.from(encoded, 'base64url');
  if (bytes.length !== 32) throw new Error(`${what}: the key of ${proc}:${kid} must be 32 bytes`);
  return { process: parsedProcess.data, kid, bytes };
}

function entries(text: string): string[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
}

/** Reads the configuration text; throws naming the problem, never the key. */
export function parseIdentityKeys(config: IdentityKeyConfig): IdentityKeys {
  const signing = new Map<ProcessName, SigningKey>();
  for (const entry of entries(config.signingKeys)) {
    const { process, kid, bytes } = parseEntry(entry, 'identity signing key');
    const key = createPrivateKey({ key: Buffer.concat([pkcs8Ed25519Prefix, bytes]), format: 'der', type: 'pkcs8' });
    signing.set(process, { process, kid, key: cryptoKey(key, 'sign') });
  }
  const trusted = new Map<string, PublicKey>();
  for (const entry of entries(config.publicKeys)) {
    const { process, kid, bytes } = parseEntry(entry, 'identity public keys');
    if (trusted.has(kid)) throw new Error(`identity public keys: kid ${kid} is listed twice`);
    const key = createPublicKey({ key: Buffer.concat([spkiEd25519Prefix, bytes]), format: 'der', type: 'spki' });
    trusted.set(kid, { process, kid, key: cryptoKey(key, 'verify') });
  }
  return { signing, trusted };
}

/**
 * What a token is bound to: the SHA-256 of the subject, the origin header (who and from where, which
 * services write in the audit log) and the body bytes, each length-prefixed so no two requests share
 * one, in base64url. The only definition: the sender and the receiver both compute it here.
 */
export function requestDigest(request: { subject: string; origin?: string | undefined; body: Uint8Array }): string {
  const hash = createHash('sha256');
  for (const part of [Buffer.from(request.subject), Buffer.from(request.origin ?? ''), request.body]) {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(part.length);
    hash.update(length).update(part);
  }
  return hash.digest('base64url');
}

/** The process that may vouch for an identity: gateway-api for everyone outside, a service for itself. */
export function issuerOf(identity: CallerIdentity): ProcessName {
  return identity.kind === 'service' ? identity.service : 'gateway-api';
}

/** Signs `identity` for one request: `audience` its subject, `digest` its `requestDigest`. */
export type IdentitySigner = (identity: CallerIdentity, audience: string, digest: string) => Promise<string>;
/** The identity a token vouches for, once it is checked against the request that carries it. */
export type IdentityVerifier = (
  token: string | undefined | null,
  audience: string,
  digest: string,
) => Promise<CallerIdentity>;

/** Entries one identity object keeps of tokens made for it (a poll repeats the same few requests). */
const perIdentityLimit = 64;

export function createIdentitySigner(keys: IdentityKeys): IdentitySigner {
  type Signed = { token: string; reuseUntil: number };
  const cache = new Map<string, Signed>();
  // Most identities are signed again and again as the same object (a satellite's cached key, a session's
  // identity), often for the same request (a command poll): found by object first, a token needs no JSON
  // of the identity as its key, which was about a fiftieth of gateway-api's CPU on the command poll.
  // Identities are never changed once made.
  const byObject = new WeakMap<CallerIdentity, Map<string, Signed>>();
  return async (identity, audience, digest) => {
    const request = `${audience}\n${digest}`;
    const seen = byObject.get(identity)?.get(request);
    if (seen && seen.reuseUntil > Date.now() / 1000) return seen.token;
    const issuer = issuerOf(identity);
    const key = keys.signing.get(issuer);
    if (!key) {
      // A defect, not a caller's fault: this process tried to speak for someone it cannot vouch for.
      throw new AppError('internal', 'This process holds no key to sign this identity', {
        details: { issuer, kind: identity.kind },
      });
    }
    const cacheKey = `${request}\n${JSON.stringify(identity)}`;
    const now = Date.now() / 1000;
    const cached = cache.get(cacheKey);
    if (cached && cached.reuseUntil > now) {
      remember(identity, request, cached);
      return cached.token;
    }
    const issuedAt = Math.floor(now);
    const token = await new SignJWT({ idt: identity, req: digest })
      .setProtectedHeader({ alg: 'EdDSA', kid: key.kid })
      .setIssuer(issuer)
      .setAudience(audience)
      .setIssuedAt(issuedAt)
      .setExpirationTime(issuedAt + identityTokenLifetimeSeconds)
      .sign(key.key);
    if (cache.size >= cacheLimit) cache.clear();
    const signed = { token, reuseUntil: issuedAt + identityTokenLifetimeSeconds - reuseMarginSeconds };
    cache.set(cacheKey, signed);
    remember(identity, request, signed);
    return token;
  };

  function remember(identity: CallerIdentity, request: string, signed: Signed): void {
    let requests = byObject.get(identity);
    if (!requests) {
      requests = new Map();
      byObject.set(identity, requests);
    }
    // A long-lived identity (a service's own) sends many different requests: keep the latest few.
    if (requests.size >= perIdentityLimit) requests.clear();
    requests.set(request, signed);
  }
}

const otherRequest = 'The signed identity was made for another request';

function refuse(message: string): AppError {
  return new AppError('unauthenticated', message);
}

/**
 * Verifies a signed identity for one request. Every failure is `unauthenticated` and says which check
 * failed, never what the token held. A token verified once is remembered until it expires, so a caller
 * repeating a request pays one signature check per token, not per request; the request it was made for
 * is checked every time.
 */
export function createIdentityVerifier(keys: IdentityKeys): IdentityVerifier {
  const cache = new Map<string, { identity: CallerIdentity; audience: string; digest: string; expires: number }>();
  return async (token, audience, digest) => {
    if (!token) throw refuse('The request carries no signed identity');
    const now = Date.now() / 1000;
    const cached = cache.get(token);
    if (cached) {
      if (cached.expires + clockToleranceSeconds <= now) {
        cache.delete(token);
        throw refuse('The signed identity has expired');
      }
      if (cached.audience !== audience) throw refuse('The signed identity is for another subject');
      if (cached.digest !== digest) throw refuse(otherRequest);
      return cached.identity;
    }
    let issuerKey: PublicKey | undefined;
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await jwtVerify(
        token,
        (header) => {
          issuerKey = header.kid ? keys.trusted.get(header.kid) : undefined;
          if (!issuerKey) throw refuse('The signed identity names a key that is not trusted');
          return issuerKey.key;
        },
        {
          algorithms: ['EdDSA'],
          audience,
          clockTolerance: clockToleranceSeconds,
          requiredClaims: ['iss', 'iat', 'exp'],
          maxTokenAge: identityTokenLifetimeSeconds + clockToleranceSeconds,
        },
      ));
    } catch (error) {
      if (error instanceof AppError) throw error;
      if (error instanceof joseErrors.JWTExpired) throw refuse('The signed identity has expired');
      if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === 'aud') {
        throw refuse('The signed identity is for another subject');
      }
      throw refuse('The signed identity is not valid');
    }
    // Short-lived by construction: a token made to last longer was not made by our signer.
    if (Number(payload.exp) - Number(payload.iat) > identityTokenLifetimeSeconds) {
      throw refuse('The signed identity lives longer than identities may');
    }
    const parsed = callerIdentity.safeParse(payload.idt);
    if (!parsed.success || !issuerKey) throw refuse('The signed identity is not valid');
    // Checked after the signature, so only a token our signers made gets this far: one captured and sent
    // again with another body, another origin or to another subject is refused.
    if (typeof payload.req !== 'string') throw refuse('The signed identity is not bound to a request');
    if (payload.req !== digest) throw refuse(otherRequest);
    const identity = parsed.data;
    // The key must belong to the process named as issuer, and that process must be one that may vouch
    // for this identity: a service's key cannot sign a user, nor another service.
    if (payload.iss !== issuerKey.process || issuerOf(identity) !== issuerKey.process) {
      throw refuse('The signed identity was signed by a process that may not vouch for it');
    }
    if (cache.size >= cacheLimit) cache.clear();
    cache.set(token, { identity, audience, digest: payload.req, expires: Number(payload.exp) });
    return identity;
  };
}

/** A new key pair for a process, as configuration text (what `npm start` and the tests generate). */
export function generateIdentityKey(process: ProcessName, kid: string): { signingKey: string; publicKey: string } {
  if (!kidPattern.test(kid)) throw new Error('a kid is 1 to 64 letters, digits, ".", "_" or "-"');
  const { privateKey } = generateKeyPairSync('ed25519');
  const jwk = privateKey.export({ format: 'jwk' });
  return { signingKey: `${process}:${kid}:${jwk.d}`, publicKey: `${process}:${kid}:${jwk.x}` };
}
