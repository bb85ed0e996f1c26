import { useState } from 'react';
import { api, type CreatedRegistrationToken, type RegistrationTokenView, type TeamView } from '../api/client.ts';
import { Link } from '../app/router.tsx';
import { useSession } from '../app/session.tsx';
import { useForm } from '../app/useForm.ts';
import { useAction, useLoad } from '../app/useLoad.ts';
import { CopyBlock } from '../components/CopyBlock.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Field } from '../components/Field.tsx';
import { FormEnd } from '../components/FormEnd.tsx';
import { Page } from '../components/Page.tsx';
import { SelectField } from '../components/SelectField.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { When } from '../components/When.tsx';
import { satelliteState } from './satelliteState.ts';

/** Satellites the person may see, and registration tokens for new ones (global or per team). */
export function SatellitesPage() {
  const session = useSession();
  const satellites = useLoad(() => api.satellites.list(), []);
  const teams = useLoad(() => api.teams.list(), []);
  const teamName = (id: string | null) => teams.data?.find((t) => t.id === id)?.name ?? id ?? '';

  return (
    <Page title="Satellites">
      <p className="muted">
        Satellites run your teams’ MCP servers and serve them to clients at <code>/mcp</code>. They reach the platform
        outbound only; a global satellite serves every team, a team satellite its own team.
      </p>
      <ErrorMessage error={satellites.error} />
      <DataTable
        caption="Satellites"
        rows={satellites.data}
        empty={<p>No satellite has registered yet: make a registration token below.</p>}
        rowKey={(s) => s.id}
        columns={[
          { header: 'Name', cell: (s) => <Link to={`/satellites/${s.id}`}>{s.name}</Link> },
          { header: 'Status', cell: (s) => <StatusBadge status={satelliteState(s)} /> },
          { header: 'Serves', cell: (s) => (s.satellite_type === 'global' ? 'every team' : teamName(s.team_id)) },
          {
            header: 'Address',
            cell: (s) => (s.satellite_url ? <code>{s.satellite_url}</code> : <span className="muted">not given</span>),
          },
          { header: 'Last heartbeat', cell: (s) => <When at={s.last_heartbeat_at} /> },
        ]}
      />
      <RegistrationTokens
        teams={(teams.data ?? []).filter((t) => session.canInTeam(t.id, 'satellites.register'))}
        global={session.can('satellites.manage_global')}
      />
    </Page>
  );
}

/** Where and as what a new satellite runs: a machine may already run one (`npm start`'s on 3001). */
export type SatelliteLaunch = { name: string; port: string };

/**
 * The ways to start a satellite with a fresh token: from a checkout of this repository, or the container
 * image. Each names the satellite (two called after the same host could not be told apart in the lists),
 * listens on its own port and keeps its credentials in a folder of its own, so it runs beside another
 * satellite on the same machine. Its MCP clients sign in with tokens of this backend (OAuth or personal
 * access tokens): nothing here opens a satellite to unauthenticated clients.
 */
export function satelliteStartCommands(
  token: string,
  launch: SatelliteLaunch,
): { checkout: string; container: string } {
  const origin = window.location.origin;
  const name = launch.name.trim() || 'satellite';
  const folder = name.replace(/[^A-Za-z0-9._-]+/g, '-');
  const port = launch.port.trim() || '3002';
  const shared = [
    `BACKEND_URL=${origin}`,
    `SATELLITE_REGISTRATION_TOKEN='${token}'`,
    `SATELLITE_NAME='${name.replaceAll("'", '')}'`,
    `PORT=${port}`,
    'SATELLITE_AUTH_MODE=oauth',
    `SATELLITE_PUBLIC_URL=http://localhost:${port}/mcp`,
    `SATELLITE_AUTH_SERVER_URL=${origin}`,
  ];
  return {
    checkout: [...shared, `SATELLITE_STATE_DIR=.satellite-${folder}`, 'npm start -w satellite'].join(' \\\n'),
    // Host networking: the satellite reaches the backend at the address this page came from.
    container: [
      'docker run --rm --network host',
      `  -v orbital-satellite-${folder}:/var/lib/orbital-satellite`,
      '  -e SATELLITE_STATE_DIR=/var/lib/orbital-satellite',
      ...shared.map((v) => `  -e ${v}`),
      '  orbital:local satellite',
    ].join(' \\\n'),
  };
}

function RegistrationTokens({ teams, global }: { teams: TeamView[]; global: boolean }) {
  const scopes = [
    ...(global ? [{ value: '', label: 'Global satellite (every team)' }] : []),
    ...teams.map((t) => ({ value: t.id, label: `Team ${t.name}` })),
  ];
  const [scope, setScope] = useState(scopes[0]?.value ?? '');
  const [created, setCreated] = useState<CreatedRegistrationToken | undefined>();
  const [launch, setLaunch] = useState<SatelliteLaunch>({ name: '', port: '3002' });
  const chosen = scopes.some((s) => s.value === scope) ? scope : (scopes[0]?.value ?? '');
  const tokens = useLoad(async () => {
    const lists = await Promise.all([
      ...(global ? [api.satellites.globalTokens()] : []),
      ...teams.map((t) => api.satellites.teamTokens(t.id).catch(() => [] as RegistrationTokenView[])),
    ]);
    return lists.flat().sort((a, b) => b.created_at.localeCompare(a.created_at));
  }, [global, teams.map((t) => t.id).join()]);
  const create = useForm({ description: '', expires_in_minutes: '60' }, async ({ description, expires_in_minutes }) => {
    const body = { expires_in_minutes: Number(expires_in_minutes), ...(description ? { description } : {}) };
    const token = chosen
      ? await api.satellites.createTeamToken(chosen, body)
      : await api.satellites.createGlobalToken(body);
    setCreated(token);
    setLaunch((current) => ({ ...current, name: `satellite-${token.id.slice(0, 6)}` }));
    create.set({ description: '' });
    tokens.reload();
  });
  const revoke = useAction(async (token: RegistrationTokenView) => {
    if (token.team_id) await api.satellites.revokeTeamToken(token.team_id, token.id);
    else await api.satellites.revokeGlobalToken(token.id);
    tokens.reload();
  });

  if (scopes.length === 0) return null;
  const commands = created ? satelliteStartCommands(created.token, launch) : null;

  return (
    <section className="card" aria-labelledby="tokens">
      <h2 id="tokens">Registration tokens</h2>
      <p className="muted">A token registers one satellite, once. It is shown only when it is made.</p>
      <form onSubmit={create.submit} noValidate className="form-grid">
        <SelectField label="For" value={chosen} options={scopes} onChange={(e) => setScope(e.target.value)} />
        <Field label="Description (optional)" {...create.field('description')} />
        <Field label="Valid for (minutes)" inputMode="numeric" {...create.field('expires_in_minutes')} />
        <FormEnd form={create} label="Make a registration token" />
      </form>
      {created && commands ? (
        <div className="created-token" aria-live="polite">
          <h3>Start the satellite with this token</h3>
          <p>
            Valid until <When at={created.expires_at} />. Name the satellite and give it a port of its own:
          </p>
          <div className="form-grid">
            <Field
              label="Satellite name"
              value={launch.name}
              onChange={(e) => setLaunch({ ...launch, name: e.target.value })}
            />
            <Field
              label="Port"
              inputMode="numeric"
              hint="A port no other satellite on that machine uses (npm start's satellite has 3001)."
              value={launch.port}
              onChange={(e) => setLaunch({ ...launch, port: e.target.value })}
            />
          </div>
          <p>From a checkout of Orbital:</p>
          <CopyBlock label="command to start the satellite from a checkout" text={commands.checkout} />
          <p>Or with the container image:</p>
          <CopyBlock label="command to start the satellite container" text={commands.container} />
          <p className="hint">
            The satellite keeps its API key in its state directory (<code>SATELLITE_STATE_DIR</code>, a volume in the
            container) and needs no token on later starts. Its MCP clients sign in with this platform's tokens (OAuth,
            or a personal access token); see satellite/README.md.
          </p>
        </div>
      ) : null}
      <ErrorMessage error={tokens.error ?? revoke.error} />
      <DataTable
        caption="Registration tokens"
        rows={tokens.data}
        empty={null}
        rowKey={(t) => t.id}
        columns={[
          {
            header: 'For',
            cell: (t) =>
              t.scope === 'global' ? 'global' : (teams.find((team) => team.id === t.team_id)?.name ?? t.team_id),
          },
          { header: 'Description', cell: (t) => t.description ?? '' },
          {
            header: 'State',
            cell: (t) => <StatusBadge status={t.state === 'active' ? 'active' : 'unknown'} label={t.state} />,
          },
          { header: 'Expires', cell: (t) => <When at={t.expires_at} /> },
          {
            header: 'Actions',
            cell: (t) =>
              t.state === 'active' ? (
                <button type="button" className="secondary" onClick={() => void revoke.run(t)}>
                  Revoke<span className="visually-hidden"> token {t.description ?? t.id}</span>
                </button>
              ) : null,
          },
        ]}
      />
    </section>
  );
}
