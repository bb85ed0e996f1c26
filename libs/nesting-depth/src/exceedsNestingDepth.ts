/**
 * How deep input may nest: an object or array is one level, each container inside it one more. Nothing the
 * platform accepts comes close (a setting, a configuration, an MCP tool's arguments); a body nested
 * thousands deep is an attack on whatever walks it next, since a recursive walk (JSON.stringify, a schema,
 * a logger) overflows the stack at a few thousand levels.
 */
export const maxNestingDepth = 64;

/**
 * Whether a value parsed from JSON nests deeper than `maxDepth` levels (a string or number is level 0,
 * `[]` is 1, `[[1]]` is 2). It keeps its own list of containers still to open instead of calling itself,
 * so it answers for a value of any depth, and it stops at the first container past the limit: its cost is
 * at most one visit of each container within the limit, and no string is read.
 */
export function exceedsNestingDepth(value: unknown, maxDepth: number = maxNestingDepth): boolean {
  if (typeof value !== 'object' || value === null) return false;
  if (maxDepth < 1) return true;
  const pending: object[] = [value];
  const depths: number[] = [1];
  for (let top = pending.pop(); top !== undefined; top = pending.pop()) {
    const inner = (depths.pop() as number) + 1;
    if (Array.isArray(top)) {
      for (let index = 0; index < top.length; index++) {
        const item: unknown = top[index];
        if (typeof item !== 'object' || item === null) continue;
        if (inner > maxDepth) return true;
        pending.push(item);
        depths.push(inner);
      }
      continue;
    }
    for (const key in top) {
      if (!Object.hasOwn(top, key)) continue;
      const item: unknown = (top as Record<string, unknown>)[key];
      if (typeof item !== 'object' || item === null) continue;
      if (inner > maxDepth) return true;
      pending.push(item);
      depths.push(inner);
    }
  }
  return false;
}
