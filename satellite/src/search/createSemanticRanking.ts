import type { ToolVectors } from './createToolVectors.ts';
import type { SearchableTool, SearchResult } from './searchableTool.ts';
import { toolEmbeddingText } from './toolEmbeddingText.ts';

export type SemanticRanking = {
  setTools(tools: readonly SearchableTool[]): void;
  /** The tools with vectors, closest to `vector` first (at most `depth`); score `1 - cosine` / 2, in [0, 1]. */
  rank(vector: Float32Array, depth: number): SearchResult[];
  /** Whether any tool of the list has its vector yet. */
  ready(): boolean;
};

/**
 * Ranking by meaning over one tool list: each tool's vector (from the shared `ToolVectors`) packed into
 * one contiguous matrix, repacked only when the list changed or new vectors arrived, so a query is one
 * pass of dot products over it.
 */
export function createSemanticRanking(vectors: ToolVectors): SemanticRanking {
  let tools: readonly SearchableTool[] = [];
  let texts: string[] = [];
  let packedFor: { tools: readonly SearchableTool[]; version: number } | undefined;
  let matrix = new Float32Array(0);
  let rows: SearchableTool[] = [];
  let dimensions = 0;

  const pack = () => {
    if (packedFor?.tools === tools && packedFor.version === vectors.version()) return;
    const found: Array<[SearchableTool, Float32Array]> = [];
    tools.forEach((tool, i) => {
      const vector = vectors.get(texts[i] as string);
      // Vectors of another length (a model changed under the same endpoint) cannot be compared.
      if (vector && (found.length === 0 || vector.length === found[0]?.[1].length)) found.push([tool, vector]);
    });
    dimensions = found[0]?.[1].length ?? 0;
    matrix = new Float32Array(found.length * dimensions);
    found.forEach(([, vector], row) => {
      matrix.set(vector, row * dimensions);
    });
    rows = found.map(([tool]) => tool);
    packedFor = { tools, version: vectors.version() };
  };

  return {
    setTools(next) {
      if (next === tools) return;
      tools = next;
      texts = next.map(toolEmbeddingText);
      vectors.want(texts);
    },
    ready() {
      pack();
      return rows.length > 0;
    },
    rank(vector, depth) {
      pack();
      if (rows.length === 0 || vector.length !== dimensions || depth <= 0) return [];
      // The best `depth` rows, kept sorted (ties in list order) while one pass scores every row.
      const best: Array<{ row: number; similarity: number }> = [];
      for (let row = 0; row < rows.length; row++) {
        let similarity = 0;
        const offset = row * dimensions;
        for (let i = 0; i < dimensions; i++) similarity += (matrix[offset + i] as number) * (vector[i] as number);
        if (best.length === depth && similarity <= (best[depth - 1] as { similarity: number }).similarity) continue;
        let at = best.length;
        while (at > 0 && similarity > (best[at - 1] as { similarity: number }).similarity) at--;
        best.splice(at, 0, { row, similarity });
        if (best.length > depth) best.pop();
      }
      return best.map(({ row, similarity }) => ({
        tool: rows[row] as SearchableTool,
        score: Math.min(1, Math.max(0, (1 - similarity) / 2)),
      }));
    },
  };
}
