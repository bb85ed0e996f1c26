import ts from 'typescript';
import { type Claim, isTest, placeOf, typeScriptFiles, visit } from '../claim.ts';
import type { Codebase } from '../codebase.ts';

const levels = new Set(['trace', 'debug', 'info', 'warn', 'error', 'fatal']);
const loggers = /^(?:logger|log|request\.log|[a-z]+Logger|[a-z]+Log)$/;
const snakeCase = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

/**
 * "Fields are snake_case wherever they leave a process: ... the fields of log lines (`installation_id`,
 * `duration_ms`), so one search finds a field in every log": every field a log call writes in place is
 * snake_case (pino's own `err` included).
 */
export const logFieldsAreSnakeCase: Claim = {
  name: 'log lines carry snake_case fields',
  check(codebase: Codebase) {
    const problems: string[] = [];
    for (const path of typeScriptFiles(codebase)) {
      if (isTest(path) || !/^(?:libs|services|satellite)\//.test(path)) continue;
      const file = codebase.parse(path);
      visit(file, (node) => {
        if (!ts.isCallExpression(node) || !ts.isPropertyAccessExpression(node.expression)) return;
        if (!levels.has(node.expression.name.text) || !loggers.test(node.expression.expression.getText(file))) return;
        const fields = node.arguments[0];
        if (!fields || !ts.isObjectLiteralExpression(fields)) return;
        for (const property of fields.properties) {
          const name =
            property.name && (ts.isIdentifier(property.name) || ts.isStringLiteral(property.name))
              ? property.name.text
              : null;
          if (name && !snakeCase.test(name))
            problems.push(`${placeOf(file, property)}: log field ${name} is not snake_case`);
        }
      });
    }
    return problems;
  },
};
