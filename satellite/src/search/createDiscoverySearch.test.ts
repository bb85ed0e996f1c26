import { describe, expect, it } from 'vitest';
import { createDiscoverySearch } from './createDiscoverySearch.ts';
import { createFuseToolSearch } from './createFuseToolSearch.ts';
import { isOperatorQuery } from './isOperatorQuery.ts';
import { generateSearchQueries } from './testing/generateSearchQueries.ts';
import { generateToolCorpus } from './testing/generateToolCorpus.ts';
import { toDiscoveredTool } from './toDiscoveredTool.ts';

describe('createDiscoverySearch', () => {
  const tools = generateToolCorpus(300, 5);
  const discovery = createDiscoverySearch();
  discovery.setTools(tools);
  const fuse = createFuseToolSearch();
  fuse.setTools(tools);

  it('answers operator queries and blank ones exactly as plain Fuse.js with the spec options', () => {
    const queries = generateSearchQueries(tools, 300, 11).filter((q) => !q.trim() || isOperatorQuery(q));
    expect(queries.length).toBeGreaterThan(50);
    for (const query of queries) {
      for (const limit of [1, 10]) {
        const expected = fuse.search(query, limit).map((r) => [r.tool, r.score]);
        expect(
          discovery.search(query, limit).map((r) => [r.tool, r.score]),
          query,
        ).toEqual(expected);
      }
    }
    // 300 generated queries, each also run through Fuse.js rebuilt from scratch: seconds on a shared machine.
  }, 30_000);

  it('ranks plain words with the word ranking, and falls back to Fuse when no word matches', () => {
    const target = tools[17];
    if (!target) throw new Error('corpus too small');
    const words = target.name.replace(/([a-z])([A-Z])/g, '$1 $2').replaceAll('_', ' ');
    expect(discovery.search(`please ${words} for ${target.server_slug}`, 5).map((r) => r.tool)).toContain(target);
    // A fragment no word ranking matches: Fuse's fuzzy matching answers, as it would without plain words.
    const fragment = target.name.slice(0, 3);
    expect(discovery.search(fragment, 10)).toEqual(fuse.search(fragment, 10));
  });
});

describe('toDiscoveredTool', () => {
  const tool = {
    tool_path: 'demo:echo',
    name: 'echo',
    description: 'Echo',
    server_slug: 'demo',
    server_name: 'demo',
    transport: 'stdio' as const,
    input_schema: { type: 'object', properties: { message: { type: 'string' } } },
    annotations: { readOnlyHint: true },
  };

  it('adds the input schema and annotations, or gives exactly the spec shape', () => {
    expect(toDiscoveredTool({ tool, score: 0.25 }, true)).toEqual({
      tool_path: 'demo:echo',
      description: 'Echo',
      server_name: 'demo',
      transport: 'stdio',
      relevance_score: 0.25,
      input_schema: tool.input_schema,
      annotations: { readOnlyHint: true },
    });
    expect(toDiscoveredTool({ tool, score: 0.25 }, false)).toEqual({
      tool_path: 'demo:echo',
      description: 'Echo',
      server_name: 'demo',
      transport: 'stdio',
      relevance_score: 0.25,
    });
    const { annotations: _, ...undeclared } = tool;
    expect(toDiscoveredTool({ tool: undeclared, score: 0 }, true)).not.toHaveProperty('annotations');
  });
});
