import { api } from '../api/client.ts';
import { useLoad } from '../app/useLoad.ts';
import { DataTable } from '../components/DataTable.tsx';
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
      <DataTable
        caption="Background job schedules"
        rows={jobs.data}
        rowKey={(job) => job.schedule}
        columns={[
          { header: 'Schedule', rowHeader: true, cell: (job) => names[job.schedule] ?? job.schedule },
          { header: 'Every', cell: (job) => `${Math.round(job.every_ms / 1000)} s` },
          {
            header: 'Last run',
            cell: (job) => (
              <>
                <When at={job.last_run?.started_at} />
                {job.last_run?.duration_ms != null ? (
                  <span className="muted"> ({Math.round(job.last_run.duration_ms)} ms)</span>
                ) : null}
              </>
            ),
          },
          {
            header: 'Outcome',
            cell: (job) => (
              <>
                {job.last_run ? <StatusBadge status={job.last_run.outcome} /> : <span className="muted">—</span>}
                {job.last_run?.error ? <span className="muted"> {job.last_run.error}</span> : null}
              </>
            ),
          },
          { header: 'Next run', cell: (job) => <When at={job.next_run_at} /> },
          { header: 'Failed (24 h)', cell: (job) => job.failed_last_24h },
        ]}
      />
    </Page>
  );
}
