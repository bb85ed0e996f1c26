import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SearchableTool } from '../../satellite/src/search/searchableTool.ts';

/**
 * The public tool-retrieval data sets, read where they are kept (never copied into the repository):
 * `RETRIEVAL_DATA_DIR` when set, otherwise the first `shared/retrieval` folder found walking up from
 * the repository, so every checkout on a machine that keeps the data sets finds them.
 */
export function retrievalDataDirectory(): string {
  const configured = process.env.RETRIEVAL_DATA_DIR;
  if (configured) return resolve(configured);
  let at = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
  for (;;) {
    const candidate = join(at, 'shared', 'retrieval');
    if (existsSync(join(candidate, 'retrieval_golden_v1.json'))) return candidate;
    const parent = dirname(at);
    if (parent === at) break;
    at = parent;
  }
  throw new Error('retrieval data not found: set RETRIEVAL_DATA_DIR to the folder holding retrieval_golden_v1.json');
}

/** A labelled request: tool id (`server:tool`) to relevance, 2 for the tool meant, 1 for acceptable. */
export type LabelledQuery = { query: string; labels: Map<string, number> };

type CorpusTool = { tool_id: string; server: string; tool: string; description: string; schema?: unknown };
type DistractorTool = { server: string; tool: string; description: string; inputSchema?: unknown };

function readJson<T>(directory: string, file: string): T {
  return JSON.parse(readFileSync(join(directory, file), 'utf8')) as T;
}

export function slugOf(server: string): string {
  return (
    server
      .toLowerCase()
      .replace(/[^a-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '') || 'server'
  );
}

export function searchableTool(
  server: string,
  tool: string,
  description: string,
  schema: unknown,
  serverName = server,
): SearchableTool {
  return {
    tool_path: `${serverName}:${tool}`,
    name: tool,
    description,
    server_slug: slugOf(server),
    server_name: serverName,
    transport: 'stdio',
    ...(schema && typeof schema === 'object' ? { input_schema: schema as Record<string, unknown> } : {}),
  };
}

/** Prefix of the distractors' server names, so their tool paths never equal a labelled tool's. */
export const distractorPrefix = 'livemcp-';

export function loadRetrievalData(directory = retrievalDataDirectory()) {
  const corpus = readJson<{ tools: CorpusTool[] }>(directory, 'corpus_v2.tools.json').tools.map((t) =>
    searchableTool(t.server, t.tool, t.description, t.schema),
  );
  // v2 leaves out the distractor copies of the corpus's own reference servers (identical twins of
  // labelled tools, which no ranking can tell apart); the tuning set reads the full list.
  const distractorTools = readJson<{ tools: DistractorTool[] }>(directory, 'distractors_v2.tools.json').tools;
  const allLiveMcpTools = readJson<{ tools: DistractorTool[] }>(directory, 'livemcptool_tools.json').tools;
  const distractors = distractorTools.map((t) =>
    searchableTool(t.server, t.tool, t.description, t.inputSchema, `${distractorPrefix}${t.server}`),
  );
  const golden = readJson<{ queries: Array<{ query: string; labels: Array<{ tool_id: string; relevance: number }> }> }>(
    directory,
    'retrieval_golden_v1.json',
  ).queries.map(
    (q): LabelledQuery => ({ query: q.query, labels: new Map(q.labels.map((l) => [l.tool_id, l.relevance])) }),
  );
  return { directory, corpus, distractors, distractorTools, allLiveMcpTools, golden };
}
