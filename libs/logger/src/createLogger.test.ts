import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from './createLogger.ts';

function capture() {
  const stream = new PassThrough();
  let text = '';
  stream.on('data', (chunk: Buffer) => {
    text += chunk.toString();
  });
  return { stream, text: () => text };
}

describe('createLogger', () => {
  it('redacts credentials wherever they appear', () => {
    const out = capture();
    const logger = createLogger({ name: 'test', destination: out.stream });
    logger.info(
      {
        password: 'hunter2-password',
        req: { headers: { authorization: 'Bearer tok-123', cookie: 'session=abc-cookie' } },
        satellite: { apiKey: 'key.secret-api-key' },
        config: { connectionString: 'postgres://u:pw@host/db' },
        nested: { deeper: { token: 'deep-token' } },
      },
      'hello',
    );
    const line = out.text();
    for (const secret of [
      'hunter2-password',
      'tok-123',
      'abc-cookie',
      'secret-api-key',
      'postgres://u:pw',
      'deep-token',
    ]) {
      expect(line).not.toContain(secret);
    }
    expect(JSON.parse(line)).toMatchObject({ msg: 'hello', level: 'info', service: 'test' });
  });
});
