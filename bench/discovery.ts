/**
 * Discovery benchmark, in one run:
 *
 * 1. Retrieval quality on the public golden set (47 plain requests, graded labels) over the 45-tool
 *    corpus alone and mixed with the 489 distractor tools of distractors_v2, for Orbital's discovery
 *    next to plain Fuse.js with discovery's options and a plain BM25; and the same on our own tuning
 *    requests. The data sets are mcpproxy-go's evaluation data (MIT) and LiveMCPBench's tools
 *    (Apache-2.0), read where they are kept, never copied into the repository.
 * 2. Tokens the input schemas and annotations add to a discovery result at limit 10.
 * 3. Latency p50/p99 at 100, 1,000 and 10,000 tools: Orbital's discovery on plain requests and on
 *    operator queries, (a) plain Fuse.js rebuilt per query (the reference), (b) a kept Fuse index,
 *    (c) the satellite's fast Fuse index; then the equality check of (c) and of Orbital's discovery on
 *    operator queries against (a), which must report 0 mismatches.
 *
 * 4. With the project's local model endpoint (services/embeddings started as its own process, called
 *    over HTTP): the golden set over the corpus alone and with distractors_v2, as a satellite ranks it
 *    (word ranking; with the model; each with queries[] of three phrasings made by rule), the other ways
 *    of using the model that were tried, and whole discovery calls' p50/p99 with and without the model
 *    at 10,000 tools (the endpoint's embedding of each request included).
 *
 *   npm run bench:discovery     (RETRIEVAL_DATA_DIR overrides where the data sets are read from;
 *                                DISCOVERY_BENCH_MODEL_TOOLS the size of part 4's latency run, 10,000 by
 *                                default: embedding that many tools with USE lite takes minutes)
 */
import { cpus, loadavg } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Fuse from 'fuse.js';
import { estimateTokens } from '../satellite/src/runtime/estimateTokens.ts';
import { createDiscoverySearch } from '../satellite/src/search/createDiscoverySearch.ts';
import { createFuseToolSearch } from '../satellite/src/search/createFuseToolSearch.ts';
import { createToolSearchIndex } from '../satellite/src/search/createToolSearchIndex.ts';
import { isOperatorQuery } from '../satellite/src/search/isOperatorQuery.ts';
import type { SearchableTool, SearchResult, ToolSearchIndex } from '../satellite/src/search/searchableTool.ts';
import { generateSearchQueries, realisticQueries } from '../satellite/src/search/testing/generateSearchQueries.ts';
import { generateToolCorpus } from '../satellite/src/search/testing/generateToolCorpus.ts';
import { toDiscoveredTool } from '../satellite/src/search/toDiscoveredTool.ts';
import { toolSearchFuseOptions } from '../satellite/src/search/toolSearchFuseOptions.ts';
import { startLocalEmbeddings } from '../satellite/test/startLocalEmbeddings.ts';
import { type LabelledQuery, loadRetrievalData } from './discovery/loadRetrievalData.ts';
import { loadTuningSet } from './discovery/loadTuningSet.ts';
import { measureDiscoveryRows, measureModelLatency, measureModelVariants } from './discovery/measureWithModel.ts';
import { createPlainBm25Search } from './discovery/plainBm25Search.ts';
import { type RetrievalMetrics, retrievalMetrics } from './discovery/retrievalMetrics.ts';

const sizes = [100, 1_000, 10_000];
const limit = 10;
const equalityLimits = [1, 10, 100];

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const systems: ReadonlyArray<{ label: string; create: () => ToolSearchIndex }> = [
  { label: "Orbital's discovery", create: () => createDiscoverySearch() },
  { label: 'plain Fuse.js (spec options)', create: createFuseToolSearch },
  { label: 'plain BM25', create: createPlainBm25Search },
];

const fixed = (value: number) => value.toFixed(3).padStart(7);
const format = (ms: number) => ms.toFixed(ms < 1 ? 3 : ms < 10 ? 2 : 1).padStart(9);

function measureQuality(
  tools: readonly SearchableTool[],
  queries: readonly LabelledQuery[],
  create: () => ToolSearchIndex,
) {
  const search = create();
  search.setTools(tools);
  return retrievalMetrics(queries, (query) => search.search(query, limit).map((result) => result.tool.tool_path));
}

function qualityRow(label: string, m: RetrievalMetrics): string {
  return `  ${label.padEnd(44)}${fixed(m.recallAt[1])}${fixed(m.recallAt[3])}${fixed(m.recallAt[5])}${fixed(m.recallAt[10])}${fixed(m.mrr)}${fixed(m.ndcgAt10)}`;
}

const qualityHeader = `  ${''.padEnd(44)}${'R@1'.padStart(7)}${'R@3'.padStart(7)}${'R@5'.padStart(7)}${'R@10'.padStart(7)}${'MRR'.padStart(7)}${'nDCG10'.padStart(7)}`;

const [load1, load5, load15] = loadavg() as [number, number, number];
console.log(
  `node ${process.version}, ${cpus().length} cores, load average ${load1.toFixed(2)} / ${load5.toFixed(2)} / ${load15.toFixed(2)} (1/5/15 min), limit ${limit}\n`,
);

// 1. Retrieval quality.
const data = loadRetrievalData();
const corpusSets: ReadonlyArray<{ label: string; tools: SearchableTool[] }> = [
  { label: `corpus alone (${data.corpus.length} tools)`, tools: data.corpus },
  {
    label: `corpus + distractors (${data.corpus.length + data.distractors.length})`,
    tools: [...data.corpus, ...data.distractors],
  },
];
console.log(
  `Golden set: ${data.golden.length} requests, read from ${data.directory} (mcpproxy-go's evaluation data, MIT; distractors from LiveMCPBench, Apache-2.0)`,
);
for (const set of corpusSets) {
  console.log(`${set.label}\n${qualityHeader}`);
  for (const system of systems)
    console.log(qualityRow(system.label, measureQuality(set.tools, data.golden, system.create)));
}

const tuning = await loadTuningSet();
const paraphrases = new Set(tuning.paraphrases);
const wordLevel = tuning.requests.filter((request) => !paraphrases.has(request));
for (const [label, requests] of [
  ["requests using some of the tool's words", wordLevel],
  ['paraphrases, which avoid them', tuning.paraphrases],
] as const) {
  console.log(`Our tuning set, ${requests.length} ${label}, over ${tuning.tools.length} tools\n${qualityHeader}`);
  for (const system of systems)
    console.log(qualityRow(system.label, measureQuality(tuning.tools, requests, system.create)));
}
console.log('');

// 2. What the schemas cost an agent's context.
{
  const discovery = createDiscoverySearch();
  const mixed = [...data.corpus, ...data.distractors];
  discovery.setTools(mixed);
  let withSchemas = 0;
  let without = 0;
  for (const { query } of data.golden) {
    const results = discovery.search(query, limit);
    withSchemas += estimateTokens(JSON.stringify(results.map((r) => toDiscoveredTool(r, true))));
    without += estimateTokens(JSON.stringify(results.map((r) => toDiscoveredTool(r, false))));
  }
  const n = data.golden.length;
  console.log(
    `Result size at limit ${limit} (golden requests, corpus + distractors, estimateTokens = characters / 4):\n` +
      `  with input_schema and annotations ${Math.round(withSchemas / n)} tokens, include_schemas false ${Math.round(without / n)} tokens;` +
      ` schemas add ${Math.round((withSchemas - without) / n)} tokens per call (${(withSchemas / without).toFixed(2)}x)\n`,
  );
}

// 3. Latency, and the equality of the Fuse paths.
type Row = { label: string; p50: number; p99: number; cpuP50: number; cpuP99: number };

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

/**
 * Wall-clock time per query, and the process's CPU time per query beside it: on a shared machine a
 * query also waits for a core, which CPU time leaves out (it does count garbage collection threads).
 */
function measure(label: string, queries: readonly string[], run: (query: string) => unknown, rounds: number): Row {
  for (const query of queries.slice(0, 20)) run(query);
  const times: number[] = [];
  const cpuTimes: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const query of queries) {
      const cpuStart = process.cpuUsage();
      const start = performance.now();
      run(query);
      times.push(performance.now() - start);
      const cpu = process.cpuUsage(cpuStart);
      cpuTimes.push((cpu.user + cpu.system) / 1000);
    }
  }
  times.sort((a, b) => a - b);
  cpuTimes.sort((a, b) => a - b);
  return {
    label,
    p50: percentile(times, 0.5),
    p99: percentile(times, 0.99),
    cpuP50: percentile(cpuTimes, 0.5),
    cpuP99: percentile(cpuTimes, 0.99),
  };
}

function sameResults(left: SearchResult[], right: SearchResult[]): boolean {
  if (left.length !== right.length) return false;
  return left.every((result, i) => result.tool === right[i]?.tool && result.score === right[i]?.score);
}

function heapUsed(): number {
  collectGarbage();
  collectGarbage();
  return process.memoryUsage().heapUsed;
}

const realTools = [...data.corpus, ...data.distractors];
const plainRequests = [
  ...tuning.requests.map((r) => r.query),
  ...realisticQueries.filter((query) => !isOperatorQuery(query)),
];

for (const size of sizes) {
  // Real tools (with schemas) first, then generated ones up to the size.
  const tools: SearchableTool[] = [
    ...realTools.slice(0, size),
    ...generateToolCorpus(Math.max(0, size - realTools.length), 42),
  ];
  const queries = [...realisticQueries, ...generateSearchQueries(tools, 160, 4242)];
  const operatorQueries = queries.filter((query) => query.trim() && isOperatorQuery(query));

  let before = heapUsed();
  let buildStart = performance.now();
  const discovery = createDiscoverySearch();
  discovery.setTools(tools);
  discovery.search('warm up the related words', limit);
  const discoveryBuildMs = performance.now() - buildStart;
  const discoveryBytes = heapUsed() - before;

  before = heapUsed();
  buildStart = performance.now();
  const index = createToolSearchIndex();
  index.setTools(tools);
  const buildMs = performance.now() - buildStart;
  const indexBytes = heapUsed() - before;
  const unchangedStart = performance.now();
  index.setTools(tools);
  const unchangedMs = performance.now() - unchangedStart;
  // One tool re-described (a server updated its list), as a new array: the usual shape of a change.
  const changed = tools.map((tool, i) => (i === size >> 1 ? { ...tool, description: `${tool.description} v2` } : tool));
  const changedStart = performance.now();
  index.setTools(changed);
  const changedMs = performance.now() - changedStart;
  index.setTools(tools);
  const discoveryChangedStart = performance.now();
  discovery.setTools(changed);
  const discoveryChangedMs = performance.now() - discoveryChangedStart;
  discovery.setTools(tools);

  const reference = createFuseToolSearch();
  reference.setTools(tools);
  const kept = new Fuse(tools, toolSearchFuseOptions);
  const slowRounds = size >= 10_000 ? 1 : 3;
  const rows = [
    measure("Orbital's discovery, plain requests", plainRequests, (query) => discovery.search(query, limit), 10),
    measure("Orbital's discovery, operator queries", operatorQueries, (query) => discovery.search(query, limit), 20),
    measure('(a) Fuse rebuilt per query', queries, (query) => reference.search(query, limit), slowRounds),
    measure('(b) Fuse, kept index', queries, (query) => kept.search(query, { limit }), slowRounds),
    measure('(c) satellite Fuse index', queries, (query) => index.search(query, limit), 20),
  ];

  let comparisons = 0;
  let mismatches = 0;
  let discoveryComparisons = 0;
  let discoveryMismatches = 0;
  for (const query of queries) {
    for (const equalityLimit of equalityLimits) {
      const expected = reference.search(query, equalityLimit);
      comparisons++;
      if (!sameResults(expected, index.search(query, equalityLimit))) {
        mismatches++;
        if (mismatches <= 5)
          console.log(`  mismatch at ${size} tools, limit ${equalityLimit}: ${JSON.stringify(query)}`);
      }
      if (query.trim() && isOperatorQuery(query)) {
        discoveryComparisons++;
        if (!sameResults(expected, discovery.search(query, equalityLimit))) discoveryMismatches++;
      }
    }
  }

  const [, , rebuilt, keptRow, ours] = rows as [Row, Row, Row, Row, Row];
  const lines: string[] = [];
  lines.push(
    `${size.toLocaleString('en')} tools (${Math.min(size, realTools.length)} real, the rest generated); ${plainRequests.length} plain requests, ${queries.length} queries of every shape (${operatorQueries.length} with operators)`,
  );
  lines.push(
    `  ${'search'.padEnd(40)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'cpu p50'.padStart(9)}${'cpu p99'.padStart(9)}`,
  );
  for (const row of rows) {
    lines.push(
      `  ${row.label.padEnd(40)}${format(row.p50)}${format(row.p99)}${format(row.cpuP50)}${format(row.cpuP99)}`,
    );
  }
  lines.push(
    `  p50 speed-up of (c): ${(rebuilt.p50 / ours.p50).toFixed(1)}x over (a), ${(keptRow.p50 / ours.p50).toFixed(1)}x over (b);` +
      ` p99: ${(rebuilt.p99 / ours.p99).toFixed(1)}x over (a), ${(keptRow.p99 / ours.p99).toFixed(1)}x over (b)`,
  );
  lines.push(
    `  setTools: discovery first ${discoveryBuildMs.toFixed(1)} ms (heap ${(discoveryBytes / 1024 / 1024).toFixed(1)} MB, WordNet look-ups included), one tool changed ${discoveryChangedMs.toFixed(1)} ms;` +
      ` Fuse index first ${buildMs.toFixed(1)} ms, unchanged ${unchangedMs.toFixed(3)} ms, one tool changed ${changedMs.toFixed(1)} ms, heap ${(indexBytes / 1024 / 1024).toFixed(1)} MB`,
  );
  lines.push(
    `  equality vs (a): (c) ${mismatches} mismatches in ${comparisons} comparisons; Orbital's discovery on operator queries ${discoveryMismatches} in ${discoveryComparisons} (limits ${equalityLimits.join('/')})`,
  );
  console.log(`${lines.join('\n')}\n`);
}

// 4. With the local model endpoint.
{
  const local = await startLocalEmbeddings();
  const endpoint = { url: local.url, model: local.model };
  try {
    console.log(
      `With the local model endpoint (services/embeddings, ${local.model}, its own process over HTTP); queries[] = the request, its content words, its content words each followed by two words of its software-vocabulary group (bench/discovery/threePhrasings.ts)`,
    );
    for (const set of corpusSets) {
      console.log(`${set.label}\n${qualityHeader}`);
      for (const row of await measureDiscoveryRows(set.tools, data.golden, endpoint, limit)) {
        console.log(
          `${qualityRow(row.label, row.metrics)}${row.fallbacks ? `  (${row.fallbacks} calls without the model)` : ''}`,
        );
      }
      console.log('  other ways of using the same model, tried:');
      for (const row of await measureModelVariants(set.tools, data.golden, endpoint, limit)) {
        console.log(qualityRow(row.label, row.metrics));
      }
    }
    const size = Number(process.env.DISCOVERY_BENCH_MODEL_TOOLS ?? 10_000);
    const tools: SearchableTool[] = [
      ...realTools.slice(0, size),
      ...generateToolCorpus(Math.max(0, size - realTools.length), 42),
    ];
    const timeoutMs = 300;
    const requests = plainRequests.slice(0, 200);
    const latency = await measureModelLatency(tools, requests, endpoint, limit, timeoutMs);
    console.log(
      `\nWhole discovery calls at ${size.toLocaleString('en')} tools, ${requests.length} plain requests, model time limit ${timeoutMs} ms (tool vectors first computed through the endpoint in ${(latency.embedMs / 1000).toFixed(1)} s)`,
    );
    console.log(`  ${'discovery'.padEnd(44)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}`);
    for (const row of latency.rows) {
      console.log(
        `  ${row.label.padEnd(44)}${format(row.p50)}${format(row.p99)}${row.fallbacks ? `  (${row.fallbacks} answered by the words alone: time limit)` : ''}`,
      );
    }
  } finally {
    await local.stop();
  }
}
