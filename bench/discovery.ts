/**
 * Discovery search benchmark (issue 3): p50/p99 latency of discover_mcp_tools' search at 100, 1,000 and
 * 10,000 tools for (a) plain Fuse.js rebuilt per query (the reference behaviour), (b) a kept Fuse index,
 * (c) the satellite's index, in the same run; then the equality check of (c) against (a) over the same
 * query set, which must report 0 mismatches.
 *
 *   npm run bench:discovery            (or: npx node bench/discovery.ts)
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import Fuse from 'fuse.js';
import { createFuseToolSearch } from '../satellite/src/search/createFuseToolSearch.ts';
import { createToolSearchIndex } from '../satellite/src/search/createToolSearchIndex.ts';
import type { SearchableTool, SearchResult } from '../satellite/src/search/searchableTool.ts';
import { generateSearchQueries, realisticQueries } from '../satellite/src/search/testing/generateSearchQueries.ts';
import { generateToolCorpus } from '../satellite/src/search/testing/generateToolCorpus.ts';
import { toolSearchFuseOptions } from '../satellite/src/search/toolSearchFuseOptions.ts';

const sizes = [100, 1_000, 10_000];
const limit = 10;
const equalityLimits = [1, 10, 100];

setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

type Row = { label: string; p50: number; p99: number };

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

function measure(label: string, queries: readonly string[], run: (query: string) => unknown, rounds: number): Row {
  for (const query of queries.slice(0, 20)) run(query);
  const times: number[] = [];
  for (let round = 0; round < rounds; round++) {
    for (const query of queries) {
      const start = performance.now();
      run(query);
      times.push(performance.now() - start);
    }
  }
  times.sort((a, b) => a - b);
  return { label, p50: percentile(times, 0.5), p99: percentile(times, 0.99) };
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

const format = (ms: number) => ms.toFixed(ms < 1 ? 3 : ms < 10 ? 2 : 1).padStart(9);
console.log(`node ${process.version}, limit ${limit}\n`);

for (const size of sizes) {
  const tools: SearchableTool[] = generateToolCorpus(size, 42);
  const queries = [...realisticQueries, ...generateSearchQueries(tools, 160, 4242)];

  const before = heapUsed();
  const buildStart = performance.now();
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

  const reference = createFuseToolSearch();
  reference.setTools(tools);
  const kept = new Fuse(tools, toolSearchFuseOptions);
  const slowRounds = size >= 10_000 ? 1 : 3;
  const rows = [
    measure('(a) Fuse rebuilt per query', queries, (query) => reference.search(query, limit), slowRounds),
    measure('(b) Fuse, kept index', queries, (query) => kept.search(query, { limit }), slowRounds),
    measure('(c) satellite index', queries, (query) => index.search(query, limit), 20),
  ];

  let comparisons = 0;
  let mismatches = 0;
  for (const query of queries) {
    for (const equalityLimit of equalityLimits) {
      comparisons++;
      if (!sameResults(reference.search(query, equalityLimit), index.search(query, equalityLimit))) {
        mismatches++;
        if (mismatches <= 5)
          console.log(`  mismatch at ${size} tools, limit ${equalityLimit}: ${JSON.stringify(query)}`);
      }
    }
  }

  const [rebuilt, keptRow, ours] = rows as [Row, Row, Row];
  const lines: string[] = [];
  lines.push(`${size.toLocaleString('en')} tools, ${queries.length} queries`);
  lines.push(`  ${'search'.padEnd(28)}${'p50 ms'.padStart(9)}${'p99 ms'.padStart(9)}`);
  for (const row of rows) lines.push(`  ${row.label.padEnd(28)}${format(row.p50)}${format(row.p99)}`);
  lines.push(
    `  p50 speed-up of (c): ${(rebuilt.p50 / ours.p50).toFixed(1)}x over (a), ${(keptRow.p50 / ours.p50).toFixed(1)}x over (b);` +
      ` p99: ${(rebuilt.p99 / ours.p99).toFixed(1)}x over (a), ${(keptRow.p99 / ours.p99).toFixed(1)}x over (b)`,
  );
  lines.push(
    `  setTools: first ${buildMs.toFixed(1)} ms, unchanged ${unchangedMs.toFixed(3)} ms, one tool changed ${changedMs.toFixed(1)} ms; index heap ${(indexBytes / 1024 / 1024).toFixed(1)} MB`,
  );
  lines.push(
    `  equality vs (a): ${mismatches} mismatches in ${comparisons} comparisons (limits ${equalityLimits.join('/')})`,
  );
  console.log(`${lines.join('\n')}\n`);
}
