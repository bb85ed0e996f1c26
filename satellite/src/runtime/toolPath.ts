/**
 * Tool paths. Clients see `server:tool`; the unified tool cache is keyed by the internal form
 * `server-tool`, the first `:` replaced by `-`. Two different
 * tools can share an internal name (server `a-b` tool `c`, server `a` tool `b-c`); the cache detects
 * that and refuses the name instead of guessing.
 */
export function toolPathOf(serverName: string, toolName: string): string {
  return `${serverName}:${toolName}`;
}

export function internalNameOf(toolPath: string): string | undefined {
  const colon = toolPath.indexOf(':');
  if (colon <= 0 || colon === toolPath.length - 1) return undefined;
  return `${toolPath.slice(0, colon)}-${toolPath.slice(colon + 1)}`;
}
