/**
 * Where a remote server's OAuth access tokens come from: the backend, per call, never the disk. The
 * token of a call is the calling person's (per-user servers) or the team's; `discovery` asks for any
 * token of the installation, for listing tools outside a call. `refused` says the server refused the
 * last one handed out, so a fresh one is needed.
 */
export type UpstreamTokens = {
  token(request: {
    installationId: string;
    userId: string | null;
    purpose: 'call' | 'discovery';
    refused: boolean;
  }): Promise<{ kind: 'ok'; token: string } | { kind: 'unavailable'; message: string }>;
  /** The tokens currently held for an installation's calls: its events must never carry them. */
  issued?(installationId: string): readonly string[];
};
