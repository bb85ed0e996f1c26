import type { z } from 'zod';
import { productionNodeEnv, productionRequirements } from './requireInProduction.ts';

export class ConfigError extends Error {
  readonly variables: readonly string[];
  constructor(problems: readonly { variable: string; problem: string }[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p.variable}: ${p.problem}`).join('\n')}`);
    this.name = 'ConfigError';
    this.variables = problems.map((p) => p.variable);
  }
}

/**
 * Parses environment variables with a zod object schema. The error names each bad or missing
 * variable and what is wrong with it, and never repeats a value (values may be secrets).
 */
export function loadConfig<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  // Empty strings count as unset, as they do in most shells and in Kubernetes env blocks.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const result = schema.safeParse(cleaned);
  const problems = result.success
    ? []
    : result.error.issues.map((issue) => ({
        variable: issue.path.map(String).join('.') || '(environment)',
        problem: issue.code === 'invalid_type' && issue.input === undefined ? 'is required' : describe(issue),
      }));
  if (cleaned.NODE_ENV === productionNodeEnv) {
    for (const variable of productionRequirements(schema)) {
      if (cleaned[variable] === undefined && !problems.some((p) => p.variable === variable)) {
        problems.push({ variable, problem: `is required in production (NODE_ENV=${productionNodeEnv})` });
      }
    }
  }
  if (result.success && problems.length === 0) return result.data;
  throw new ConfigError(problems);
}

function describe(issue: z.core.$ZodIssue): string {
  // zod's messages can quote the received value; build our own from the issue kind instead.
  switch (issue.code) {
    case 'invalid_type':
      return `must be a ${issue.expected}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
      return `is too short or too small (minimum ${String(issue.minimum)})`;
    case 'too_big':
      return `is too long or too large (maximum ${String(issue.maximum)})`;
    case 'invalid_format':
      return `must be a valid ${issue.format}`;
    // Our own refinements' messages: written in the schemas, never built from a value.
    case 'custom':
      return issue.message;
    default:
      return 'is not valid';
  }
}

/** For a process entry point: the parsed config, or the problem list on stderr and exit code 1. */
export function loadConfigOrExit<S extends z.ZodType>(schema: S, env: Record<string, string | undefined>): z.infer<S> {
  try {
    return loadConfig(schema, env);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}
