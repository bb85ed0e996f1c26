import { createHash, timingSafeEqual } from 'node:crypto';
import type { Logger } from '@orbital/logger';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import { z } from 'zod';
import type { EmbeddingsEnv } from './config.ts';
import type { Embedder } from './createUseLiteEmbedder.ts';

/** An OpenAI-style error body: clients of the API read `error.message` and `error.code`. */
function fail(reply: FastifyReply, status: number, code: string, message: string) {
  return reply
    .code(status)
    .send({ error: { message, type: status >= 500 ? 'server_error' : 'invalid_request_error', code } });
}

const embeddingsRequest = z.object({
  input: z.union([z.string(), z.array(z.string())]),
  model: z.string().optional(),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.number().int().positive().optional(),
  user: z.string().optional(),
});

const rerankRequest = z.object({
  query: z.string(),
  documents: z.array(z.union([z.string(), z.object({ text: z.string() })])),
  model: z.string().optional(),
  top_n: z.number().int().positive().optional(),
  return_documents: z.boolean().optional(),
});

/**
 * The local embeddings process: an OpenAI-compatible `POST /v1/embeddings` over the model that ships
 * inside its registry package, and `POST /v1/rerank` (the Cohere / Jina / vLLM shape) scoring each
 * document by the cosine similarity of its vector to the query's. That rerank is no cross-encoder: it
 * lets the satellite's reranker path be run and tested against a real endpoint, and ranks as the
 * embeddings do.
 */
export function createEmbeddingsApp(options: {
  config: EmbeddingsEnv;
  embedder: Embedder;
  logger: Logger;
}): FastifyInstance {
  const { config, embedder, logger } = options;
  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    bodyLimit: 16 * 1024 * 1024,
    requestTimeout: 120_000,
  });
  const keyDigest = config.EMBEDDINGS_API_KEY
    ? createHash('sha256').update(config.EMBEDDINGS_API_KEY).digest()
    : undefined;

  app.addHook('onRequest', async (request, reply) => {
    if (!keyDigest || request.url === '/healthz') return;
    const given = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!timingSafeEqual(createHash('sha256').update(given).digest(), keyDigest)) {
      return fail(reply, 401, 'invalid_api_key', 'A valid API key is required: Authorization: Bearer <key>');
    }
  });

  const checkTexts = (reply: FastifyReply, texts: readonly string[]) => {
    if (texts.length === 0) return fail(reply, 400, 'invalid_input', 'input must hold at least one text');
    if (texts.length > config.EMBEDDINGS_MAX_INPUTS) {
      return fail(reply, 413, 'too_many_inputs', `at most ${config.EMBEDDINGS_MAX_INPUTS} texts per request`);
    }
    const long = texts.findIndex((text) => text.length > config.EMBEDDINGS_MAX_INPUT_CHARS);
    if (long >= 0) {
      return fail(
        reply,
        413,
        'input_too_long',
        `text ${long} is longer than ${config.EMBEDDINGS_MAX_INPUT_CHARS} characters`,
      );
    }
    return undefined;
  };

  const checkModel = (reply: FastifyReply, model: string | undefined) =>
    model !== undefined && model !== embedder.model
      ? fail(reply, 404, 'model_not_found', `This process serves the model "${embedder.model}" only`)
      : undefined;

  const embed = async (reply: FastifyReply, texts: readonly string[]) => {
    try {
      return await embedder.embed(texts);
    } catch (error) {
      logger.error({ err: error, texts: texts.length }, 'the model failed');
      fail(reply, 503, 'model_failed', 'The model could not embed this request; try again');
      return undefined;
    }
  };

  app.get('/healthz', async () => ({ status: 'ok', model: embedder.model }));
  app.get('/v1/models', async () => ({
    object: 'list',
    data: [{ id: embedder.model, object: 'model', owned_by: 'orbital' }],
  }));

  app.post('/v1/embeddings', async (request, reply) => {
    const parsed = embeddingsRequest.safeParse(request.body);
    if (!parsed.success) {
      return fail(
        reply,
        400,
        'invalid_request',
        `input must be a string or an array of strings (${parsed.error.issues.map((i) => i.path.join('.') || 'body').join(', ')})`,
      );
    }
    const { input, model, encoding_format: format = 'float', dimensions } = parsed.data;
    const texts = typeof input === 'string' ? [input] : input;
    if (checkModel(reply, model) ?? checkTexts(reply, texts)) return reply;
    if (dimensions !== undefined && dimensions !== 512) {
      return fail(reply, 400, 'invalid_dimensions', 'This model gives 512 dimensions only');
    }
    const vectors = await embed(reply, texts);
    if (!vectors) return reply;
    const tokens = texts.reduce((sum, text) => sum + Math.ceil(text.length / 4), 0);
    return {
      object: 'list',
      model: embedder.model,
      data: vectors.map((vector, index) => ({
        object: 'embedding',
        index,
        embedding: format === 'base64' ? Buffer.from(Float32Array.from(vector).buffer).toString('base64') : vector,
      })),
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    };
  });

  const rerank = async (body: unknown, reply: FastifyReply) => {
    const parsed = rerankRequest.safeParse(body);
    if (!parsed.success) {
      return fail(
        reply,
        400,
        'invalid_request',
        `a rerank request needs query (a string) and documents (an array) (${parsed.error.issues.map((i) => i.path.join('.') || 'body').join(', ')})`,
      );
    }
    const { query, documents, model, top_n: topN, return_documents: returnDocuments } = parsed.data;
    const texts = documents.map((document) => (typeof document === 'string' ? document : document.text));
    if (checkModel(reply, model) ?? checkTexts(reply, [query, ...texts])) return reply;
    const vectors = await embed(reply, [query, ...texts]);
    if (!vectors) return reply;
    const [queryVector, ...documentVectors] = vectors as [number[], ...number[][]];
    const results = documentVectors
      .map((vector, index) => ({
        index,
        relevance_score: cosine(queryVector, vector),
        ...(returnDocuments ? { document: { text: texts[index] } } : {}),
      }))
      .sort((a, b) => b.relevance_score - a.relevance_score)
      .slice(0, topN ?? texts.length);
    return { model: embedder.model, results };
  };
  app.post('/v1/rerank', async (request, reply) => rerank(request.body, reply));
  app.post('/rerank', async (request, reply) => rerank(request.body, reply));

  return app;
}

function cosine(a: readonly number[], b: readonly number[]): number {
  let dot = 0;
  let normA = 0;
  let normB = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] as number) * (b[i] as number);
    normA += (a[i] as number) ** 2;
    normB += (b[i] as number) ** 2;
  }
  return normA > 0 && normB > 0 ? dot / Math.sqrt(normA * normB) : 0;
}
