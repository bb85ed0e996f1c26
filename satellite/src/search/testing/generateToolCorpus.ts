import type { SearchableTool } from '../searchableTool.ts';
import { createRandom } from './createRandom.ts';

/**
 * A deterministic catalogue that looks like what teams install: servers named after products, with
 * a numeric suffix when a team runs several, tools named verb_noun, descriptions in the style MCP
 * servers write them. A few descriptions carry accents, CJK text or emoji, and a few are empty, so the
 * search meets what real catalogues hold.
 */
const products = [
  'github',
  'gitlab',
  'filesystem',
  'slack',
  'postgres',
  'mysql',
  'sqlite',
  'notion',
  'linear',
  'jira',
  'confluence',
  'google-drive',
  'gmail',
  'calendar',
  'stripe',
  'shopify',
  'sentry',
  'datadog',
  'grafana',
  'kubernetes',
  'docker',
  'aws-s3',
  'cloudflare',
  'vercel',
  'figma',
  'airtable',
  'hubspot',
  'salesforce',
  'zendesk',
  'twilio',
  'sendgrid',
  'redis',
  'mongodb',
  'elasticsearch',
  'brave-search',
  'fetch',
  'puppeteer',
  'playwright',
  'memory',
  'time',
  'weather',
  'maps',
  'youtube',
  'spotify',
  'discord',
  'teams',
  'dropbox',
  'box',
  'asana',
  'trello',
  'everything',
  'sequential-thinking',
  'obsidian',
  'todoist',
  'pagerduty',
];

const verbs = [
  'get',
  'list',
  'create',
  'update',
  'delete',
  'search',
  'find',
  'read',
  'write',
  'send',
  'fetch',
  'query',
  'run',
  'start',
  'stop',
  'restart',
  'upload',
  'download',
  'move',
  'copy',
  'rename',
  'archive',
  'merge',
  'close',
  'open',
  'add',
  'remove',
  'assign',
  'comment',
  'publish',
  'schedule',
  'cancel',
  'export',
  'import',
  'validate',
  'summarize',
  'translate',
  'analyze',
  'deploy',
  'rollback',
];

const nouns = [
  'file',
  'files',
  'directory',
  'issue',
  'issues',
  'pull_request',
  'branch',
  'commit',
  'repository',
  'message',
  'channel',
  'user',
  'users',
  'table',
  'row',
  'rows',
  'query',
  'database',
  'schema',
  'page',
  'pages',
  'block',
  'document',
  'spreadsheet',
  'event',
  'events',
  'invoice',
  'customer',
  'payment',
  'subscription',
  'product',
  'order',
  'alert',
  'dashboard',
  'metric',
  'log',
  'logs',
  'pod',
  'deployment',
  'container',
  'image',
  'bucket',
  'object',
  'record',
  'contact',
  'ticket',
  'task',
  'project',
  'label',
  'webhook',
  'secret',
  'comment',
  'email',
  'thread',
  'note',
  'playlist',
  'track',
  'video',
  'forecast',
  'location',
  'route',
  'screenshot',
  'url',
];

const qualifiers = [
  'a new',
  'an existing',
  'the specified',
  'all',
  'one or more',
  'the latest',
  'a single',
  'matching',
  'recent',
  'archived',
  'the given',
  'multiple',
];

const places = [
  'in a GitHub repository',
  'from the file system',
  'in the workspace',
  'for the current user',
  'in a Slack channel',
  'from the database',
  'in the project',
  'on the cluster',
  'in the bucket',
  'for the team',
  'from the API',
  'in the calendar',
  'by its identifier',
  'using a SQL query',
  'with pagination support',
  'within allowed directories',
  'in the knowledge base',
  'across all projects',
];

const details = [
  'Returns the result as JSON.',
  'Supports filtering by status and date.',
  'Requires write permission.',
  'Handles large inputs by streaming.',
  'Only works within allowed directories.',
  'Results are sorted by relevance.',
  'Use this when the user asks about recent activity.',
  'Fails if the target does not exist.',
  'Includes metadata such as size and timestamps.',
  'Rate limited to 60 requests per minute.',
  'The response includes a cursor for the next page.',
  'Useful for debugging production incidents.',
];

const unusual = [
  'Résumé café naïve façade — accents everywhere.',
  '日本語のドキュメントを検索します。',
  'Sends a 🚀 rocket notification 🎉 to the channel.',
  'Straße und Größe: deutsche Wörter.',
  'Ελληνικά κείμενα και σύμβολα.',
  'İstanbul ıı Iı — Turkish dotless letters.',
];

export function generateToolCorpus(count: number, seed = 1): SearchableTool[] {
  const random = createRandom(seed);
  const tools: SearchableTool[] = [];
  const seen = new Set<string>();
  let serverCount = 0;
  while (tools.length < count) {
    const product = random.pick(products);
    serverCount++;
    const slug = random.chance(0.6) ? product : `${product}-${random.pick(['prod', 'staging', 'team'])}-${serverCount}`;
    const transport = random.pick(['stdio', 'http', 'sse'] as const);
    const toolCount = 3 + random.int(20);
    for (let t = 0; t < toolCount && tools.length < count; t++) {
      const verb = random.pick(verbs);
      const noun = random.pick(nouns);
      const name = random.chance(0.15) ? `${verb}${capitalise(noun)}` : `${verb}_${noun}`;
      if (seen.has(`${slug}:${name}`)) continue;
      seen.add(`${slug}:${name}`);
      tools.push({
        tool_path: `${slug}:${name}`,
        name,
        description: describe(random, verb, noun, product),
        server_slug: slug,
        server_name: slug,
        transport,
      });
    }
  }
  return tools;
}

function describe(random: ReturnType<typeof createRandom>, verb: string, noun: string, product: string): string {
  if (random.chance(0.01)) return '';
  const sentence = `${capitalise(verb)} ${random.pick(qualifiers)} ${noun.replace('_', ' ')} ${random.pick(places)}.`;
  const parts = [sentence];
  if (random.chance(0.7)) parts.push(random.pick(details));
  if (random.chance(0.3)) parts.push(`Part of the ${product} integration.`);
  if (random.chance(0.02)) parts.push(random.pick(unusual));
  return parts.join(' ');
}

function capitalise(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
