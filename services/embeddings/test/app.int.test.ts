import { loadConfig } from '@orbital/config';
import { createLogger } from '@orbital/logger';
import { beforeAll, describe, expect, it } from 'vitest';
import { createEmbeddingsApp } from '../src/app.ts';
import { embeddingsEnv } from '../src/config.ts';
import { createUseLiteEmbedder, type Embedder, useLiteModelName } from '../src/createUseLiteEmbedder.ts';

/** The local embeddings process over the real model that ships in its package: no stand-in. */
let embedder: Embedder;
const logger = createLogger({ name: 'embeddings-test', level: 'silent' });
const appWith = (env: Record<string, string> = {}) =>
  createEmbeddingsApp({ config: loadConfig(embeddingsEnv, { LOG_LEVEL: 'silent', ...env }), embedder, logger });

beforeAll(async () => {
  embedder = await createUseLiteEmbedder();
}, 60_000);

/** POST /v1/embeddings to an app, with an authorization header when one is given. */
const embed = (app: ReturnType<typeof appWith>, payload: object, authorization?: string) =>
  app.inject({ method: 'POST', url: '/v1/embeddings', payload, headers: authorization ? { authorization } : {} });

const cosine = (a: number[], b: number[]) => a.reduce((sum, value, i) => sum + value * (b[i] as number), 0);

describe('the local embeddings process', () => {
  const app = () => appWith();

  it('answers /v1/embeddings as the OpenAI API does, vectors whose closeness follows meaning', async () => {
    const response = await embed(app(), {
      model: useLiteModelName,
      input: ['make a new folder', 'create a directory', 'add two numbers'],
    });
    expect(response.statusCode).toBe(200);
    const body = response.json() as {
      object: string;
      model: string;
      data: Array<{ index: number; embedding: number[] }>;
    };
    expect(body.object).toBe('list');
    expect(body.model).toBe(useLiteModelName);
    expect(body.data.map((item) => item.index)).toEqual([0, 1, 2]);
    const [folder, directory, sum] = body.data.map((item) => item.embedding) as [number[], number[], number[]];
    expect(folder).toHaveLength(512);
    expect(cosine(folder, directory)).toBeGreaterThan(cosine(folder, sum));
  }, 60_000);

  it('takes one string, and answers base64 floats when asked', async () => {
    const float = (await embed(app(), { input: 'hello' })).json() as { data: Array<{ embedding: number[] }> };
    const encoded = (await embed(app(), { input: 'hello', encoding_format: 'base64' })).json() as {
      data: Array<{ embedding: string }>;
    };
    const bytes = Buffer.from(encoded.data[0]?.embedding as string, 'base64');
    const decoded = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    expect(decoded[0]).toBeCloseTo(float.data[0]?.embedding[0] as number, 5);
  }, 60_000);

  it('refuses bad requests with an OpenAI-style error and the right status', async () => {
    const cases: Array<[unknown, number, string]> = [
      [{ input: [] }, 400, 'invalid_input'],
      [{ input: 42 }, 400, 'invalid_request'],
      [{ input: ['a'], model: 'text-embedding-3-small' }, 404, 'model_not_found'],
      [{ input: ['a'], dimensions: 256 }, 400, 'invalid_dimensions'],
      [{ input: ['x'.repeat(8193)] }, 413, 'input_too_long'],
    ];
    for (const [payload, status, code] of cases) {
      const response = await embed(app(), payload as object);
      expect(response.statusCode, code).toBe(status);
      expect(response.json().error.code).toBe(code);
    }
    const many = await embed(appWith({ EMBEDDINGS_MAX_INPUTS: '2' }), { input: ['a', 'b', 'c'] });
    expect(many.statusCode).toBe(413);
  });

  it('asks for the API key when one is set, compared without leaking it', async () => {
    const guarded = appWith({ EMBEDDINGS_API_KEY: 'local-secret' });
    const refused = await embed(guarded, { input: 'a' });
    expect(refused.statusCode).toBe(401);
    expect(refused.body).not.toContain('local-secret');
    const wrong = await embed(guarded, { input: 'a' }, 'Bearer nope');
    expect(wrong.statusCode).toBe(401);
    const allowed = await embed(guarded, { input: 'a' }, 'Bearer local-secret');
    expect(allowed.statusCode).toBe(200);
    expect((await guarded.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  }, 60_000);

  it('reranks documents by closeness to the query, in the Cohere shape, at /v1/rerank and /rerank', async () => {
    for (const url of ['/v1/rerank', '/rerank']) {
      const response = await app().inject({
        method: 'POST',
        url,
        payload: {
          query: 'make a new folder',
          documents: ['Add two numbers', { text: 'Create a new directory' }],
          top_n: 2,
        },
      });
      expect(response.statusCode).toBe(200);
      const results = (response.json() as { results: Array<{ index: number; relevance_score: number }> }).results;
      expect(results.map((r) => r.index)).toEqual([1, 0]);
      expect(results[0]?.relevance_score).toBeGreaterThan(results[1]?.relevance_score as number);
    }
    const bad = await app().inject({ method: 'POST', url: '/v1/rerank', payload: { query: 'x' } });
    expect(bad.statusCode).toBe(400);
  }, 60_000);
});
