import { readFileSync } from 'node:fs';
import type { SearchableTool } from '../../satellite/src/search/searchableTool.ts';
import { listReferenceServerTools } from './listReferenceServerTools.ts';
import type { LabelledQuery } from './loadRetrievalData.ts';
import { loadRetrievalData, searchableTool } from './loadRetrievalData.ts';

/**
 * Our own tuning set: plain requests we wrote (bench/discoveryTuningRequests.json) over the real
 * reference servers, the corpus's git, sqlite, fetch and time servers, and the distractor servers other
 * than those (so no tool has an identical twin). The golden set never tunes anything.
 */
export async function loadTuningSet(): Promise<{
  tools: SearchableTool[];
  requests: LabelledQuery[];
  paraphrases: LabelledQuery[];
}> {
  const data = loadRetrievalData();
  const reference = await listReferenceServerTools();
  const referenceNames = new Set(reference.map((t) => t.server_name));
  const fromCorpus = data.corpus.filter((t) => ['git', 'sqlite', 'fetch', 'time'].includes(t.server_name));
  const corpusNames = new Set(fromCorpus.map((t) => t.server_name));
  const distractors = data.allLiveMcpTools
    .filter((t) => !referenceNames.has(t.server) && !corpusNames.has(t.server))
    .map((t) => searchableTool(t.server, t.tool, t.description, t.inputSchema));
  const tools = [...reference, ...fromCorpus, ...distractors];
  const file = JSON.parse(readFileSync(new URL('../discoveryTuningRequests.json', import.meta.url), 'utf8')) as {
    requests: Array<{ query: string; labels: Record<string, number>; paraphrase?: boolean }>;
  };
  const known = new Set(tools.map((t) => t.tool_path));
  const requests = file.requests.map((r): LabelledQuery => {
    for (const id of Object.keys(r.labels)) if (!known.has(id)) throw new Error(`tuning label ${id} names no tool`);
    return { query: r.query, labels: new Map(Object.entries(r.labels)) };
  });
  const paraphrases = requests.filter((_, i) => file.requests[i]?.paraphrase === true);
  return { tools, requests, paraphrases };
}
