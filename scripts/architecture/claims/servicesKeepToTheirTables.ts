import { type Claim, isTest } from '../claim.ts';
import type { Codebase } from '../codebase.ts';

const schemaComment = /COMMENT ON SCHEMA (\w+)/;
const qualified = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+(\w+)\.(\w+)/g;

/**
 * "A service never reads another service's tables" and "PostgreSQL holds one schema per owning service
 * (`settings`, `identity`, ...)": each service with migrations owns the one schema its first migration
 * names, the document lists exactly those schemas, and a service's own code names no table of another
 * schema (its queries run with its schema on the search path; its tests may look anywhere).
 */
export const servicesKeepToTheirTables: Claim = {
  name: "a service never reads another service's tables",
  check(codebase: Codebase) {
    const problems: string[] = [];
    const owners = new Map<string, string>();
    for (const path of codebase.paths.filter((p) => /^services\/[^/]+\/migrations\/0001_[^/]*\.sql$/.test(p))) {
      const service = path.split('/')[1] as string;
      const schema = schemaComment.exec(codebase.read(path))?.[1];
      if (schema) owners.set(service, schema);
      else problems.push(`${path}: names no schema (COMMENT ON SCHEMA)`);
    }
    const schemas = new Set(owners.values());
    const listed = /PostgreSQL holds one schema per owning service \(([^)]*)\)/.exec(
      codebase.read('docs/architecture.md'),
    );
    const named = new Set([...(listed?.[1] ?? '').matchAll(/`(\w+)`/g)].map((m) => m[1] as string));
    if (!listed) problems.push('docs/architecture.md no longer lists the schemas');
    for (const schema of schemas)
      if (!named.has(schema)) problems.push(`schema ${schema} is not in the document's list`);
    for (const schema of named)
      if (!schemas.has(schema)) problems.push(`the document lists schema ${schema}, which no service owns`);
    for (const path of codebase.paths.filter((p) => /^services\/[^/]+\/src\/.*\.ts$/.test(p) && !isTest(p))) {
      const own = owners.get(path.split('/')[1] as string);
      codebase
        .read(path)
        .split('\n')
        .forEach((line, index) => {
          for (const [, schema, table] of line.matchAll(qualified)) {
            if (schemas.has(schema as string) && schema !== own) {
              problems.push(`${path}:${index + 1}: reads ${schema}.${table}, a table of another service`);
            }
          }
        });
    }
    return problems;
  },
};
