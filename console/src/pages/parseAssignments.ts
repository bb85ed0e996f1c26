/** `NAME=value` lines as a map (blank lines skipped); a line without `=` or a bad name is an error. */
export function parseAssignments(text: string): { values: Record<string, string> } | { error: string } {
  const values: Record<string, string> = {};
  for (const [index, raw] of text.split('\n').entries()) {
    const line = raw.trim();
    if (!line) continue;
    const at = line.indexOf('=');
    const name = at > 0 ? line.slice(0, at).trim() : '';
    if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) return { error: `Line ${index + 1} is not NAME=value` };
    values[name] = line.slice(at + 1);
  }
  return { values };
}
