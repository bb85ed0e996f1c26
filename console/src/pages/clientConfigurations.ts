/**
 * How each MCP client is pointed at a satellite's Streamable HTTP endpoint. `token` is a personal access
 * token, for satellites that authenticate clients and clients that cannot log in themselves; the others
 * (VS Code, Cursor, Claude Code) follow the satellite's OAuth login on first use.
 */
export type ClientConfiguration = { id: string; label: string; where: string; text: string };

const json = (value: unknown) => JSON.stringify(value, null, 2);

export function clientConfigurations(url: string, token: string | null): ClientConfiguration[] {
  const headers = token ? { Authorization: `Bearer ${token}` } : undefined;
  return [
    {
      id: 'vscode',
      label: 'VS Code',
      where: 'Save as .vscode/mcp.json in your workspace (or run “MCP: Add Server…” and choose HTTP).',
      text: json({ servers: { orbital: { type: 'http', url, ...(headers ? { headers } : {}) } } }),
    },
    {
      id: 'cursor',
      label: 'Cursor',
      where: 'Add to ~/.cursor/mcp.json (every project) or .cursor/mcp.json (this project).',
      text: json({ mcpServers: { orbital: { url, ...(headers ? { headers } : {}) } } }),
    },
    {
      id: 'claude-code',
      label: 'Claude Code',
      where: 'Run in a terminal; add --scope project to share it with the repository.',
      text: `claude mcp add --transport http orbital ${url}${token ? ` --header "Authorization: Bearer ${token}"` : ''}`,
    },
    {
      id: 'claude-desktop',
      label: 'Claude Desktop',
      where:
        'Claude Desktop starts local servers from claude_desktop_config.json (Settings → Developer → Edit Config); mcp-remote bridges it to the satellite. With an https address reachable from the internet, Settings → Connectors → Add custom connector works too.',
      text: json({
        mcpServers: {
          orbital: {
            command: 'npx',
            args: ['-y', 'mcp-remote', url, ...(token ? ['--header', `Authorization:Bearer ${token}`] : [])],
          },
        },
      }),
    },
    {
      id: 'sdk',
      label: 'SDK (TypeScript)',
      where: 'npm install @modelcontextprotocol/sdk, then:',
      text: [
        "import { Client } from '@modelcontextprotocol/sdk/client/index.js';",
        "import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';",
        '',
        "const client = new Client({ name: 'my-agent', version: '1.0.0' });",
        `const transport = new StreamableHTTPClientTransport(new URL('${url}')${
          token ? `, {\n  requestInit: { headers: { Authorization: 'Bearer ${token}' } },\n}` : ''
        });`,
        'await client.connect(transport);',
        '',
        '// Two tools: search every installed tool, then run one by its path.',
        "const found = await client.callTool({ name: 'discover_mcp_tools', arguments: { query: 'echo' } });",
        'const result = await client.callTool({',
        "  name: 'execute_mcp_tool',",
        "  arguments: { tool_path: 'everything:echo', arguments: { message: 'hello' } },",
        '});',
        'console.log(found.content, result.content);',
        '',
        '// Ends the session and its connection, so the script exits.',
        'await client.close();',
      ].join('\n'),
    },
  ];
}
