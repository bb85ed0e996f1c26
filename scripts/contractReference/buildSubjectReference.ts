import {
  requestersOf,
  type ServiceName,
  type SubjectAccess,
  type SubjectDef,
  servedBy,
  serviceNames,
  subjectCatalogue,
  type UserAccess,
} from '@orbital/contracts';
import { z } from 'zod';

type Schema = {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  oneOf?: Schema[];
  allOf?: Schema[];
  format?: string;
  $ref?: string;
  description?: string;
  definitions?: Record<string, Schema>;
};

const literal = (value: unknown) => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value));

/**
 * A JSON Schema as a short type in TypeScript's notation: readable at a glance, and close enough to the
 * code that a reader recognises the schema. Constraints (lengths, patterns) are left to the code.
 */
function typeOf(schema: Schema, indent: string): string {
  if (schema.$ref) return schema.$ref.split('/').pop() ?? 'unknown';
  if (schema.const !== undefined) return literal(schema.const);
  if (schema.enum) return schema.enum.map(literal).join(' | ');
  const union = schema.anyOf ?? schema.oneOf;
  if (union) return union.map((member) => typeOf(member, indent)).join(' | ');
  if (schema.allOf) return schema.allOf.map((member) => typeOf(member, indent)).join(' & ');
  if (Array.isArray(schema.type)) return schema.type.join(' | ');
  switch (schema.type) {
    case 'array':
      return `Array<${schema.items ? typeOf(schema.items, indent) : 'unknown'}>`;
    case 'object':
      return objectOf(schema, indent);
    case 'integer':
      return 'integer';
    case 'string':
      return schema.format ? `string (${schema.format})` : 'string';
    case undefined:
      return 'unknown';
    default:
      return schema.type;
  }
}

function objectOf(schema: Schema, indent: string): string {
  const entries = Object.entries(schema.properties ?? {});
  const extra = schema.additionalProperties;
  if (!entries.length) {
    return extra && typeof extra === 'object' ? `Record<string, ${typeOf(extra, indent)}>` : '{}';
  }
  const inner = `${indent}  `;
  const required = new Set(schema.required ?? []);
  const lines = entries.map(([name, property]) => {
    const note = property.description ? ` // ${property.description.replace(/\s+/g, ' ')}` : '';
    return `${inner}${name}${required.has(name) ? '' : '?'}: ${typeOf(property, inner)};${note}`;
  });
  return `{\n${lines.join('\n')}\n${indent}}`;
}

function typeBlock(schema: z.ZodType, io: 'input' | 'output'): string {
  const json = z.toJSONSchema(schema, { target: 'draft-7', unrepresentable: 'any', io }) as Schema;
  const named = Object.entries(json.definitions ?? {}).map(([name, def]) => `type ${name} = ${typeOf(def, '')};`);
  return ['```text', ...named, typeOf(json, ''), '```'].join('\n');
}

function userAccessText(users: UserAccess): string {
  switch (users.kind) {
    case 'signed_in':
      return 'any signed-in user (the handler narrows to their teams)';
    case 'global':
      return `users with \`${users.permission}\``;
    case 'team': {
      const without =
        users.without_team === undefined
          ? ''
          : users.without_team === 'signed_in'
            ? '; without a team, any signed-in user (narrowed to their teams)'
            : `; without a team, users with \`${users.without_team}\``;
      return `users with \`${users.permission}\` in the team at \`${users.team}\`${without}`;
    }
    case 'record_team':
      return `users with \`${users.permission}\` in the team of the stored record${
        users.seen_with ? ` (seen with \`${users.seen_with}\`)` : ''
      }`;
    case 'member':
      return `members of the team at \`${users.team}\`, any role`;
  }
}

/** Who may call, in words, one entry per kind of caller. */
function accessText(access: SubjectAccess): string[] {
  const lines: string[] = [];
  if (access.public) lines.push('anyone, without a credential');
  if (access.users) lines.push(userAccessText(access.users));
  if (access.satellite) lines.push(`a satellite on its own id, at \`${access.satellite.field}\``);
  if (access.services?.length) lines.push(`platform processes: ${access.services.map((s) => `\`${s}\``).join(', ')}`);
  return lines;
}

/** A Markdown table with its columns padded, as the repository's formatter writes tables. */
function table(header: string[], rows: string[][]): string[] {
  const widths = header.map((cell, i) => Math.max(cell.length, ...rows.map((row) => row[i]?.length ?? 0)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)];
}

const anchorOf = (subject: string) => subject.replace(/[^a-z0-9_-]/g, '');

function subjectSection(def: SubjectDef): string {
  const access = accessText(def.access);
  return [
    `### \`${def.subject}\``,
    '',
    def.description,
    '',
    `- Answered by: \`${servedBy(def)}\` (queue group \`${def.service}\`)`,
    `- Requested by: ${requestersOf(def.access)
      .map((p) => `\`${p}\``)
      .join(', ')}`,
    access.length === 1 ? `- Who may call: ${access[0]}` : '- Who may call:',
    ...(access.length > 1 ? access.map((line) => `  - ${line}`) : []),
    '',
    'Request:',
    '',
    typeBlock(def.request, 'input'),
    '',
    'Reply (`data` of `{ok: true, data}`):',
    '',
    typeBlock(def.reply, 'output'),
  ].join('\n');
}

/**
 * The reference of every request/reply subject, in Markdown, built from the contract catalogue so it
 * cannot drift from the code (`npm run docs:contracts` writes docs/subjects.md; a test fails when the
 * checked-in file is stale). The events and broadcasts are in the AsyncAPI document beside it.
 */
export function buildSubjectReference(): string {
  const byService = new Map<ServiceName, SubjectDef[]>(serviceNames.map((name) => [name, []]));
  for (const def of subjectCatalogue) byService.get(def.service)?.push(def);
  const sections: string[] = [
    '# Request/reply subjects',
    '',
    'Generated from the contract catalogue in `libs/contracts` by `npm run docs:contracts`; do not edit by',
    'hand. Subjects are shown without the deployment prefix (`NATS_SUBJECT_PREFIX`). Every request carries',
    "the caller's identity and a request id in headers; every reply is `{ok: true, data}` or",
    '`{ok: false, error: {code, message, details?}}`. `bus.serve` checks the request, the access below and',
    'the reply. Events and broadcasts are in [`asyncapi.json`](asyncapi.json).',
    '',
    ...table(
      ['Subject', 'Answered by', 'Who may call'],
      subjectCatalogue.map((def) => [
        `[\`${def.subject}\`](#${anchorOf(def.subject)})`,
        `\`${servedBy(def)}\``,
        accessText(def.access).join('; '),
      ]),
    ),
  ];
  for (const [service, defs] of byService) {
    if (!defs.length) continue;
    sections.push('', `## \`${service}\``);
    for (const def of defs) sections.push('', subjectSection(def));
  }
  return `${sections.join('\n')}\n`;
}
