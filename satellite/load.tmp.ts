import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const [port, era, n] = [process.argv[2], process.argv[3], Number(process.argv[4] ?? 3000)];
const c = new Client(
  { name: 'l', version: '1' },
  era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
);
await c.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
const t = performance.now();
for (let i = 0; i < n; i++)
  await c.callTool({
    name: 'execute_mcp_tool',
    arguments: { tool_path: 'everything:echo', arguments: { message: `m${i}` } },
  });
console.log(era, n, ((n / (performance.now() - t)) * 1000).toFixed(0), 'calls/s');
await c.close();
process.exit(0);
