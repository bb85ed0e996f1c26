import { describe, expect, it } from 'vitest';
import { createFuseToolSearch } from './createFuseToolSearch.ts';
import { testTool as tool } from './testing/testTool.ts';

const tools = [
  tool('github', 'create_issue', 'Open a new issue in a repository'),
  tool('github', 'list_pull_requests', 'List the pull requests of a repository'),
  tool('slack', 'post_message', 'Send a message to a channel'),
  tool('memory', 'read_graph', 'Read the whole knowledge graph'),
];

describe('createFuseToolSearch', () => {
  it('finds a word anywhere in a description, closest match first', () => {
    const search = createFuseToolSearch();
    search.setTools(tools);
    const results = search.search('knowledge', 10);
    expect(results[0]?.tool.tool_path).toBe('memory:read_graph');
    const scores = search.search('repository', 10).map((r) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => a - b));
  });

  it('matches server slugs and honours the limit', () => {
    const search = createFuseToolSearch();
    search.setTools(tools);
    expect(search.search('github', 10).map((r) => r.tool.tool_path)).toEqual(
      expect.arrayContaining(['github:create_issue', 'github:list_pull_requests']),
    );
    expect(search.search('github', 1)).toHaveLength(1);
  });

  it('supports extended search operators and ignores one-character matches', () => {
    const search = createFuseToolSearch();
    search.setTools(tools);
    expect(search.search("'post_message", 10).map((r) => r.tool.tool_path)).toEqual(['slack:post_message']);
    expect(search.search('q', 10)).toEqual([]);
  });

  it('reflects a new tool list', () => {
    const search = createFuseToolSearch();
    search.setTools(tools);
    search.setTools([...tools, tool('jira', 'create_ticket', 'Create a ticket')]);
    expect(search.search('ticket', 10)[0]?.tool.tool_path).toBe('jira:create_ticket');
  });
});
