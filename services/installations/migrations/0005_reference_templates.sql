-- A catalogue on day one: the reference MCP servers published on npm, ready to install. Added once, when
-- the schema is set up; an administrator may change or remove them like any template, and a slug already
-- taken is left alone. Versions are pinned, so every satellite runs the same server; npx finds a copy
-- already installed on the satellite's machine before it downloads one.
INSERT INTO mcp_server_templates (slug, name, description, transport, command, args)
VALUES
  (
    'server-everything',
    'Everything (MCP reference server)',
    'Exercises every MCP feature: echo, add, long-running operations with progress, sampling, resources and prompts. The server to try the platform with.',
    'stdio',
    'npx',
    '["-y", "@modelcontextprotocol/server-everything@2026.8.31", "stdio"]'
  ),
  (
    'server-memory',
    'Memory (knowledge graph)',
    'A knowledge graph of entities, relations and observations that agents keep across sessions. Set MEMORY_FILE_PATH to a file of the installation''s own, so teams do not share one graph.',
    'stdio',
    'npx',
    '["-y", "@modelcontextprotocol/server-memory@2026.8.31"]'
  ),
  (
    'server-filesystem',
    'Filesystem',
    'Reads, writes, searches and edits files within the directories it is given. Add those directories as arguments when installing (for example /srv/shared).',
    'stdio',
    'npx',
    '["-y", "@modelcontextprotocol/server-filesystem@2026.8.31"]'
  ),
  (
    'server-sequential-thinking',
    'Sequential thinking',
    'A tool for step-by-step problem solving: the agent writes, revises and branches a chain of thoughts.',
    'stdio',
    'npx',
    '["-y", "@modelcontextprotocol/server-sequential-thinking@2026.8.31"]'
  )
ON CONFLICT (slug) DO NOTHING;
