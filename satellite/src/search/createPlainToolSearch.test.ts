import { describe, expect, it } from 'vitest';
import { createPlainToolSearch } from './createPlainToolSearch.ts';
import type { SearchableTool } from './searchableTool.ts';
import { testTool as tool } from './testing/testTool.ts';

const tools = [
  tool('files', 'create_directory', 'Create a new directory or ensure a directory exists.', { path: {} }),
  tool('files', 'write_file', 'Create a new file or overwrite an existing file with new content.', {
    path: {},
    content: {},
  }),
  tool('files', 'move_file', 'Move or rename files and directories.', { source: {}, destination: {} }),
  tool('demo', 'get-sum', 'Returns the sum of two numbers', { a: { description: 'First number' }, b: {} }),
  tool('demo', 'get-tiny-image', 'Returns a tiny MCP logo image.'),
  tool('notes', 'add_observations', 'Add new observations to existing entities'),
  tool('weather', 'getForecast', 'Daily outlook for a place', { city: { description: 'Name of the city' } }),
];

/** A search over `list` alone. */
function searchOver(list: readonly SearchableTool[]) {
  const search = createPlainToolSearch();
  search.setTools(list);
  return search;
}

function paths(search: ReturnType<typeof createPlainToolSearch>, query: string, limit = 3): string[] {
  return search.search(query, limit).map((result) => result.tool.tool_path);
}

describe('createPlainToolSearch', () => {
  const search = searchOver(tools);

  it('ranks by words, whatever their form or the seams of a tool name', () => {
    expect(paths(search, 'renaming some directories')[0]).toBe('files:move_file');
    expect(paths(search, 'get forecast')[0]).toBe('weather:getForecast');
    expect(paths(search, 'write_file')[0]).toBe('files:write_file');
  });

  it('finds tools described in other words, through WordNet', () => {
    expect(paths(search, 'show me a small picture')[0]).toBe('demo:get-tiny-image');
    expect(paths(search, 'total of two numbers')[0]).toBe('demo:get-sum');
  });

  // Each over a few tools of its own: the first result of each query.
  it.each([
    {
      rule: 'reads words as software people use them, through its vocabulary',
      own: [
        tool('notes', 'delete_note', 'Delete a note by its title.'),
        tool('files', 'remove_directory', 'Remove an empty directory.'),
        tool('files', 'list_directory', 'List the entries of a directory.'),
      ],
      first: { 'delete the folder': 'files:remove_directory', 'list a folder': 'files:list_directory' },
    },
    {
      rule: "weighs a description's first sentence, which says what the tool does, above the rest",
      own: [
        tool('desk', 'list_tickets', 'Lists open support tickets. Tickets about invoices are tagged billing.'),
        tool('books', 'send_reminders', 'Sends reminders about invoices. Reminders go to the billing contact.'),
      ],
      first: { invoices: 'books:send_reminders' },
    },
  ])('$rule', ({ own, first }) => {
    const ownSearch = searchOver(own);
    for (const [query, path] of Object.entries(first)) expect(paths(ownSearch, query)[0], query).toBe(path);
  });

  it('lifts the tools of the server the request is about', () => {
    const routed = searchOver([
      tool('shop', 'search', 'Search items.'),
      tool('shop', 'add_to_cart', 'Put a product in the basket.'),
      tool('git', 'search', 'Search items.'),
      tool('git', 'commit', 'Record changes to the repository.'),
      tool('git', 'log', 'Show the commit history of the repository.'),
    ]);
    const ranked = paths(routed, 'search the repository', 5);
    expect(ranked.indexOf('git:search')).toBeLessThan(ranked.indexOf('shop:search'));
  });

  it("reads the catalogue's title and description of a server, which lift its tools", () => {
    const desk = { server_title: 'Helpdesk', server_description: 'Customer support tickets and their replies.' };
    const described = searchOver([
      tool('notes', 'create_item', 'Create an item.'),
      { ...tool('zd', 'create_item', 'Create an item.'), ...desk },
      tool('notes', 'list_items', 'List the items.'),
      { ...tool('zd', 'list_items', 'List the items.'), ...desk },
    ]);
    // Nothing but the server's description tells the two servers' tools apart.
    expect(paths(described, 'create a support ticket', 1)).toEqual(['zd:create_item']);
    expect(paths(described, 'helpdesk items', 1)).toEqual(['zd:list_items']);
    expect(paths(described, 'create an item', 1)).toEqual(['notes:create_item']);
  });

  it('reads input schema property names and descriptions', () => {
    expect(paths(search, 'which city')[0]).toBe('weather:getForecast');
  });

  it('tolerates typos in words no tool holds, and not in words some tool holds', () => {
    expect(paths(search, 'creat a new directry')[0]).toBe('files:create_directory');
    expect(paths(search, 'zzqxjv')).toEqual([]);
  });

  it('ranks a pasted paragraph by its first 32 words', () => {
    const letter = (i: number) => String.fromCharCode(97 + i);
    const filler = Array.from({ length: 40 }, (_, i) => `zzq${letter(Math.floor(i / 26))}${letter(i % 26)}`).join(' ');
    expect(paths(search, `rename files ${filler}`)[0]).toBe('files:move_file');
    expect(paths(search, `${filler} rename files`)).toEqual([]);
  });

  it('scores in [0, 1], lower is closer, in ranked order', () => {
    const results = search.search('create a new file', 10);
    expect(results.length).toBeGreaterThan(1);
    const scores = results.map((result) => result.score);
    expect(scores).toEqual([...scores].sort((a, b) => a - b));
    for (const score of scores) {
      expect(score).toBeGreaterThanOrEqual(0);
      expect(score).toBeLessThanOrEqual(1);
    }
    expect(search.search('create a new file', 2)).toHaveLength(2);
  });

  it('keeps list order for equal scores and answers nothing for stop words alone', () => {
    const twins = [tool('one', 'echo', 'Echo the input'), tool('two', 'echo', 'Echo the input')];
    const twinSearch = searchOver(twins);
    expect(paths(twinSearch, 'echo', 2)).toEqual(['one:echo', 'two:echo']);
    twinSearch.setTools([...twins].reverse());
    expect(paths(twinSearch, 'echo', 2)).toEqual(['two:echo', 'one:echo']);
    expect(paths(twinSearch, 'the of and')).toEqual([]);
  });

  it('scores equal tools equally after another tool left the list', () => {
    const greeters = ['one', 'two', 'three'].map((server) => tool(server, 'greet', 'Greets someone by name'));
    const search = searchOver(greeters);
    search.setTools([greeters[0], greeters[2]] as SearchableTool[]);
    const results = search.search('greets', 10);
    expect(results.map((r) => r.tool.tool_path)).toEqual(['one:greet', 'three:greet']);
    expect(results[0]?.score).toBe(results[1]?.score);
  });

  it('follows tool list changes: removed tools go, changed ones are re-read, new objects cost nothing', () => {
    const changing = searchOver(tools);
    const [first, ...others] = tools as [SearchableTool, ...SearchableTool[]];
    changing.setTools(others.map((t) => ({ ...t })));
    expect(paths(changing, 'directory exists', 10)).not.toContain('files:create_directory');
    changing.setTools([{ ...first, description: 'Make a folder for a project' }, ...others]);
    expect(paths(changing, 'folder')[0]).toBe('files:create_directory');
    expect(paths(changing, 'ensure exists', 10)).not.toContain('files:create_directory');
  });
});
