import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import type { AddressPolicy } from './createAddressPolicy.ts';

export type EgressFailure = 'scheme' | 'address' | 'timeout' | 'too_large' | 'network';

/** A guarded request that did not complete; the message is safe to show whoever gave the URL. */
export class EgressError extends Error {
  readonly reason: EgressFailure;
  constructor(reason: EgressFailure, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'EgressError';
    this.reason = reason;
  }
}

export type GuardedFetchOptions = {
  policy: AddressPolicy;
  /** The whole exchange (name resolution, connection, headers and body) must end within this. */
  timeoutMs: number;
  /** The largest body read; a longer one fails the request instead of filling memory. */
  maxBytes: number;
  /** Plain http as well as https (development); https only otherwise. */
  allowHttp?: boolean;
  /** GET unless given: POST for token, registration and revocation endpoints. */
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** Sent as is (its content type set by the caller's headers). */
  body?: string | Buffer;
};

export type GuardedResponse = { status: number; headers: IncomingHttpHeaders; body: Buffer };

/**
 * A name lookup that refuses the whole answer when any address in it is refused: the check is made on
 * the addresses the connection will use, so a name that resolves differently on a second lookup (DNS
 * rebinding) cannot slip past a check made earlier.
 */
function guardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0, hints: options.hints ?? 0 }, (error, found) => {
      const addresses = found as unknown as LookupAddress[];
      if (error) return callback(error, '', 0);
      const refused = addresses.map((a) => policy.problem(a.address)).find((p) => p !== null);
      if (refused || addresses.length === 0) {
        const failure = new EgressError('address', `${hostname} resolves to ${refused ?? 'no address'}`);
        return callback(failure as NodeJS.ErrnoException, '', 0);
      }
      const first = addresses[0] as LookupAddress;
      if ((options as { all?: boolean }).all)
        return (callback as (e: null, a: LookupAddress[]) => void)(null, addresses);
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * One request (GET unless told) to a URL someone outside the platform chose, made safely: https (or
 * http when allowed), only to addresses the policy allows, no redirect followed (the caller sees the
 * 3xx), within a time and a size limit. Whatever the server answers, the body is returned as bytes for
 * the caller to judge.
 */
export function fetchGuarded(url: URL, options: GuardedFetchOptions): Promise<GuardedResponse> {
  if (url.protocol !== 'https:' && !(options.allowHttp && url.protocol === 'http:')) {
    return Promise.reject(new EgressError('scheme', options.allowHttp ? 'must be an http(s) URL' : 'must be https'));
  }
  if (url.username || url.password) return Promise.reject(new EgressError('scheme', 'must not carry credentials'));
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    const problem = options.policy.problem(host);
    if (problem) return Promise.reject(new EgressError('address', problem));
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      reject(
        error instanceof EgressError ? error : new EgressError('network', 'could not be fetched', { cause: error }),
      );
      request.destroy();
    };
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    const request = send(url, {
      method: options.method ?? 'GET',
      headers: {
        'user-agent': 'Orbital',
        ...options.headers,
        ...(body ? { 'content-length': String(body.length) } : {}),
      },
      lookup: guardedLookup(options.policy),
      // A fresh connection each time: a pooled socket would skip the lookup that checks the address.
      agent: false,
    });
    const deadline = setTimeout(
      () => fail(new EgressError('timeout', `no complete answer within ${options.timeoutMs} ms`)),
      options.timeoutMs,
    );
    const tooLarge = () => new EgressError('too_large', `is larger than ${options.maxBytes} bytes`);
    request.on('error', fail);
    request.on('response', (response) => {
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > options.maxBytes) return fail(tooLarge());
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > options.maxBytes) fail(tooLarge());
        else chunks.push(chunk);
      });
      response.on('error', fail);
      response.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) });
      });
    });
    request.end(body);
  });
}
