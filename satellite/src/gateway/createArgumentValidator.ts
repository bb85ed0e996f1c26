import { Ajv, type ValidateFunction } from 'ajv';

export type ArgumentCheck = { ok: true } | { ok: false; problems: string[] };

/**
 * Checks a tool's arguments against its input schema before the call leaves the satellite, so a
 * bad call costs no round trip (and no respawn of a dormant server). Compiled validators are kept per
 * schema object; the tool cache hands out the same object until the server's tool list changes.
 */
export function createArgumentValidator() {
  // strict: false because servers publish schemas with keywords Ajv does not know (titles, examples).
  const ajv = new Ajv({ strict: false, allErrors: true, validateFormats: false });
  const compiled = new WeakMap<object, ValidateFunction | null>();
  const compile = (schema: Record<string, unknown>): ValidateFunction | null => {
    if (compiled.has(schema)) return compiled.get(schema) ?? null;
    let validate: ValidateFunction | null;
    try {
      // The `$schema` dialect would need its meta-schema loaded; the keywords are what matter here.
      const { $schema: _dialect, ...rest } = schema;
      validate = ajv.compile(rest);
    } catch {
      // A schema Ajv cannot compile is left to the server to enforce.
      validate = null;
    }
    compiled.set(schema, validate);
    return validate;
  };
  return {
    check(schema: Record<string, unknown>, args: Record<string, unknown>): ArgumentCheck {
      const validate = compile(schema);
      if (!validate || validate(args)) return { ok: true };
      return {
        ok: false,
        problems: (validate.errors ?? []).map(
          (e) => `${e.instancePath || '(arguments)'} ${e.message ?? 'is not valid'}`,
        ),
      };
    },
  };
}
