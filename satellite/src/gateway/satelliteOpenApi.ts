/** The satellite's HTTP surface, served at /documentation when documentation is enabled. */
export const satelliteOpenApi = {
  openapi: '3.1.0',
  info: {
    title: 'Orbital satellite',
    version: '0.1.0',
    description:
      'MCP gateway: JSON-RPC 2.0 over the Streamable HTTP transport at /mcp, with two tools, discover_mcp_tools and execute_mcp_tool.',
  },
  paths: {
    '/': { get: { summary: 'Health check', responses: { '200': { description: 'The satellite is up' } } } },
    '/mcp': {
      post: {
        summary: 'Send JSON-RPC messages; the first is initialize, whose response carries the Mcp-Session-Id header',
        parameters: [{ name: 'Mcp-Session-Id', in: 'header', required: false, schema: { type: 'string' } }],
        responses: {
          '200': { description: 'JSON-RPC response, as an SSE stream' },
          '202': { description: 'Notification accepted' },
          '400': { description: 'No session and not an initialize request' },
          '403': { description: 'Host or Origin not allowed' },
          '404': { description: 'Unknown or expired session: initialize again' },
        },
      },
      get: {
        summary: 'Open the SSE stream of server-to-client messages of a session',
        parameters: [{ name: 'Mcp-Session-Id', in: 'header', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'SSE stream' }, '404': { description: 'Unknown or expired session' } },
      },
      delete: {
        summary: 'End a session',
        parameters: [{ name: 'Mcp-Session-Id', in: 'header', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'Session ended' }, '404': { description: 'Unknown or expired session' } },
      },
    },
  },
} as const;
