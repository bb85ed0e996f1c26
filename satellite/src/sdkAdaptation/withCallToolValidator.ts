import type { Client, StandardSchemaV1 } from '@modelcontextprotocol/client';

/** What the SDK's wire codec of one protocol era offers for checking a result. */
type EraCodec = {
  validateResult(
    method: string,
    value: unknown,
  ): { ok: true; value: unknown } | { ok: false; reason: 'invalid' | 'not-in-era'; message?: string };
};

/**
 * Gives a client one tools/call result check per protocol era instead of one per call.
 *
 * The SDK (2.4.0) builds the result check of a standard method anew for every request, and learns
 * whether the era has the method by checking `undefined` against its schema and formatting the
 * failure: for a small tool call that probe costs several times the check of the result itself.
 * Here the check is built once per era codec, exactly as the SDK builds it, and handed to the
 * overload of `request()` that takes a result schema, which then does what the plain overload
 * would. Reaching the codec uses one internal of the pinned SDK (`_resolveOutboundCodec`); without
 * it the client is left as it is.
 */
export function withCallToolValidator(client: Client): Client {
  const internals = client as unknown as { _resolveOutboundCodec?: (method: string) => EraCodec };
  if (typeof internals._resolveOutboundCodec !== 'function') return client;
  const resolveCodec = internals._resolveOutboundCodec.bind(client);
  const validators = new WeakMap<EraCodec, StandardSchemaV1>();
  const validatorFor = (codec: EraCodec): StandardSchemaV1 => {
    let validator = validators.get(codec);
    if (!validator) {
      validator = {
        '~standard': {
          version: 1,
          vendor: 'orbital-satellite',
          validate(value: unknown) {
            const outcome = codec.validateResult('tools/call', value);
            if (outcome.ok) return { value: outcome.value };
            return {
              issues: [
                { message: outcome.reason === 'invalid' ? (outcome.message ?? 'invalid') : 'not-in-era: tools/call' },
              ],
            };
          },
        },
      };
      validators.set(codec, validator);
    }
    return validator;
  };
  const request = client.request.bind(client) as (...args: unknown[]) => Promise<unknown>;
  const isSchema = (value: unknown) => typeof value === 'object' && value !== null && '~standard' in value;
  client.request = ((message: { method: string }, schemaOrOptions?: unknown, options?: unknown) => {
    if (message.method !== 'tools/call' || isSchema(schemaOrOptions)) return request(message, schemaOrOptions, options);
    return request(message, validatorFor(resolveCodec('tools/call')), schemaOrOptions);
  }) as typeof client.request;
  return client;
}
