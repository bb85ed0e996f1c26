import { slug, type TemplateCreate, type TemplateInput } from '@orbital/contracts';
import { z } from 'zod';

/**
 * The official MCP Registry's `server.json` (the part a catalogue needs), checked as the registry
 * checks it: a reverse-DNS name with one slash, a description of at most 100 characters, exact package
 * versions (no `latest`, no ranges). Unknown fields are allowed: the format grows, and a newer document
 * still imports.
 */
const input = z.object({
  description: z.string().optional(),
  value: z.string().optional(),
  default: z.string().optional(),
  isRequired: z.boolean().optional(),
  isSecret: z.boolean().optional(),
  variables: z
    .record(z.string(), z.object({ default: z.string().optional(), value: z.string().optional() }).loose())
    .optional(),
});
const keyValueInput = input.extend({ name: z.string().min(1).max(200) }).loose();
const argument = z.discriminatedUnion('type', [
  input
    .extend({ type: z.literal('positional'), valueHint: z.string().optional(), isRepeated: z.boolean().optional() })
    .loose()
    .refine(
      (a) => a.value !== undefined || a.valueHint !== undefined,
      'a positional argument needs value or valueHint',
    ),
  input.extend({ type: z.literal('named'), name: z.string().min(1), isRepeated: z.boolean().optional() }).loose(),
]);
const exactVersion = z
  .string()
  .min(1)
  .max(255)
  .refine(
    (v) => v !== 'latest' && !/^[\^~<>=]|[*x]$|\.x\.|\.\*/.test(v),
    'must be an exact version, not latest or a range',
  );
const urlTemplate = z
  .string()
  .regex(/^(https?:\/\/\S+|\{[a-zA-Z_][a-zA-Z0-9_]*\}\S*)$/, 'must start with http://, https:// or a {variable}');

export const serverJsonDocument = z
  .object({
    $schema: z.string().optional(),
    name: z
      .string()
      .min(3)
      .max(200)
      .regex(
        /^[a-zA-Z0-9.-]+\/[a-zA-Z0-9._-]+$/,
        'must be a reverse-DNS name with one slash, like io.github.user/weather',
      ),
    description: z.string().min(1).max(100),
    version: z.string().min(1).max(255),
    title: z.string().min(1).max(100).optional(),
    websiteUrl: z.string().optional(),
    packages: z
      .array(
        z
          .object({
            registryType: z.string().min(1),
            identifier: z.string().min(1),
            version: exactVersion.optional(),
            runtimeHint: z.string().optional(),
            transport: z.object({ type: z.string(), url: z.string().optional() }).loose(),
            runtimeArguments: z.array(argument).optional(),
            packageArguments: z.array(argument).optional(),
            environmentVariables: z.array(keyValueInput).optional(),
          })
          .loose(),
      )
      .optional(),
    remotes: z
      .array(
        z
          .object({
            type: z.enum(['streamable-http', 'sse']),
            url: urlTemplate,
            headers: z.array(keyValueInput).optional(),
            variables: input.shape.variables,
          })
          .loose(),
      )
      .optional(),
  })
  .loose();
export type ServerJsonDocument = z.infer<typeof serverJsonDocument>;

export type ServerJsonProblem = { path: string; message: string };

type Input = z.infer<typeof input>;
type Argument = z.infer<typeof argument>;

/** `{name}` placeholders filled from the document's variables (their value, else their default). */
function fill(text: string, variables: Input['variables']): { text: string; missing: string[] } {
  const missing: string[] = [];
  const filled = text.replace(/\{([a-zA-Z_][a-zA-Z0-9_]*)\}/g, (whole, name: string) => {
    const variable = variables?.[name];
    const value = variable?.value ?? variable?.default;
    if (value === undefined) missing.push(name);
    return value ?? whole;
  });
  return { text: filled, missing };
}

/** Command-line words for arguments; an argument the user must supply becomes an input instead. */
function argumentWords(args: readonly Argument[], inputs: TemplateInput[]): string[] {
  const words: string[] = [];
  for (const arg of args) {
    const given = arg.value ?? arg.default;
    const value = given === undefined ? undefined : fill(given, arg.variables);
    const label = arg.type === 'named' ? arg.name : (arg.valueHint ?? 'argument');
    if (value === undefined || value.missing.length > 0) {
      // A flag without a value stands alone unless the document says it needs one from the user.
      if (arg.type === 'named' && value === undefined && !arg.isRequired) continue;
      inputs.push({
        kind: 'argument',
        name: label,
        description: arg.description ?? null,
        required: arg.isRequired ?? arg.type === 'positional',
        secret: arg.isSecret ?? false,
      });
      continue;
    }
    // The format's named argument is `--flag={value}`.
    words.push(arg.type === 'named' ? `${arg.name}=${value.text}` : value.text);
  }
  return words;
}

/** Name/value pairs with a fixed value; the others (secrets, required without a value) become inputs. */
function pairs(
  items: readonly (Input & { name: string })[],
  kind: 'env' | 'header',
  inputs: TemplateInput[],
): Record<string, string> {
  const values: Record<string, string> = {};
  for (const item of items) {
    const given = item.value ?? (item.isSecret ? undefined : item.default);
    const value = given === undefined ? undefined : fill(given, item.variables);
    if (value === undefined || value.missing.length > 0 || item.isSecret) {
      inputs.push({
        kind,
        name: item.name,
        description: item.description ?? null,
        required: item.isRequired ?? false,
        secret: item.isSecret ?? false,
      });
      continue;
    }
    values[item.name] = value.text;
  }
  return values;
}

/** How each package registry runs a package over stdio: the command, and the words that name the package. */
const runners: Record<
  string,
  { command: string; defaultRuntimeArgs: string[]; spec: (id: string, v?: string) => string }
> = {
  npm: { command: 'npx', defaultRuntimeArgs: ['-y'], spec: (id, v) => (v ? `${id}@${v}` : id) },
  pypi: { command: 'uvx', defaultRuntimeArgs: [], spec: (id, v) => (v ? `${id}==${v}` : id) },
  oci: {
    command: 'docker',
    defaultRuntimeArgs: ['run', '-i', '--rm'],
    spec: (id, v) => (v && !id.includes(':') ? `${id}:${v}` : id),
  },
};

/** The slug a document gets by default: the last part of its name, lowercased, other characters as `-`. */
export function slugFromServerName(name: string): string {
  return (name.split('/').at(-1) ?? name)
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '')
    .slice(0, 64);
}

/**
 * A catalogue template from a server.json document: its first package a satellite can run over stdio
 * (npm through npx, PyPI through uvx, OCI through docker), else its first remote (Streamable HTTP or
 * SSE). Fixed values go into the template; what the document leaves to the user is listed as inputs
 * each installation provides (environment variables, arguments, headers). Problems are named by path.
 */
export function templateFromServerJson(
  document: ServerJsonDocument,
  options: { slug?: string } = {},
): { template: TemplateCreate; inputs: TemplateInput[] } | { problems: ServerJsonProblem[] } {
  const chosenSlug = options.slug ?? slugFromServerName(document.name);
  if (!slug.safeParse(chosenSlug).success) {
    return { problems: [{ path: 'slug', message: `"${chosenSlug}" is not a usable slug: give one` }] };
  }
  const base = { slug: chosenSlug, name: document.title ?? document.name, description: document.description };
  const inputs: TemplateInput[] = [];
  const packages = document.packages ?? [];
  const index = packages.findIndex((p) => runners[p.registryType] && p.transport.type === 'stdio');
  const runnable = packages[index];
  if (runnable) {
    const runner = runners[runnable.registryType] as (typeof runners)[string];
    const runtimeArgs = runnable.runtimeArguments
      ? argumentWords(runnable.runtimeArguments, inputs)
      : runner.defaultRuntimeArgs;
    const packageWords = argumentWords(runnable.packageArguments ?? [], inputs);
    const env = pairs(runnable.environmentVariables ?? [], 'env', inputs);
    // A container sees only the variables passed to it by name.
    const passEnv =
      runnable.registryType === 'oci' ? (runnable.environmentVariables ?? []).flatMap((v) => ['-e', v.name]) : [];
    return {
      template: {
        ...base,
        transport: 'stdio',
        command: runner.command,
        args: [...runtimeArgs, ...passEnv, runner.spec(runnable.identifier, runnable.version), ...packageWords],
        env,
      },
      inputs,
    };
  }
  const remote = document.remotes?.[0];
  if (remote) {
    const url = fill(remote.url, remote.variables);
    if (url.missing.length > 0) {
      return {
        problems: [{ path: 'server.remotes.0.url', message: `needs a value for ${url.missing.join(', ')}` }],
      };
    }
    if (!z.url().safeParse(url.text).success) {
      return { problems: [{ path: 'server.remotes.0.url', message: 'is not a URL once its variables are filled' }] };
    }
    return {
      template: {
        ...base,
        transport: remote.type === 'sse' ? 'sse' : 'http',
        url: url.text,
        headers: pairs(remote.headers ?? [], 'header', inputs),
      },
      inputs,
    };
  }
  const kinds = [...new Set(packages.map((p) => `${p.registryType} (${p.transport.type})`))];
  return {
    problems: [
      {
        path: 'server',
        message:
          kinds.length > 0
            ? `no package a satellite can run: ${kinds.join(', ')}; supported are npm, pypi and oci over stdio, or a remote`
            : 'the document has neither packages nor remotes',
      },
    ],
  };
}
