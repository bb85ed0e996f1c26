import { type FormEvent, useState } from 'react';
import { type AuditEntry, type AuditFilters, type AuditPage as AuditPageData, api, streams } from '../api/client.ts';
import { useSession } from '../app/session.tsx';
import { useEventStream } from '../app/useEventStream.ts';
import { useAction, useLoad } from '../app/useLoad.ts';
import { DataTable } from '../components/DataTable.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Field } from '../components/Field.tsx';
import { Page } from '../components/Page.tsx';
import { SelectField } from '../components/SelectField.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { StreamState } from '../components/StreamState.tsx';
import { When } from '../components/When.tsx';

type Form = {
  actor: string;
  action: string;
  target_id: string;
  outcome: '' | 'success' | 'failure';
  from: string;
  to: string;
};
const emptyForm: Form = { actor: '', action: '', target_id: '', outcome: '', from: '', to: '' };
const outcomes = [
  { value: '', label: 'Any' },
  { value: 'success', label: 'Success' },
  { value: 'failure', label: 'Failure' },
];

/** The form as the API's filters: blanks left out, local date-times as ISO instants. */
function filtersOf(form: Form): AuditFilters {
  const instant = (local: string) => (local ? new Date(local).toISOString() : undefined);
  return {
    ...(form.actor.trim() ? { actor: form.actor.trim() } : {}),
    ...(form.action.trim() ? { action: form.action.trim() } : {}),
    ...(form.target_id.trim() ? { target_id: form.target_id.trim() } : {}),
    ...(form.outcome ? { outcome: form.outcome } : {}),
    ...(form.from ? { from: instant(form.from) } : {}),
    ...(form.to ? { to: instant(form.to) } : {}),
  };
}

function actorOf(entry: AuditEntry): string {
  const { actor } = entry;
  if (actor.kind === 'user') return actor.email ?? actor.id ?? 'a user';
  if (actor.kind === 'anonymous') return actor.email ? `${actor.email} (not signed in)` : 'not signed in';
  return `${actor.kind} ${actor.name ?? actor.id ?? ''}`.trim();
}

/**
 * The audit log: who did what, to what, from where, and how it ended. Global admins read all of it (or
 * one team's part); a team's admins read their team's entries. Filters apply to the page, the live
 * stream and the exports alike; new entries arrive live at the top, older ones page in at the bottom.
 */
export function AuditPage() {
  const session = useSession();
  const teams = useLoad(() => (session.isAdmin ? api.teams.list() : Promise.resolve([])), [session.isAdmin]);
  const ownTeams = session.me.memberships.filter((m) => session.canInTeam(m.team_id, 'audit.view'));
  const scopes = [
    ...(session.can('audit.view') ? [{ value: '', label: 'Every team and the platform' }] : []),
    ...(session.isAdmin
      ? (teams.data ?? []).map((t) => ({ value: t.id, label: t.name }))
      : ownTeams.map((m) => ({ value: m.team_id, label: m.team_name }))),
  ];
  const [scope, setScope] = useState(session.can('audit.view') ? '' : (ownTeams[0]?.team_id ?? ''));
  const teamId = scope || null;
  const [form, setForm] = useState<Form>(emptyForm);
  const [filters, setFilters] = useState<AuditFilters>({});
  const [entries, setEntries] = useState<AuditEntry[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loaded, setLoaded] = useState(false);

  // The first page through the REST twin, so a filter the API refuses is explained at its field (an
  // EventSource learns nothing of why it was refused); the stream opens once the filters are accepted.
  const check = useLoad(() => api.audit.page(teamId, filters), [teamId, filters]);
  const state = useEventStream<AuditPageData, AuditEntry>(check.error ? null : streams.audit(teamId, filters), {
    snapshot: (page) => {
      setEntries(page.entries);
      setNext(page.next_cursor);
      setLoaded(true);
    },
    update: (entry) => setEntries((shown) => (shown.some((e) => e.id === entry.id) ? shown : [entry, ...shown])),
  });
  const older = useAction(async () => {
    if (!next) return;
    const page = await api.audit.page(teamId, filters, next);
    setEntries((shown) => [...shown, ...page.entries.filter((e) => !shown.some((s) => s.id === e.id))]);
    setNext(page.next_cursor);
  });

  const apply = (event: FormEvent) => {
    event.preventDefault();
    setLoaded(false);
    setFilters(filtersOf(form));
  };
  // A filter the API refuses is explained at its field.
  const field = (name: keyof Form) => ({
    value: form[name],
    onChange: (event: { target: { value: string } }) =>
      setForm((current) => ({ ...current, [name]: event.target.value })),
    error: check.error?.fields[name],
  });

  return (
    <Page
      title="Audit log"
      actions={
        <>
          <StreamState state={state} />
          <a className="button secondary" href={api.audit.exportUrl(teamId, filters, 'csv')} download>
            Export CSV
          </a>
          <a className="button secondary" href={api.audit.exportUrl(teamId, filters, 'json')} download>
            Export JSON
          </a>
        </>
      }
    >
      <form className="form-grid" aria-label="Filter the audit log" onSubmit={apply}>
        {scopes.length > 1 ? (
          <SelectField
            label="Scope"
            value={scope}
            options={scopes}
            onChange={(e) => {
              setLoaded(false);
              setScope(e.target.value);
            }}
          />
        ) : null}
        <Field
          label="Actor"
          hint="A user's e-mail address, or the id of a user, satellite or process"
          {...field('actor')}
        />
        <Field
          label="Action"
          hint="A name such as installation.created, or every action of a kind: installation.*"
          {...field('action')}
        />
        <Field label="Target id" {...field('target_id')} />
        <SelectField label="Outcome" {...field('outcome')} options={outcomes} />
        <Field label="From" type="datetime-local" {...field('from')} />
        <Field label="Until" type="datetime-local" {...field('to')} />
        <div className="row">
          <button type="submit">Apply filters</button>
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setForm(emptyForm);
              setLoaded(false);
              setFilters({});
            }}
          >
            Clear
          </button>
        </div>
      </form>
      <ErrorMessage error={check.error ?? older.error} />
      {loaded ? (
        entries.length === 0 ? (
          <p className="muted" role="status">
            No entries match.
          </p>
        ) : (
          <>
            <DataTable
              caption="Audit entries, newest first"
              rows={entries}
              rowKey={(e) => e.id}
              rowTestId="audit-entry"
              columns={[
                { header: 'When', cell: (e) => <When at={e.occurred_at} /> },
                { header: 'Action', rowHeader: true, cell: (e) => <code>{e.action}</code> },
                {
                  header: 'Outcome',
                  cell: (e) => (
                    <>
                      <StatusBadge status={e.outcome === 'success' ? 'succeeded' : 'failed'} />
                      {e.reason ? <span className="muted"> {e.reason}</span> : null}
                    </>
                  ),
                },
                { header: 'Actor', cell: (e) => <span title={e.actor.id ?? undefined}>{actorOf(e)}</span> },
                {
                  header: 'Target',
                  cell: (e) => (
                    <span>
                      {e.target.kind} <code>{e.target.id ?? ''}</code>
                    </span>
                  ),
                },
                { header: 'From', cell: (e) => e.source_ip ?? <span className="muted">—</span> },
                {
                  header: 'Details',
                  cell: (e) =>
                    Object.keys(e.details).length === 0 ? (
                      <span className="muted">—</span>
                    ) : (
                      <details>
                        <summary>Show</summary>
                        <pre>{JSON.stringify(e.details, null, 2)}</pre>
                        <p className="muted">
                          Recorded by {e.source}
                          {e.team_id ? ` for team ${e.team_id}` : ''}
                        </p>
                      </details>
                    ),
                },
              ]}
            />
            <div className="pager">
              <button type="button" disabled={!next || older.pending} onClick={() => void older.run()}>
                {next ? 'Older entries' : 'No older entries'}
              </button>
            </div>
          </>
        )
      ) : check.error ? null : (
        <p role="status">Loading the audit log…</p>
      )}
    </Page>
  );
}
