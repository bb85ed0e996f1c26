import { z } from 'zod';
import { serverToolPolicy, toolPins } from './toolPolicy.ts';

export const mcpTransport = z.enum(['stdio', 'http', 'sse']);
export type McpTransport = z.infer<typeof mcpTransport>;

/** Names usable in a process id and a tool path: lowercase letters, digits, `_` and `-`. */
export const slug = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[a-z0-9][a-z0-9_-]*$/, 'lowercase letters, digits, "_" and "-", starting with a letter or digit');

const stringMap = z.record(z.string(), z.string());

export const installationSettings = z.object({
  /** When true, satellites include tool responses in request-log events and the backend keeps them. */
  request_logging_enabled: z.boolean().default(false),
});
export type InstallationSettings = z.infer<typeof installationSettings>;

/**
 * A remote server behind OAuth: each call carries an access token the satellite asks the backend for
 * (`POST /api/satellites/:id/oauth/token`), the calling person's (`user`) or the team's (`team`), kept in
 * memory only. `authorized`: whether anyone has authorized yet (the tools can be listed), so the first
 * authorization changes the configuration and the satellite connects again.
 */
export const serverOAuth = z.object({ token_scope: z.enum(['user', 'team']), authorized: z.boolean() });
export type ServerOAuth = z.infer<typeof serverOAuth>;

/**
 * What names an installation wherever its configuration travels: in the record the installations
 * service hands the registry and in the merged configuration a satellite runs.
 */
export const installationNaming = {
  installation_id: z.string().min(1),
  /** The installation's name, unique within its team; the server part of tool paths. */
  installation_name: slug,
  team_id: z.string().min(1),
  team_slug: slug,
  /** The template's slug. */
  server_slug: slug,
  transport: mcpTransport,
};

/**
 * What the catalogue says of an installation's server: its template's display name and description.
 * Discovery ranks the server's tools by them too (a request about "issue tracking" finds the tools of a
 * server described so, whatever its slug); absent for a standalone file that leaves them out.
 */
export const serverAbout = {
  server_title: z.string().max(200).optional(),
  server_description: z.string().max(4000).optional(),
};

/**
 * One MCP server as a satellite runs it: the merge of template, team and user levels. The backend distributes a list of these; a standalone
 * satellite reads the same shape from SATELLITE_CONFIG_FILE.
 */
export const serverConfiguration = z
  .object({
    /** `{server_slug}-{team_slug}-{installation_id}`: one process per installation. */
    process_id: z.string().min(1).max(200),
    ...installationNaming,
    ...serverAbout,
    command: z.string().min(1).optional(),
    args: z.array(z.string()).default([]),
    env: stringMap.default({}),
    url: z.url().optional(),
    headers: stringMap.default({}),
    settings: installationSettings.default({ request_logging_enabled: false }),
    oauth: serverOAuth.optional(),
    /** Which tools are off and which need confirmation; left out, every tool runs as its annotations say. */
    tool_policy: serverToolPolicy.optional(),
    /** Approved tool definitions by hash; left out, every listed tool is served (see toolPins). */
    tool_pins: toolPins.optional(),
  })
  .superRefine((server, ctx) => {
    if (server.transport === 'stdio' && !server.command) {
      ctx.addIssue({ code: 'custom', path: ['command'], message: 'a stdio server needs a command' });
    }
    if (server.transport !== 'stdio' && !server.url) {
      ctx.addIssue({ code: 'custom', path: ['url'], message: `an ${server.transport} server needs a url` });
    }
  });
export type ServerConfiguration = z.infer<typeof serverConfiguration>;

/**
 * The global settings a satellite acts on: the registry reads them
 * from the settings service and sends them with every configuration, the satellite keeps the last ones
 * in its settings cache. Defaults are those of the matching `global.*` settings, so a satellite that has
 * not heard from the backend yet acts as a fresh installation would.
 */
/**
 * An OpenAI-compatible model endpoint discovery may call: `url` is the API's base (`http://ollama:11434/v1`,
 * `https://api.example.com/v1`), to which `/embeddings` or `/rerank` is added unless it already ends so.
 */
export const modelEndpoint = z.object({
  url: z.url({ protocol: /^https?$/ }),
  model: z.string().min(1).max(200),
  /** Sent as `Authorization: Bearer <api_key>`; left out for an endpoint that needs none. */
  api_key: z.string().min(1).max(4096).optional(),
});
export type ModelEndpoint = z.infer<typeof modelEndpoint>;

/**
 * Discovery's model of meaning (the `discovery.*` settings): an embeddings endpoint whose vectors are
 * fused with the word ranking, an optional reranker for the first results, and the time limit either
 * may take per discovery call before the word ranking answers alone. Each part left out is off.
 */
export const satelliteDiscoverySettings = z.object({
  embeddings: modelEndpoint.optional(),
  reranker: modelEndpoint.optional(),
  model_timeout_ms: z.number().int().min(10).max(10_000).optional(),
});
export type SatelliteDiscoverySettings = z.infer<typeof satelliteDiscoverySettings>;

export const satelliteGlobalSettings = z.object({
  /** `global.enable_swagger_docs`: whether the satellite serves `/documentation`. */
  enable_swagger_docs: z.boolean().default(true),
  /** `discovery.*`: left out, the satellite uses its own environment's endpoints (or none). */
  discovery: satelliteDiscoverySettings.optional(),
});
export type SatelliteGlobalSettings = z.infer<typeof satelliteGlobalSettings>;

export const satelliteConfiguration = z.object({
  servers: z.array(serverConfiguration),
  /**
   * Optional: a standalone file may leave it out (the satellite then uses its defaults), and the
   * registry leaves it out when the settings service cannot answer, so a satellite keeps what it holds
   * rather than falling back to defaults an administrator may have turned off.
   */
  settings: satelliteGlobalSettings.optional(),
});
export type SatelliteConfiguration = z.infer<typeof satelliteConfiguration>;
