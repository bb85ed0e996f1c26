import { useState } from 'react';
import {
  api,
  type InstallationStatusView,
  type RequestLogItem,
  type RequestLogPage,
  type ServerLogLine,
  type ServerLogPage,
  type StreamUpdates,
  streams,
} from '../api/client.ts';
import { navigate } from '../app/router.tsx';
import { useSession } from '../app/session.tsx';
import { useEventStream } from '../app/useEventStream.ts';
import { useAction, useLoad } from '../app/useLoad.ts';
import { DangerButton } from '../components/DangerButton.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Field } from '../components/Field.tsx';
import { Page } from '../components/Page.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { StreamState } from '../components/StreamState.tsx';
import { When } from '../components/When.tsx';
import { PinnedDefinitionsSection } from './PinnedDefinitionsSection.tsx';
import { RemoteAuthorization } from './RemoteAuthorization.tsx';
import { ToolPolicySection } from './ToolPolicySection.tsx';

const keptLines = 200;
const keptRequests = 100;

/**
 * One installation, live: its status, its server's log and the tool requests it served, each fed by
 * its SSE stream; its tools (which run, which ask first); and its settings (request logging) for those who manage the team's installations.
 */
export function InstallationPage({ teamId, installationId }: { teamId: string; installationId: string }) {
  const session = useSession();
  const installation = useLoad(() => api.installations.get(teamId, installationId), [teamId, installationId]);
  const [status, setStatus] = useState<InstallationStatusView | undefined>();
  const [lines, setLines] = useState<ServerLogLine[]>([]);
  const [requests, setRequests] = useState<RequestLogItem[]>([]);
  const [loggingResponses, setLoggingResponses] = useState<boolean | undefined>();

  const statusStream = useEventStream<InstallationStatusView, StreamUpdates['installationStatus']>(
    streams.installationStatus(teamId, installationId),
    { snapshot: setStatus, update: setStatus },
  );
  const logStream = useEventStream<ServerLogPage, StreamUpdates['installationLogs']>(
    streams.installationLogs(teamId, installationId),
    {
      snapshot: (page) => setLines(page.items),
      update: ({ items }) => setLines((current) => mergeById(items, current).slice(0, keptLines)),
    },
  );
  const requestStream = useEventStream<RequestLogPage, StreamUpdates['installationRequests']>(
    streams.installationRequests(teamId, installationId),
    {
      snapshot: (page) => {
        setRequests(page.items);
        setLoggingResponses(page.request_logging_enabled);
      },
      update: ({ items }) => setRequests((current) => mergeById(items, current).slice(0, keptRequests)),
    },
  );

  const canManage = session.canInTeam(teamId, 'installations.manage');
  const settings = useAction(async (enabled: boolean) => {
    const updated = await api.installations.updateSettings(teamId, installationId, {
      request_logging_enabled: enabled,
    });
    installation.set(() => updated);
    setLoggingResponses(updated.settings.request_logging_enabled);
  });
  const remove = useAction(async () => {
    await api.installations.remove(teamId, installationId);
    navigate(`/installations?team=${teamId}`);
  });
  const i = installation.data;
  const current = status?.status ?? i?.status;
  // Its template says whether the server needs OAuth (and whose token its calls carry).
  const template = useLoad(() => (i ? api.catalogue.get(i.server_slug) : Promise.resolve(undefined)), [i?.server_slug]);

  return (
    <Page title={i ? `Installation ${i.name}` : 'Installation'}>
      <ErrorMessage error={installation.error} />
      <section aria-labelledby="status" className="card">
        <h2 id="status">
          Status <StreamState state={statusStream} />
        </h2>
        <p className="status-line" aria-live="polite">
          {current ? <StatusBadge status={current} /> : null}{' '}
          {status?.status_message ? <span>{status.status_message}</span> : null}
        </p>
        <p className="muted">
          Since <When at={status?.status_updated_at ?? i?.status_updated_at} />
          {current === 'online' && i ? (
            <>
              {' '}
              · clients call its tools as <code>{i.name}:&lt;tool&gt;</code> through <code>execute_mcp_tool</code>
            </>
          ) : null}
        </p>
        {i ? (
          <p className="muted">
            Server <code>{i.server_slug}</code>
            {i.args.length > 0 ? (
              <>
                {' '}
                · arguments <code>{i.args.join(' ')}</code>
              </>
            ) : null}
            {i.env_keys.length > 0 ? <> · environment {i.env_keys.join(', ')} (values write-only)</> : null}
            {i.header_keys.length > 0 ? <> · request headers {i.header_keys.join(', ')} (values write-only)</> : null}
          </p>
        ) : null}
      </section>

      {i && template.data?.oauth ? (
        <RemoteAuthorization teamId={teamId} installationId={installationId} template={template.data} />
      ) : null}

      {i ? (
        <>
          <ToolPolicySection teamId={teamId} installationId={installationId} online={current === 'online'} />
          <PinnedDefinitionsSection teamId={teamId} installationId={installationId} online={current === 'online'} />
        </>
      ) : null}

      <section aria-labelledby="requests">
        <h2 id="requests">
          Tool requests <StreamState state={requestStream} />
        </h2>
        <DataTable
          describedBy="requests"
          rows={requests}
          empty={<p className="muted">No tool has been called yet.</p>}
          rowKey={(r) => r.id}
          rowTestId="request-row"
          columns={[
            { header: 'When', cell: (r) => <When at={r.timestamp} /> },
            { header: 'Tool', cell: (r) => <code>{r.tool_name}</code> },
            {
              header: 'Result',
              cell: (r) => (
                <>
                  <StatusBadge status={r.success ? 'succeeded' : 'failed'} label={r.success ? 'ok' : 'failed'} />
                  {r.error_message ? <span className="muted"> {r.error_message}</span> : null}
                </>
              ),
            },
            { header: 'Duration', cell: (r) => `${Math.round(r.duration_ms)} ms` },
          ]}
        />
      </section>

      <section aria-labelledby="logs">
        <h2 id="logs">
          Server log <StreamState state={logStream} />
        </h2>
        {lines.length === 0 ? (
          <p className="muted">The server has written nothing to its error output.</p>
        ) : (
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must take focus so keyboards can scroll it
          <section className="log" aria-label="Server log, newest first" tabIndex={0}>
            <pre>
              {lines.map((line) => (
                <span key={line.id} className={`log-${line.log_level}`}>
                  {new Date(line.timestamp).toLocaleTimeString()} {line.log_level.padEnd(5)} {line.message}
                  {'\n'}
                </span>
              ))}
            </pre>
          </section>
        )}
      </section>

      {canManage && i ? (
        <section aria-labelledby="installation-settings" className="card">
          <h2 id="installation-settings">Settings</h2>
          <Field
            type="checkbox"
            label="Keep tool responses in the request log"
            hint="Responses may hold sensitive data; they are kept only while this is on."
            checked={loggingResponses ?? i.settings.request_logging_enabled}
            disabled={settings.pending}
            onChange={(e) => void settings.run(e.target.checked)}
          />
          <ErrorMessage error={settings.error} />
          <h3>Remove</h3>
          <p>Stops the server on every satellite and deletes its logs.</p>
          <DangerButton action={remove} question={`Remove installation ${i.name}?`}>
            Remove installation
          </DangerButton>
        </section>
      ) : null}
    </Page>
  );
}

/** New rows first; a row already shown (a replay after reconnecting) is not shown twice. */
function mergeById<T extends { id: string }>(fresh: T[], current: T[]): T[] {
  const known = new Set(current.map((r) => r.id));
  return [...fresh.filter((r) => !known.has(r.id)), ...current];
}
