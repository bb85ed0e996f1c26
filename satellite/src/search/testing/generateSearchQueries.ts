import type { SearchableTool } from '../searchableTool.ts';
import { createRandom, type Random } from './createRandom.ts';

/** What a client model typically sends to discover_mcp_tools. */
export const realisticQueries: readonly string[] = [
  'read file',
  'github issue',
  'create issue',
  'send message',
  'slack',
  'database query',
  'sql',
  'list files',
  'search',
  'pull request',
  'email',
  'calendar event',
  'deploy',
  'kubernetes pod logs',
  'upload file to bucket',
  'payment',
  'stripe invoice',
  'weather forecast',
  'screenshot',
  'notion page',
  'jira ticket',
  'create_issue',
  'read_file',
  'postgres',
  'write',
  'delete branch',
  'merge pull request',
  'customer',
  'webhook',
  'fetch url',
  'translate document',
  'summarize thread',
  'alert',
  'dashboard metric',
  'directory',
  'commit',
  'filesystem',
  'memory',
  'spotify playlist',
  'restart container',
  // Operator queries as a person writes them: alternatives, exact names, prefixes, exclusions.
  'read | write',
  'file | directory',
  '^git | ^github',
  'read | write | list | delete',
  "'issue !closed",
  '=read_file',
  '^list',
  'file$',
];

/**
 * A deterministic mix of query shapes: corpus words, typos, prefixes, several words, every extended
 * operator, 1 and 2 character queries, empty and blank queries, queries longer than Bitap's 32
 * characters, and unicode.
 */
export function generateSearchQueries(tools: readonly SearchableTool[], count: number, seed = 7): string[] {
  const random = createRandom(seed);
  const words = collectWords(tools);
  const shapes: ReadonlyArray<() => string> = [
    () => random.pick(words),
    () => typo(random, random.pick(words)),
    () => random.pick(words).slice(0, 2 + random.int(4)),
    () => `${random.pick(words)} ${random.pick(words)}`,
    () => `${typo(random, random.pick(words))} ${random.pick(words)} ${random.pick(words)}`,
    () => random.pick(tools).name,
    () => random.pick(tools).server_slug,
    () => random.pick(tools).description.slice(0, 10 + random.int(60)),
    () => `=${random.pick(tools).name}`,
    () => `'${random.pick(words)}`,
    () => `^${random.pick(words).slice(0, 3)}`,
    () => `${random.pick(words).slice(-3)}$`,
    () => `!${random.pick(words)}`,
    () => `!^${random.pick(words).slice(0, 2)}`,
    () => `!${random.pick(words).slice(-2)}$`,
    () => `${random.pick(words)} | ${random.pick(words)}`,
    () => `'${random.pick(words)} ${random.pick(words)}`,
    () => `^${random.pick(words).slice(0, 3)} !${random.pick(words)}`,
    () => `="${random.pick(tools).description}"`,
    () => `'"${random.pick(words)} ${random.pick(words)}"`,
    () => `${random.pick(words)} \\| ${random.pick(words)}`,
    () => random.pick(words).charAt(0),
    () => random.pick(words).slice(0, 2),
    () => random.pick(['', ' ', '   ', '|', ' | ', '"', "'", '=', '^', '$', '!', '!^', '""', '\'""', 'a\tb']),
    () => random.pick(tools).description.slice(0, 33 + random.int(60)),
    () => `${random.pick(words)}${random.pick(words)}${random.pick(words)}${random.pick(words)}${random.pick(words)}`,
    () =>
      random.pick([
        'café',
        'résumé',
        '日本語',
        '検索',
        '🚀',
        'straße',
        'größe',
        'istanbul',
        'ıı',
        'İstanbul',
        'ελληνικά',
      ]),
    () => randomText(random, 1 + random.int(12)),
    () => random.pick(realisticQueries),
    () => random.pick(realisticQueries).toUpperCase(),
  ];
  const queries: string[] = [];
  for (let i = 0; i < count; i++) queries.push(random.pick(shapes)());
  return queries;
}

function collectWords(tools: readonly SearchableTool[]): string[] {
  const words = new Set<string>();
  for (const tool of tools.slice(0, 2000)) {
    for (const text of [tool.name, tool.description, tool.server_slug]) {
      for (const word of text.split(/[\s.,:;()]+/)) if (word.length >= 2) words.add(word);
    }
  }
  return [...words].sort();
}

function typo(random: Random, word: string): string {
  if (word.length < 2) return word;
  const at = random.int(word.length);
  const letter = String.fromCharCode(97 + random.int(26));
  switch (random.int(4)) {
    case 0:
      return word.slice(0, at) + word.slice(at + 1);
    case 1:
      return word.slice(0, at) + letter + word.slice(at);
    case 2:
      return word.slice(0, at) + letter + word.slice(at + 1);
    default:
      return at + 1 < word.length ? word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2) : word;
  }
}

function randomText(random: Random, length: number): string {
  const alphabet = 'abcdeilnorstu_- \'"^$!|=éü日🚀';
  let text = '';
  for (let i = 0; i < length; i++) text += random.pick([...alphabet]);
  return text;
}
