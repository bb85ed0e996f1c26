import { type FormEvent, useState } from 'react';
import { api, type ClientActivityPage, type CreatedAccessToken, type StreamUpdates, streams } from '../api/client.ts';
import { Link } from '../app/router.tsx';
import { useEventStream } from '../app/useEventStream.ts';
import { useAction, useLoad } from '../app/useLoad.ts';
import { CopyBlock } from '../components/CopyBlock.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Page } from '../components/Page.tsx';
import { SelectField } from '../components/SelectField.tsx';
import { StreamState } from '../components/StreamState.tsx';
import { Tabs } from '../components/Tabs.tsx';
import { When } from '../components/When.tsx';
import { clientConfigurations } from './clientConfigurations.ts';
import { satelliteState } from './satelliteState.ts';

/** Copyable configuration that points an MCP client at a satellite, and the clients connected lately. */
export function ConnectPage() {
  const satellites = useLoad(() => api.satellites.list(), []);
  const teams = useLoad(() => api.teams.list(), []);
  const usable = (satellites.data ?? []).filter((s) => s.status !== 'revoked' && s.satellite_url);
  const [chosen, setChosen] = useState<string | null>(null);
  const satellite = usable.find((s) => s.id === chosen) ?? usable.find((s) => s.online) ?? usable[0];
  const url = satellite?.satellite_url
    ? `${satellite.satellite_url.replace(/\/+$/, '').replace(/\/mcp$/, '')}/mcp`
    : null;
  const [client, setClient] = useState('vscode');
  const [token, setToken] = useState<CreatedAccessToken | null>(null);
  const configurations = url ? clientConfigurations(url, token?.token ?? null) : [];
  const shown = configurations.find((c) => c.id === client) ?? configurations[0];

  return (
    <Page title="Connect a client">
      <p>
        MCP clients reach every server your teams installed through one satellite endpoint, which offers two tools:{' '}
        <code>discover_mcp_tools</code> finds a tool by what it does, <code>execute_mcp_tool</code> runs it by its path
        (<code>installation:tool</code>).
      </p>
      <ErrorMessage error={satellites.error} />
      {satellites.data && usable.length === 0 ? (
        <p>
          No satellite has told its address yet. <Link to="/satellites">Register a satellite</Link> first.
        </p>
      ) : null}
      {satellite && url ? (
        <>
          {usable.length > 1 ? (
            <SelectField
              label="Satellite"
              value={satellite.id}
              options={usable.map((s) => ({ value: s.id, label: `${s.name} (${satelliteState(s)})` }))}
              onChange={(e) => setChosen(e.target.value)}
            />
          ) : null}
          <p>
            Endpoint: <code>{url}</code>
            {!satellite.online ? <span className="muted"> (this satellite is {satelliteState(satellite)})</span> : null}
          </p>
          {shown ? (
            <Tabs
              label="MCP clients"
              tabs={configurations.map((c) => ({ id: c.id, label: c.label }))}
              selected={shown.id}
              onSelect={setClient}
            >
              <p>{shown.where}</p>
              <CopyBlock label={`${shown.label} configuration`} text={shown.text} />
            </Tabs>
          ) : null}
          <PersonalToken teams={teams.data ?? []} token={token} onToken={setToken} />
        </>
      ) : null}
      <ClientActivity />
    </Page>
  );
}

/**
 * A satellite that authenticates its clients (SATELLITE_AUTH_MODE=oauth) lets VS Code, Cursor and Claude
 * Code log in through the browser; scripts and bridges use a personal access token instead.
 */
function PersonalToken(props: {
  teams: Array<{ id: string; name: string }>;
  token: CreatedAccessToken | null;
  onToken: (token: CreatedAccessToken) => void;
}) {
  const [teamId, setTeamId] = useState('');
  const team = props.teams.find((t) => t.id === teamId) ?? props.teams[0];
  const create = useAction(async () => {
    if (!team) return;
    props.onToken(await api.accessTokens.create({ team_id: team.id, name: 'Console: connect a client' }));
  });
  if (props.teams.length === 0) return null;

  function submit(event: FormEvent) {
    event.preventDefault();
    void create.run();
  }

  return (
    <section className="card" aria-labelledby="personal-token">
      <h2 id="personal-token">If the satellite asks clients to log in</h2>
      <p className="muted">
        VS Code, Cursor and Claude Code open the login page by themselves. For the SDK, Claude Desktop’s bridge or a
        script, make a personal access token: the configuration above then carries it. It is shown once.
      </p>
      {props.token ? (
        <p role="status">
          The configuration above now includes a token for{' '}
          {props.teams.find((t) => t.id === props.token?.team_id)?.name}, valid until{' '}
          <When at={props.token.expires_at} />.
        </p>
      ) : (
        <form onSubmit={submit} className="form-grid">
          {props.teams.length > 1 ? (
            <SelectField
              label="Team"
              value={team?.id ?? ''}
              options={props.teams.map((t) => ({ value: t.id, label: t.name }))}
              onChange={(e) => setTeamId(e.target.value)}
            />
          ) : null}
          <ErrorMessage error={create.error} />
          <div>
            <button type="submit" className="secondary" disabled={create.pending}>
              Make a personal access token
            </button>
          </div>
        </form>
      )}
    </section>
  );
}

/**
 * What the client called itself (`clientInfo`, with its version); the product read from its user
 * agent only for sessions recorded before satellites reported the name.
 */
function clientLabel(s: ClientActivityPage['items'][number]): string {
  if (s.client_name) return s.client_version ? `${s.client_name} ${s.client_version}` : s.client_name;
  return s.client_type ?? 'unknown';
}

/**
 * A 2025 session is connected until it closes; a 2026-07-28 client (`stateless`) connects for no
 * longer than a request, so it is active until it sends none for the satellite's idle timeout.
 */
function clientState(s: ClientActivityPage['items'][number]): string {
  if (!s.active)
    return s.transport === 'stateless' && s.disconnect_reason === 'timeout'
      ? 'idle'
      : `left (${s.disconnect_reason ?? 'closed'})`;
  return s.transport === 'stateless' ? 'active' : 'connected';
}

function ClientActivity() {
  const [page, setPage] = useState<ClientActivityPage | undefined>();
  const state = useEventStream<ClientActivityPage, StreamUpdates['clientActivity']>(streams.clientActivity(), {
    snapshot: setPage,
    update: ({ items }) =>
      setPage((current) => {
        const fresh = new Set(items.map((i) => `${i.satellite_id}/${i.session_id}`));
        const rest = (current?.items ?? []).filter((i) => !fresh.has(`${i.satellite_id}/${i.session_id}`));
        return { items: [...items, ...rest].slice(0, 20) };
      }),
  });
  return (
    <section aria-labelledby="activity">
      <h2 id="activity">
        Recent clients <StreamState state={state} />
      </h2>
      <DataTable
        rows={page?.items ?? []}
        empty={<p className="muted">No client has connected yet.</p>}
        rowKey={(s) => `${s.satellite_id}/${s.session_id}`}
        columns={[
          { header: 'Client', cell: clientLabel },
          // A session's opening, or a 2026-07-28 client's first request (it opens no session).
          { header: 'Since', cell: (s) => <When at={s.connected_at} /> },
          { header: 'State', cell: clientState },
          // A live client's count arrives with its next report (every minute while it makes calls).
          { header: 'Tool calls', cell: (s) => s.tool_execution_count ?? (s.active ? 0 : '') },
        ]}
      />
    </section>
  );
}
