import { api, type InstallationView, type TeamView } from '../api/client.ts';
import { Link, queryParam, useLocation } from '../app/router.tsx';
import { useLoad } from '../app/useLoad.ts';
import { DataTable } from '../components/DataTable.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Page } from '../components/Page.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { When } from '../components/When.tsx';

/** The installations of every team the person belongs to (or of one, with ?team=). */
export function InstallationsPage() {
  const location = useLocation();
  const only = queryParam(location, 'team');
  const loaded = useLoad(async () => {
    const teams = (await api.teams.list()).filter((t) => !only || t.id === only);
    const lists = await Promise.all(teams.map((t) => api.installations.list(t.id)));
    return teams.map((team, i) => ({ team, installations: lists[i] ?? [] }));
  }, [only]);

  return (
    <Page
      title="Installations"
      actions={
        <Link to="/catalogue" className="button">
          Install from the catalogue
        </Link>
      }
    >
      <ErrorMessage error={loaded.error} />
      {loaded.data?.length === 0 ? <p>You are not a member of any team yet.</p> : null}
      {loaded.data?.map(({ team, installations }) => (
        <TeamInstallations key={team.id} team={team} installations={installations} />
      ))}
    </Page>
  );
}

function TeamInstallations({ team, installations }: { team: TeamView; installations: InstallationView[] }) {
  return (
    <section aria-labelledby={`team-${team.id}`}>
      <h2 id={`team-${team.id}`}>{team.name}</h2>
      <DataTable
        rows={installations}
        empty={
          <p className="muted">
            Nothing installed yet. <Link to="/catalogue">Pick a server from the catalogue</Link>.
          </p>
        }
        rowKey={(i) => i.id}
        columns={[
          { header: 'Name', cell: (i) => <Link to={`/teams/${team.id}/installations/${i.id}`}>{i.name}</Link> },
          { header: 'Server', cell: (i) => <code>{i.server_slug}</code> },
          { header: 'Status', cell: (i) => <StatusBadge status={i.status} /> },
          { header: 'Since', cell: (i) => <When at={i.status_updated_at} /> },
        ]}
      />
    </section>
  );
}
