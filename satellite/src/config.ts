import { envBoolean, httpTimeoutsEnv, httpTimeoutsProblem, logEnv, port, positiveInt } from '@orbital/config';
import { z } from 'zod';

const list = z.string().transform((text) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean),
);
const nonNegativeInt = z.coerce.number().int().min(0);

/** The satellite's environment. Durations are milliseconds. */
export const satelliteEnv = logEnv.extend({
  PORT: port.default(3001),
  // How long a client may take to send its head and its whole request (libs/config httpTimeouts); a
  // tool call may take as long as it needs once its request is in.
  ...httpTimeoutsEnv.shape,
  // The /metrics, /healthz and /readyz listener, apart from /mcp so a shared satellite's clients never
  // see operators' data; off unless set (the manifests set it).
  METRICS_PORT: port.optional(),
  // 0.0.0.0 inside containers; the Host/Origin check below is what keeps browsers out.
  HOST: z.string().default('127.0.0.1'),
  // Standalone mode: the servers to run, in the shape the backend distributes. Unset: no servers.
  SATELLITE_CONFIG_FILE: z.string().optional(),
  // Host names clients reach the satellite by, besides loopback (DNS-rebinding protection); `*` for any.
  SATELLITE_ALLOWED_HOSTS: list.default([]),
  // Browser origins allowed to call /mcp, besides loopback pages; `*` for any.
  SATELLITE_ALLOWED_ORIGINS: list.default([]),
  // Team of a team satellite: carried in client events. Unset for a global satellite.
  SATELLITE_TEAM_ID: z.string().min(1).optional(),
  // global serves every team, team serves SATELLITE_TEAM_ID only. Unset: team when SATELLITE_TEAM_ID
  // is set, global otherwise (satelliteTypeOf).
  SATELLITE_TYPE: z.enum(['global', 'team']).optional(),
  // Client authentication at /mcp. none: today's behaviour, for a team satellite on a private network;
  // oauth: every request carries a bearer token of the backend, verified by introspection, and sees
  // only its team's tools.
  SATELLITE_AUTH_MODE: z.enum(['none', 'oauth']).default('none'),
  // A global satellite without authentication lets any client run any team's tools: it refuses to
  // start unless this says the operator means it.
  SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL: envBoolean.default(false),
  // oauth: the URL clients use for /mcp, the resource identifier tokens are issued for (RFC 8707).
  // Backend mode: sent at registration and in the first heartbeat, as the satellite's public URL.
  SATELLITE_PUBLIC_URL: z.url().optional(),
  // oauth: the backend's public base URL, named as authorization server in the resource metadata.
  SATELLITE_AUTH_SERVER_URL: z.url().optional(),
  // oauth: where the satellite introspects tokens, when it reaches the backend by another address.
  SATELLITE_INTROSPECTION_URL: z.url().optional(),
  // How long an introspection answer is trusted: a revoked token is refused at the latest this long after.
  SATELLITE_INTROSPECTION_CACHE_TTL_MS: positiveInt.default(30 * 1000),
  // The satellite's default for global.enable_swagger_docs (/documentation): used in standalone mode
  // unless the configuration file has settings, and in backend mode until the first configuration.
  SATELLITE_ENABLE_DOCS: envBoolean.default(true),
  // Discovery by meaning, when neither the backend nor the standalone file names an endpoint (their
  // `discovery` settings win): an OpenAI-compatible embeddings API's base URL (http://ollama:11434/v1)
  // and model, with its key if it needs one. Unset: the word ranking alone.
  SATELLITE_EMBEDDINGS_URL: z.url({ protocol: /^https?$/ }).optional(),
  SATELLITE_EMBEDDINGS_MODEL: z.string().min(1).max(200).optional(),
  // Also used for an endpoint the backend names without a key: team satellites never receive the
  // platform's keys, so a team operator gives the key of their own account here.
  SATELLITE_EMBEDDINGS_API_KEY: z.string().min(1).optional(),
  // An optional reranker (POST /rerank, the Cohere / Jina / vLLM shape) for the first 20 results.
  SATELLITE_RERANKER_URL: z.url({ protocol: /^https?$/ }).optional(),
  SATELLITE_RERANKER_MODEL: z.string().min(1).max(200).optional(),
  SATELLITE_RERANKER_API_KEY: z.string().min(1).optional(),
  // The most one discovery call waits for the endpoints (embedding and reranking together) before it
  // answers from the word ranking; a failed endpoint is then rested for 2 s, doubling up to a minute.
  SATELLITE_DISCOVERY_MODEL_TIMEOUT_MS: positiveInt.min(10).max(10_000).default(300),
  // Sessions end after 30 minutes without a message, freeing what an abandoned client held.
  SESSION_IDLE_TIMEOUT_MS: positiveInt.default(30 * 60 * 1000),
  SESSION_SWEEP_INTERVAL_MS: positiveInt.default(60 * 1000),
  // 2026-07-28 clients open no session: the recent clients list follows each (identity and clientInfo)
  // until it is idle for SESSION_IDLE_TIMEOUT_MS; at most this many at once, so varying clientInfo
  // cannot grow the satellite's memory (one is a few hundred bytes, up to about 2.5 KB).
  SESSIONLESS_CLIENTS_MAX: positiveInt.default(2000),
  // On a global satellite, the most of those places one team's clients take, so one team's users varying
  // clientInfo cannot hide every other team's clients. A team satellite serves one team: it has them all.
  SESSIONLESS_CLIENTS_PER_TEAM_MAX: positiveInt.default(200),
  // A 2026-07-28 client asked for input during a call (elicitation, sampling, roots) has this long to
  // retry with its answers; then the waiting upstream call is cancelled. A person may be answering.
  MCP_INPUT_ANSWER_TIMEOUT_MS: positiveInt.default(10 * 60 * 1000),
  // Several replicas behind one address without affinity: this replica's base URL as the other replicas
  // reach it (e.g. http://$(POD_IP):3001). A 2026-07-28 call waiting for its client's input names it in
  // its signed requestState, so the client's retry is forwarded here from whichever replica it reaches.
  SATELLITE_REPLICA_URL: z.url({ protocol: /^https?$/ }).optional(),
  // The secret every replica signs and checks those routing hints with: the same on all of them, at
  // least 32 characters. Unset, each process keeps a key of its own and forwards nothing.
  SATELLITE_REPLICA_SECRET: z.string().min(32).optional(),
  // An event stream waiting for a slow call gets a comment line this often, so a proxy or load
  // balancer between the client and the satellite does not take it for idle and cut it.
  MCP_SSE_KEEPALIVE_MS: positiveInt.default(15 * 1000),
  // An idle stdio process is stopped after this long and respawned on its next call; 0 keeps them running.
  PROCESS_IDLE_TIMEOUT_MS: nonNegativeInt.default(5 * 60 * 1000),
  PROCESS_IDLE_CHECK_INTERVAL_MS: positiveInt.default(30 * 1000),
  MCP_HANDSHAKE_TIMEOUT_MS: positiveInt.default(30 * 1000),
  // A tool call without an answer or progress for this long is cancelled upstream and answered with a
  // tool error naming the limit; every progress notification from the server starts it again.
  MCP_REQUEST_TIMEOUT_MS: positiveInt.default(60 * 1000),
  // However much progress it reports, no tool call runs longer than this.
  MCP_REQUEST_MAX_TOTAL_MS: positiveInt.default(10 * 60 * 1000),
  // The largest request body /mcp accepts (4 MiB, as the SDK's own default). A longer one is answered
  // 413 once the satellite has read it through, so the client hears the answer instead of a broken pipe.
  MCP_MAX_REQUEST_BYTES: positiveInt.default(4 * 1024 * 1024),
  // The longest message a stdio server may write (a tool result, usually). A longer one fails that
  // call with a tool error; the server and every other call carry on. 32 MiB: results of tens of MB
  // pass, while one runaway server cannot make the satellite hold hundreds.
  MCP_MAX_MESSAGE_BYTES: positiveInt.default(32 * 1024 * 1024),
  // First restart delay after a crash; attempt n waits base * 2^(n-1).
  RESTART_BACKOFF_MS: nonNegativeInt.default(1000),
  // A process that ran this long before crashing gets a fresh set of 3 restart attempts.
  RESTART_STABLE_AFTER_MS: positiveInt.default(10 * 60 * 1000),
  PROCESS_KILL_GRACE_MS: positiveInt.default(5000),
  STDERR_BATCH_INTERVAL_MS: positiveInt.default(1000),
  REMOTE_HEALTH_INTERVAL_MS: nonNegativeInt.default(30 * 1000),
  // A server may change a tool without announcing it (a stateless remote server cannot announce; a
  // hostile one would not): each connected server's tools are listed again about this often (each wait
  // drawn from half to one and a half times it, so servers do not list together), and a changed
  // definition is held back until approved. 0 lists only on connection and when a server announces a change.
  TOOL_RELIST_INTERVAL_MS: nonNegativeInt.default(60 * 1000),
  REMOTE_RECONNECT_BASE_MS: positiveInt.default(1000),
  REMOTE_RECONNECT_MAX_MS: positiveInt.default(60 * 1000),
  // Per-process limits, off by default (0): RAM in MB, CPU seconds, processes (a production sandbox
  // might use 100, 60 and 50).
  PROCESS_MEMORY_LIMIT_MB: nonNegativeInt.default(0),
  PROCESS_CPU_LIMIT_SECONDS: nonNegativeInt.default(0),
  PROCESS_MAX_PROCESSES: nonNegativeInt.default(0),

  // --- Backend link. Without BACKEND_URL the satellite stays in standalone mode.
  // gateway-api's base URL (the Kubernetes manifests use http://gateway-api).
  BACKEND_URL: z.url().optional(),
  // The token an administrator generated; needed only until the satellite holds an API key.
  SATELLITE_REGISTRATION_TOKEN: z.string().min(1).optional(),
  // Or the file holding it (a mounted Secret: one file per replica, named for the pod), read at start.
  SATELLITE_REGISTRATION_TOKEN_FILE: z.string().min(1).optional(),
  // Where the satellite id and API key are kept (owner-only files).
  SATELLITE_STATE_DIR: z.string().min(1).default('.satellite'),
  // The name shown to administrators; the host name when unset.
  SATELLITE_NAME: z.string().min(1).max(200).optional(),
  // Every backend request gives up after this long (and counts as a transient failure).
  BACKEND_REQUEST_TIMEOUT_MS: positiveInt.default(10000),
  // Heartbeats every 30 seconds (the backend's reply may ask for another interval).
  HEARTBEAT_INTERVAL_MS: positiveInt.default(30000),
  // The safety net behind `configure` commands: the configuration is fetched this often anyway.
  CONFIG_SYNC_INTERVAL_MS: positiveInt.default(5 * 60 * 1000),
  // How long each command poll may be held by the gateway (long polling; 0 turns it off). Keep it below
  // the idle timeout of any proxy between the satellite and the backend.
  COMMAND_WAIT_MS: z.coerce.number().int().min(0).max(30_000).default(25_000),
  // Events: a batch every 3 s of at most 100; the queue keeps the newest 10,000; a shutdown flush waits 5 s.
  EVENT_BATCH_INTERVAL_MS: positiveInt.default(3000),
  EVENT_MAX_BATCH_SIZE: positiveInt.max(100).default(100),
  EVENT_MAX_QUEUE_SIZE: positiveInt.default(10000),
  EVENT_FLUSH_TIMEOUT_MS: positiveInt.default(5000),
});

export type SatelliteEnv = z.infer<typeof satelliteEnv>;

export function satelliteTypeOf(config: Pick<SatelliteEnv, 'SATELLITE_TYPE' | 'SATELLITE_TEAM_ID'>): 'global' | 'team' {
  return config.SATELLITE_TYPE ?? (config.SATELLITE_TEAM_ID ? 'team' : 'global');
}

/**
 * The rules that join the satellite's variables: a team satellite names its team, oauth needs its URLs
 * and the backend link, and a global satellite is not left open by accident. Checked when the environment is
 * loaded (satelliteConfig) and again by createSatelliteApp, so no way of starting skips them.
 */
export function configurationProblems(config: SatelliteEnv): Array<{ variable: keyof SatelliteEnv; message: string }> {
  const problems: Array<{ variable: keyof SatelliteEnv; message: string }> = [];
  const type = satelliteTypeOf(config);
  if (type === 'team' && !config.SATELLITE_TEAM_ID) {
    problems.push({ variable: 'SATELLITE_TEAM_ID', message: 'a team satellite needs its team id' });
  }
  for (const [url, model] of [
    ['SATELLITE_EMBEDDINGS_URL', 'SATELLITE_EMBEDDINGS_MODEL'],
    ['SATELLITE_RERANKER_URL', 'SATELLITE_RERANKER_MODEL'],
  ] as const) {
    if (config[url] && !config[model]) problems.push({ variable: model, message: `required with ${url}` });
  }
  if (config.SATELLITE_AUTH_MODE === 'oauth') {
    for (const name of ['SATELLITE_PUBLIC_URL', 'SATELLITE_AUTH_SERVER_URL'] as const) {
      if (!config[name]) problems.push({ variable: name, message: 'required when SATELLITE_AUTH_MODE=oauth' });
    }
    // Introspection authenticates with the API key registration gives: no backend, no key.
    if (!config.BACKEND_URL) {
      problems.push({
        variable: 'BACKEND_URL',
        message: 'required when SATELLITE_AUTH_MODE=oauth (introspection uses the API key of the backend registration)',
      });
    }
  } else if (type === 'global' && !config.SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL) {
    problems.push({
      variable: 'SATELLITE_AUTH_MODE',
      message:
        'a global satellite serves every team: set SATELLITE_AUTH_MODE=oauth, or SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL=true to run it without authentication',
    });
  }
  const timeouts = httpTimeoutsProblem(config);
  if (timeouts) problems.push({ variable: 'HTTP_HEADERS_TIMEOUT_MS', message: timeouts });
  if (config.SATELLITE_REPLICA_URL && !config.SATELLITE_REPLICA_SECRET) {
    problems.push({
      variable: 'SATELLITE_REPLICA_SECRET',
      message: 'required with SATELLITE_REPLICA_URL: the replicas check the routing hints they forward by with it',
    });
  }
  return problems;
}

/** The environment as main.ts loads it: each problem above is reported under its variable's name. */
export const satelliteConfig = satelliteEnv.superRefine((config, ctx) => {
  for (const problem of configurationProblems(config)) {
    ctx.addIssue({ code: 'custom', path: [problem.variable], message: problem.message });
  }
});
