import { api } from '../api/client.ts';
import { useLoad } from '../app/useLoad.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Page } from '../components/Page.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { When } from '../components/When.tsx';

const names: Record<string, string> = {
  credential_validation: 'Credential validation',
  template_health: 'Template health',
  log_cleanup: 'Log cleanup',
};

/** The background schedules: when each last ran, how it went, when it runs next. */
export function JobsPage() {
  const jobs = useLoad(() => api.jobs.status(), []);
  return (
    <Page
      title="Jobs"
      actions={
        <button type="button" className="secondary" onClick={jobs.reload} disabled={jobs.loading}>
          Refresh
        </button>
      }
    >
      <ErrorMessage error={jobs.error} />
      {jobs.data ? (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Background job schedules</caption>
            <thead>
              <tr>
                <th scope="col">Schedule</th>
                <th scope="col">Every</th>
                <th scope="col">Last run</th>
                <th scope="col">Outcome</th>
                <th scope="col">Next run</th>
                <th scope="col">Failed (24 h)</th>
              </tr>
            </thead>
            <tbody>
              {jobs.data.map((job) => (
                <tr key={job.schedule}>
                  <th scope="row">{names[job.schedule] ?? job.schedule}</th>
                  <td>{Math.round(job.every_ms / 1000)} s</td>
                  <td>
                    <When at={job.last_run?.started_at} />
                    {job.last_run?.duration_ms != null ? (
                      <span className="muted"> ({Math.round(job.last_run.duration_ms)} ms)</span>
                    ) : null}
                  </td>
                  <td>
                    {job.last_run ? <StatusBadge status={job.last_run.outcome} /> : <span className="muted">—</span>}
                    {job.last_run?.error ? <span className="muted"> {job.last_run.error}</span> : null}
                  </td>
                  <td>
                    <When at={job.next_run_at} />
                  </td>
                  <td>{job.failed_last_24h}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
    </Page>
  );
}
