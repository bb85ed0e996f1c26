-- The remote MCP servers teams ask for, beside the local reference servers: each hosted by its vendor
-- behind OAuth (a person authorizes Orbital for themself on first use), with the URL their documentation
-- gives. None of them is reachable from the project's tests (no network there), so each is marked
-- untested; the OAuth flow they rely on is tested against a local authorization server.
ALTER TABLE mcp_server_templates ADD COLUMN untested boolean NOT NULL DEFAULT false;
ALTER TABLE mcp_server_templates ADD COLUMN documentation_url text;

INSERT INTO mcp_server_templates (slug, name, description, transport, url, oauth, untested, documentation_url)
VALUES
  (
    'linear',
    'Linear',
    'Find, create and update Linear issues, projects and comments. Each person authorizes with their Linear account (OAuth, dynamic registration).',
    'http',
    'https://mcp.linear.app/mcp',
    '{"token_scope": "user"}',
    true,
    'https://linear.app/docs/mcp'
  ),
  (
    'notion',
    'Notion',
    'Search, read, create and update pages and databases of a Notion workspace. Each person authorizes with their Notion account (OAuth).',
    'http',
    'https://mcp.notion.com/mcp',
    '{"token_scope": "user"}',
    true,
    'https://developers.notion.com/docs/mcp'
  ),
  (
    'sentry',
    'Sentry',
    'Sentry issues, errors, projects and Seer fixes. Each person authorizes with their Sentry organization (OAuth).',
    'http',
    'https://mcp.sentry.dev/mcp',
    '{"token_scope": "user"}',
    true,
    'https://docs.sentry.io/product/sentry-mcp/'
  ),
  (
    'atlassian',
    'Atlassian (Jira, Confluence, Compass)',
    'Search, summarize, create and update Jira issues and Confluence pages with the person''s own permissions (OAuth 2.1, dynamic registration). A site admin may first have to allow the Atlassian MCP app.',
    'http',
    'https://mcp.atlassian.com/v1/mcp/authv2',
    '{"token_scope": "user"}',
    true,
    'https://support.atlassian.com/rovo/docs/getting-started-with-the-atlassian-remote-mcp-server/'
  ),
  (
    'stripe',
    'Stripe',
    'Stripe customers, payments, subscriptions, invoices and documentation search. Each person authorizes in the Stripe Dashboard (OAuth); an administrator must enable MCP access first.',
    'http',
    'https://mcp.stripe.com',
    '{"token_scope": "user"}',
    true,
    'https://docs.stripe.com/mcp'
  )
ON CONFLICT (slug) DO NOTHING;
