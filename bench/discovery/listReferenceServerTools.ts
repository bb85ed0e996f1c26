import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { SearchableTool } from '../../satellite/src/search/searchableTool.ts';
import { searchableTool } from './loadRetrievalData.ts';

const require = createRequire(import.meta.url);

/** The reference MCP servers the satellite's tests run, by the name their tools are labelled with. */
export const referenceServers: Record<string, (workDir: string) => string[]> = {
  everything: () => [require.resolve('@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
  memory: () => [require.resolve('@modelcontextprotocol/server-memory/dist/index.js')],
  filesystem: (workDir) => [require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js'), workDir],
  'sequential-thinking': () => [require.resolve('@modelcontextprotocol/server-sequential-thinking/dist/index.js')],
};

/** The tools the reference servers report over MCP, schemas and annotations as they give them. */
export async function listReferenceServerTools(): Promise<SearchableTool[]> {
  const workDir = mkdtempSync(join(tmpdir(), 'discovery-reference-'));
  const tools: SearchableTool[] = [];
  try {
    for (const [server, args] of Object.entries(referenceServers)) {
      const client = new Client({ name: 'discovery-bench', version: '1.0.0' });
      await client.connect(
        new StdioClientTransport({ command: process.execPath, args: args(workDir), stderr: 'ignore' }),
      );
      for (const tool of (await client.listTools()).tools) {
        tools.push({
          ...searchableTool(server, tool.name, tool.description ?? '', tool.inputSchema),
          ...(tool.annotations ? { annotations: tool.annotations } : {}),
        });
      }
      await client.close();
    }
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
  return tools;
}
