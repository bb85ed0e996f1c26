import { isIP } from 'node:net';
import { oidcRoleMapping, oidcTeamMapping } from '@orbital/contracts';
import { parseBoolean, parseEmail, parseInteger, parseNumber, parseUrl } from '@orbital/settings-client';
import type { z } from 'zod';
import type { SettingDefinition } from '../definitions/settingDefinition.ts';

type Checked = Pick<SettingDefinition, 'type' | 'required' | 'format' | 'options'>;

/** The value to store, or what is wrong with the value in words (never quoting it: it may be a secret). */
export type AcceptedValue = { text: string; problem?: never } | { problem: string; text?: never };

// A DNS name of letters, digits and hyphens in dot-separated labels (RFC 1123), or an IP address.
const hostLabel = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/i;
const isHostName = (text: string) =>
  isIP(text) !== 0 || (text.length <= 253 && text.split('.').every((label) => hostLabel.test(label)));

/**
 * Whether a value written to a setting fits its definition, and the text stored for it. A JSON boolean
 * is accepted for a boolean setting and a JSON number for a number setting (stored as the text typed
 * reads accept); text must be what typed reads of its type and format accept; a required setting is
 * never emptied; an enumeration takes one of its options. A setting without a definition takes any
 * text (a boolean or number sent to one is stored as its text). Checked on every write, so a typo is
 * refused at the field instead of failing a reader later.
 */
export function acceptSettingValue(definition: Checked | undefined, value: string | number | boolean): AcceptedValue {
  if (typeof value !== 'string') {
    if (!definition || definition.type === typeof value) return { text: String(value) };
    return { problem: definition.type === 'string' ? 'must be text' : typeProblem(definition) };
  }
  if (!definition) return { text: value };
  const text = value.trim();
  if (text === '') return definition.required ? { problem: 'is required' } : { text: '' };
  const problem = typeOrFormatProblem(definition, text);
  // Free text is kept as written; anything checked is stored as checked (trimmed).
  const free = definition.type === 'string' && !definition.format && !definition.options;
  return problem ? { problem } : { text: free ? value : text };
}

function typeProblem(definition: Checked): string {
  if (definition.type === 'number') return definition.format === 'port' ? portProblem : 'must be a number';
  return 'must be true or false';
}

const portProblem = 'must be a port number from 1 to 65535';

function typeOrFormatProblem(definition: Checked, text: string): string | null {
  const fails = (check: () => unknown) => {
    try {
      check();
      return false;
    } catch {
      return true;
    }
  };
  if (definition.type === 'number' && fails(() => parseNumber('', text))) return typeProblem(definition);
  if (definition.type === 'boolean' && fails(() => parseBoolean('', text))) return typeProblem(definition);
  if (definition.options && !definition.options.includes(text)) {
    return `must be one of: ${definition.options.join(', ')}`;
  }
  switch (definition.format) {
    case 'url':
      return fails(() => parseUrl('', text)) ? 'must be a URL starting with http:// or https://' : null;
    case 'email':
      return fails(() => parseEmail('', text)) ? 'must be an e-mail address' : null;
    case 'port': {
      const port = fails(() => parseInteger('', text)) ? Number.NaN : Number(text);
      return port >= 1 && port <= 65535 ? null : portProblem;
    }
    case 'hostname':
      return isHostName(text) ? null : 'must be a host name or an IP address, without a scheme or port';
    case 'role_mapping':
      return mappingProblem(oidcRoleMapping, text, 'a JSON object from claim values to global_admin or global_user');
    case 'team_mapping':
      return mappingProblem(oidcTeamMapping, text, 'a JSON object from claim values to "<team slug>[:<team role>]"');
    case undefined:
      return null;
  }
}

/** What is wrong with a claim mapping, naming the entry (claim values are not secrets). */
function mappingProblem(schema: z.ZodType, text: string, expected: string): string | null {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return `must be ${expected}`;
  }
  const issue = schema.safeParse(document).error?.issues[0];
  if (!issue) return null;
  const at = issue.path.length > 0 ? ` (at ${issue.path.map(String).join('.')}: ${issue.message})` : '';
  return `must be ${expected}${at}`;
}
