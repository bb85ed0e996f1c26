import { api } from '../api/client.ts';
import { Link } from '../app/router.tsx';
import { useSession } from '../app/session.tsx';
import { useLoad } from '../app/useLoad.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Page } from '../components/Page.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';

/** Where things stand, as the first steps of a new team: a satellite, an installation, a client. */
export function OverviewPage() {
  const session = useSession();
  const loaded = useLoad(async () => {
    const [satellites, teams] = await Promise.all([api.satellites.list(), api.teams.list()]);
    const installations = (await Promise.all(teams.map((t) => api.installations.list(t.id)))).flat();
    return { satellites, teams, installations };
  }, []);
  const d = loaded.data;
  const online = d?.satellites.filter((s) => s.online).length ?? 0;
  const running = d?.installations.filter((i) => i.status === 'online').length ?? 0;

  const steps = [
    {
      done: (d?.teams.length ?? 0) > 0,
      text: session.isAdmin ? 'Create a team and add its members' : 'Be added to a team',
      to: '/teams',
    },
    { done: online > 0, text: 'Register a satellite and see it online', to: '/satellites' },
    { done: running > 0, text: 'Install a server from the catalogue', to: '/catalogue' },
    { done: false, text: 'Connect an MCP client to the satellite', to: '/connect' },
  ];

  return (
    <Page title={`Welcome, ${session.me.name}`}>
      <ErrorMessage error={loaded.error} />
      {d ? (
        <div className="metric-grid">
          {[
            { to: '/satellites', label: 'Satellites online', value: `${online} of ${d.satellites.length}` },
            { to: '/installations', label: 'Installations online', value: `${running} of ${d.installations.length}` },
            { to: '/teams', label: 'Teams', value: String(d.teams.length) },
          ].map((metric) => (
            <Link key={metric.to} to={metric.to} className="metric">
              <span className="metric-label">{metric.label}</span>
              <span className="metric-value">{metric.value}</span>
            </Link>
          ))}
        </div>
      ) : null}
      <section aria-labelledby="first-steps" className="card">
        <h2 id="first-steps">First steps</h2>
        <ol className="steps">
          {steps.map((step) => (
            <li key={step.to}>
              <StatusBadge status={step.done ? 'succeeded' : 'unknown'} label={step.done ? 'done' : 'to do'} />{' '}
              <Link to={step.to}>{step.text}</Link>
            </li>
          ))}
        </ol>
      </section>
    </Page>
  );
}
