import { describe, expect, it } from 'vitest';
import { createFuseToolSearch } from './createFuseToolSearch.ts';
import { createToolSearchIndex } from './createToolSearchIndex.ts';
import type { SearchableTool, SearchResult, ToolSearchIndex } from './searchableTool.ts';
import { createRandom } from './testing/createRandom.ts';
import { generateSearchQueries, realisticQueries } from './testing/generateSearchQueries.ts';
import { generateToolCorpus } from './testing/generateToolCorpus.ts';

/** Results as comparable rows: the tool's position in the list and the exact score. */
function rows(results: SearchResult[], tools: readonly SearchableTool[]): Array<[number, number]> {
  return results.map((result) => [tools.indexOf(result.tool), result.score]);
}

function expectSameAsReference(
  index: ToolSearchIndex,
  reference: ToolSearchIndex,
  tools: readonly SearchableTool[],
  queries: readonly string[],
  limits: readonly number[],
): void {
  const mismatches: string[] = [];
  for (const query of queries) {
    for (const limit of limits) {
      const expected = reference.search(query, limit);
      const actual = index.search(query, limit);
      // Same objects (the gateway reads tool_path and server_name from them) and bit-identical scores.
      const same =
        actual.length === expected.length &&
        actual.every((result, i) => result.tool === expected[i]?.tool && Object.is(result.score, expected[i]?.score));
      if (!same) {
        mismatches.push(
          `${JSON.stringify(query)} limit ${limit}: expected ${JSON.stringify(rows(expected, tools))}, got ${JSON.stringify(rows(actual, tools))}`,
        );
      }
    }
  }
  expect(mismatches.slice(0, 5), `${mismatches.length} mismatches`).toEqual([]);
}

/**
 * A catalogue with what makes ties and shared texts: the same server installed twice (same names and
 * descriptions, other slug), exact duplicates, blank and whitespace descriptions, letters whose lowercase
 * is longer than themselves.
 */
function catalogueWithDuplicates(): SearchableTool[] {
  const base = generateToolCorpus(360, 3);
  const reinstalled = base.slice(0, 60).map((tool) => ({
    ...tool,
    tool_path: `${tool.server_slug}-copy:${tool.name}`,
    server_slug: `${tool.server_slug}-copy`,
    server_name: `${tool.server_slug}-copy`,
  }));
  const duplicates = base.slice(100, 120).map((tool) => ({ ...tool }));
  const odd: SearchableTool[] = [
    { ...(base[0] as SearchableTool), name: 'blank_description', description: '' },
    { ...(base[1] as SearchableTool), name: 'spaces_description', description: '   \t ' },
    { ...(base[2] as SearchableTool), name: 'İSTANBUL_ROUTE', description: 'İstanbul İzmir route planner' },
    { ...(base[3] as SearchableTool), name: 'aa', description: 'aa', server_slug: 'aa' },
    { ...(base[4] as SearchableTool), name: 'x', description: 'x', server_slug: 'x' },
    { ...(base[5] as SearchableTool), name: 'read_file', description: 'read_file', server_slug: 'read_file' },
  ];
  return [...base.slice(0, 200), ...reinstalled, ...odd, ...base.slice(200), ...duplicates];
}

/** Queries of every shape an operator or an agent sends, written out so each one is visible. */
const handPicked = [
  // single words, typos, prefixes
  'file',
  'issue',
  'repository',
  'flie',
  'isuse',
  'reposotory',
  'databse',
  'pyment',
  'fi',
  'rep',
  'crea',
  'list_',
  // several words
  'read file',
  'create github issue',
  'send slack message',
  'list all files in directory',
  'pull request merge',
  // every operator, alone and together
  '=read_file',
  '="read_file"',
  "'file",
  '\'"pull request"',
  '^list',
  '^"list_"',
  'files$',
  '"the bucket."$',
  '!file',
  '!^list',
  '!"file"$',
  '!files$',
  '!"read file"',
  'file !directory',
  "^read 'file",
  'slack | teams',
  'read_file | =aa',
  '^get !issue | ^list !issue',
  'a\\|b',
  "'file 'read | ^write",
  'x |',
  '| x',
  '||',
  // very short, empty, blank
  'a',
  'x',
  'é',
  '日',
  'aa',
  'xx',
  '  ',
  '',
  ' ',
  '"',
  "'",
  '=',
  '^',
  '$',
  '!',
  '!^',
  '""',
  '\'""',
  'a\tb',
  'a\nb',
  '\u0000',
  'ee',
  'ss',
  'ii',
  // longer than Bitap's 32 units
  'read the complete contents of a file from the file system',
  'x'.repeat(33),
  'abcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz',
  `=${'y'.repeat(40)}`,
  `'${'the '.repeat(12)}`,
  // unicode
  'café',
  'résumé',
  'straße',
  'STRASSE',
  'İstanbul',
  'istanbul',
  'ıı',
  '日本語',
  '検索します',
  '🚀',
  '🚀 rocket',
  'ελληνικά',
  'ΕΛΛΗΝΙΚΆ',
];

describe('createToolSearchIndex', () => {
  const tools = catalogueWithDuplicates();
  const reference = createFuseToolSearch();
  reference.setTools(tools);
  const index = createToolSearchIndex();
  index.setTools(tools);
  // Scoring one candidate first makes the bound-based stopping rule decide nearly every search.
  const eager = createToolSearchIndex({ firstBatchSize: 1 });
  eager.setTools(tools);

  it('equals plain Fuse.js on hand-picked queries of every shape, at limits 1, 10 and 100', () => {
    expectSameAsReference(index, reference, tools, [...handPicked, ...realisticQueries], [1, 10, 100]);
    expectSameAsReference(eager, reference, tools, [...handPicked, ...realisticQueries], [1, 10]);
  }, 60_000);

  it('equals plain Fuse.js on generated queries', () => {
    const queries = generateSearchQueries(tools, 350, 5);
    expectSameAsReference(index, reference, tools, queries, [1, 10, 100]);
    expectSameAsReference(eager, reference, tools, queries, [1]);
  }, 60_000);

  it('equals plain Fuse.js on random strings of operators, quotes, spaces and unicode', () => {
    const random = createRandom(99);
    const pieces = [...'abcdefilnorstu_- \'"^$!|=\\éüİ日🚀', 'file', 'read', 'the', 'issue', '  '];
    const queries: string[] = [];
    for (let i = 0; i < 250; i++) {
      let query = '';
      for (let n = random.int(14); n > 0; n--) query += random.pick(pieces);
      queries.push(query);
    }
    expectSameAsReference(index, reference, tools, queries, [1, 10, 100]);
  }, 60_000);

  it('equals plain Fuse.js for limits Fuse treats specially', () => {
    expectSameAsReference(index, reference, tools, ['file', 'read file', '!file', ''], [0, -1, 3.5, 1000]);
  });

  it('equals plain Fuse.js on a larger catalogue, where most matches are never scored by Fuse', () => {
    const large = generateToolCorpus(3000, 17);
    const largeReference = createFuseToolSearch();
    largeReference.setTools(large);
    const queries = [...realisticQueries, 'the', 'e', 'ee', 'data'];
    for (const largeIndex of [createToolSearchIndex(), createToolSearchIndex({ firstBatchSize: 1 })]) {
      largeIndex.setTools(large);
      expectSameAsReference(largeIndex, largeReference, large, queries, [1, 10]);
    }
  }, 60_000);

  it('answers an empty catalogue with nothing', () => {
    const empty = createToolSearchIndex();
    empty.setTools([]);
    expect(empty.search('file', 10)).toEqual([]);
    expect(empty.search('', 10)).toEqual([]);
  });

  it('stays equal to plain Fuse.js across many different tool lists, which forces it to start afresh', () => {
    const changing = createToolSearchIndex();
    let kept = generateToolCorpus(400, 30);
    for (let seed = 31; seed < 39; seed++) {
      // Half the tools stay (same objects), half are new: both the reuse and the rebuild paths run.
      kept = [...kept.slice(200), ...generateToolCorpus(200, seed)];
      changing.setTools(kept);
      const listReference = createFuseToolSearch();
      listReference.setTools(kept);
      expectSameAsReference(
        changing,
        listReference,
        kept,
        ['file', 'read issue', '^list', 'ee', 'slack | teams'],
        [10],
      );
    }
  }, 60_000);

  it('follows the tool list when it changes', () => {
    const changing = createToolSearchIndex();
    const first = generateToolCorpus(120, 8);
    changing.setTools(first);
    changing.search('file', 10);

    const added: SearchableTool = {
      tool_path: 'weather:get_forecast',
      name: 'get_forecast',
      description: 'Forecast the zyxwvut weather',
      server_slug: 'weather',
      server_name: 'weather',
      transport: 'stdio',
    };
    const second = [...first.slice(10), added];
    changing.setTools(second);
    expect(changing.search('zyxwvut', 10).map((result) => result.tool)).toEqual([added]);
    const secondReference = createFuseToolSearch();
    secondReference.setTools(second);
    expectSameAsReference(changing, secondReference, second, ['file', 'zyxwvut', 'get'], [10]);

    // The same array and objects, one description edited in place: the index notices.
    added.description = 'Forecast the qqplorb weather';
    changing.setTools(second);
    expect(changing.search('qqplorb', 10).map((result) => result.tool)).toEqual([added]);
    expect(changing.search('zyxwvut', 10)).toEqual([]);
  });
});
