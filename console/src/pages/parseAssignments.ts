/**
 * How one kind of `name<separator>value` line is written, which names it allows, and whether spaces
 * around the value belong to it (an environment value may start with one; a header value's do not).
 */
export type AssignmentFormat = { separator: string; name: RegExp; shape: string; trimValue: boolean };

/** Environment variables, as shells accept their names: `NAME=value`. */
export const environmentLines: AssignmentFormat = {
  separator: '=',
  name: /^[A-Za-z_][A-Za-z0-9_]*$/,
  shape: 'NAME=value',
  trimValue: false,
};

/** Request headers as a server's documentation shows them: `Name: value`, with the names HTTP allows. */
export const headerLines: AssignmentFormat = {
  separator: ':',
  name: /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/,
  shape: 'Name: value',
  trimValue: true,
};

/** Lines of `format` as a map (blank lines skipped); a line without the separator or with a bad name is an error. */
export function parseAssignments(
  text: string,
  format: AssignmentFormat = environmentLines,
): { values: Record<string, string> } | { error: string } {
  const values: Record<string, string> = {};
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.indexOf(format.separator);
    const name = at > 0 ? line.slice(0, at).trim() : '';
    if (!format.name.test(name)) return { error: `Line ${index + 1} is not ${format.shape}` };
    const value = line.slice(at + format.separator.length);
    values[name] = format.trimValue ? value.trim() : value;
  }
  return { values };
}
