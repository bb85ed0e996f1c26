import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDiscoveryEngine, type DiscoveryModels } from '../src/search/createDiscoveryEngine.ts';
import { createFuseToolSearch } from '../src/search/createFuseToolSearch.ts';
import { testTool as tool } from '../src/search/testing/testTool.ts';
import { startLocalEmbeddings, startSilentEndpoint } from './startLocalEmbeddings.ts';

/**
 * Discovery by meaning against the project's own embeddings process (a real OpenAI-compatible endpoint
 * over a real model), and its fall-backs against endpoints that hang or refuse.
 */
const tools = [
  tool('files', 'create_directory', 'Create a new directory or ensure a directory exists.', { path: {} }),
  tool('files', 'read_text_file', 'Read the complete contents of a file as text.', { path: {} }),
  tool('pets', 'random_dog', 'Fetch a random photo of a dog.'),
  tool('maths', 'get_sum', 'Returns the sum of two numbers.', { a: {}, b: {} }),
  tool('weather', 'forecast', 'Daily weather outlook for a city.', { city: {} }),
];

let local: Awaited<ReturnType<typeof startLocalEmbeddings>>;
beforeAll(async () => {
  local = await startLocalEmbeddings();
}, 60_000);
afterAll(async () => {
  await local?.stop();
});

function engineWith(models: () => DiscoveryModels) {
  const errors: string[] = [];
  const engine = createDiscoveryEngine({ models, onModelError: (endpoint) => errors.push(endpoint) });
  const search = engine.createSearch();
  search.setTools(tools);
  return { engine, search, errors };
}

/** The project's embeddings process as the embeddings endpoint, 30 s a call, and `more`. */
const onLocal = (more: Partial<DiscoveryModels> = {}): DiscoveryModels => ({
  embeddings: { url: local.url, model: local.model },
  timeoutMs: 30_000,
  ...more,
});

/** `engineWith`, once the tool vectors are in. */
async function readyEngineWith(models: () => DiscoveryModels) {
  const made = engineWith(models);
  await made.engine.vectorsReady();
  return made;
}

describe('discovery by meaning', () => {
  it('fuses the endpoint ranking with the words, and finds what the words miss', async () => {
    const { engine, search } = await readyEngineWith(onLocal);
    expect(engine.stats().vectors).toEqual({ embedded: tools.length, pending: 0 });
    // No word of "canine" is in any tool, and WordNet does not read it as "dog"; its meaning is close.
    const answer = await search.discover(['a picture of a canine'], 3);
    expect(answer.ranking).toEqual({ method: 'words+meaning', meaning: 'used' });
    expect(answer.results[0]?.tool.tool_path).toBe('pets:random_dog');
    const phrasings = await search.discover(['make a folder', 'mkdir'], 3);
    expect(phrasings.results[0]?.tool.tool_path).toBe('files:create_directory');
    expect(engine.stats().calls['words+meaning']).toBe(2);
    expect(engine.stats().models.embeddings.used).toBe(2);
    engine.close();
  }, 120_000);

  it('keeps operator queries exactly as Fuse.js answers them, with no model call', async () => {
    const { engine, search } = await readyEngineWith(onLocal);
    const fuse = createFuseToolSearch();
    fuse.setTools(tools);
    for (const query of ['^read', "'dog", 'file | sum']) {
      const answer = await search.discover([query], 10);
      expect(answer.ranking).toEqual({ method: 'operators' });
      expect(answer.results).toEqual(fuse.search(query, 10));
    }
    expect(engine.stats().models.embeddings.used).toBe(0);
    engine.close();
  }, 120_000);

  it('reranks the first results with a rerank endpoint when one is set', async () => {
    const { engine, search } = await readyEngineWith(() =>
      onLocal({ reranker: { url: local.url, model: local.model } }),
    );
    const answer = await search.discover(['add two numbers'], 3);
    expect(answer.ranking).toEqual({ method: 'words+meaning', meaning: 'used', reranker: 'used' });
    expect(answer.results[0]?.tool.tool_path).toBe('maths:get_sum');
    const scores = answer.results.map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => a - b));
    engine.close();
  }, 120_000);

  it('answers from the fused ranking when the reranker hangs past the limit, then rests it and answers at once', async () => {
    const silent = await startSilentEndpoint();
    let timeoutMs = 30_000;
    const { engine, search, errors } = await readyEngineWith(() =>
      onLocal({ reranker: { url: silent.url, model: 'hangs' }, timeoutMs }),
    );
    timeoutMs = 300;
    const first = await search.discover(['add two numbers'], 3);
    expect(first.ranking).toEqual({ method: 'words+meaning', meaning: 'used', reranker: 'timeout' });
    expect(first.results[0]?.tool.tool_path).toBe('maths:get_sum');
    const second = await search.discover(['add two numbers'], 3);
    expect(second.ranking.reranker).toBe('skipped');
    expect(silent.requests()).toBe(1);
    expect(errors).toEqual(['reranker']);
    expect(engine.stats().models.reranker).toMatchObject({ timeout: 1, skipped: 1, used: 0 });
    engine.close();
    await silent.stop();
  }, 120_000);

  it('answers from the words while no tool vector exists yet, and says so', async () => {
    const silent = await startSilentEndpoint();
    const { engine, search } = engineWith(() => ({ embeddings: { url: silent.url, model: 'hangs' }, timeoutMs: 300 }));
    const answer = await search.discover(['add two numbers'], 3);
    expect(answer.ranking).toEqual({ method: 'words', meaning: 'warming_up' });
    expect(answer.results[0]?.tool.tool_path).toBe('maths:get_sum');
    expect(engine.stats().vectors.pending).toBe(tools.length);
    engine.close();
    await silent.stop();
  }, 120_000);

  it('answers from the words when the endpoint goes down, says so, and rests it', async () => {
    const own = await startLocalEmbeddings();
    const { engine, search, errors } = await readyEngineWith(() => ({
      embeddings: { url: own.url, model: own.model },
      timeoutMs: 30_000,
    }));
    await own.stop();
    const down = await search.discover(['add two numbers'], 3);
    expect(down.ranking).toEqual({ method: 'words', meaning: 'error' });
    expect(down.results[0]?.tool.tool_path).toBe('maths:get_sum');
    const rested = await search.discover(['add two numbers'], 3);
    expect(rested.ranking).toEqual({ method: 'words', meaning: 'skipped' });
    expect(errors).toEqual(['embeddings']);
    expect(engine.stats().models.embeddings).toMatchObject({ error: 1, skipped: 1, used: 0 });
    engine.close();
  }, 120_000);
});
