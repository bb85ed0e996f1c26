import { type ChangeEvent, useState } from 'react';
import { api, type TeamView, type TemplateInput, type TemplateView } from '../api/client.ts';
import { navigate } from '../app/router.tsx';
import { useSession } from '../app/session.tsx';
import { useForm } from '../app/useForm.ts';
import { useLoad } from '../app/useLoad.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Field } from '../components/Field.tsx';
import { FormEnd } from '../components/FormEnd.tsx';
import { Page } from '../components/Page.tsx';
import { SelectField } from '../components/SelectField.tsx';
import { StatusBadge } from '../components/StatusBadge.tsx';
import { TextAreaField } from '../components/TextAreaField.tsx';
import { headerLines, parseAssignments } from './parseAssignments.ts';

/** The MCP server catalogue: every template, and installing one into a team. */
export function CataloguePage() {
  const session = useSession();
  const templates = useLoad(() => api.catalogue.list(), []);
  const teams = useLoad(() => api.teams.list(), []);
  const installable = (teams.data ?? []).filter((t) => session.canInTeam(t.id, 'installations.manage'));
  const [installing, setInstalling] = useState<string | null>(null);

  return (
    <Page title="Catalogue">
      <p className="muted">
        MCP servers your teams can install. An installation runs on the satellites that serve the team; its tools reach
        clients through the satellite’s <code>/mcp</code>.
      </p>
      <ErrorMessage error={templates.error} />
      {templates.data?.length === 0 ? (
        <p>The catalogue is empty{session.can('mcp_servers.manage') ? ': add a template below' : ''}.</p>
      ) : null}
      <ul className="cards">
        {(templates.data ?? []).map((template) => (
          <li key={template.slug} className="card template">
            <h2>{template.name}</h2>
            <p className="muted">
              <code>{template.slug}</code> · {template.transport}
              {/* The health of the template's installations, aggregated every few minutes; "unknown" (none
                  installed, or all starting) says nothing a person can act on, so it is not shown. */}
              {template.health_status === 'healthy' || template.health_status === 'unhealthy' ? (
                <>
                  {' '}
                  · installations <StatusBadge status={template.health_status} />
                  {template.health_check_error ? ` (${template.health_check_error})` : null}
                </>
              ) : null}
            </p>
            {template.description ? <p>{template.description}</p> : null}
            {template.oauth || template.untested ? (
              <p className="muted">
                {template.oauth
                  ? template.oauth.token_scope === 'user'
                    ? 'OAuth: each person authorizes with their own account. '
                    : 'OAuth: a team admin authorizes one account for the team. '
                  : null}
                {template.untested ? (
                  <span data-testid="untested">Untested here: no test of this project reaches this server. </span>
                ) : null}
                {template.documentation_url ? (
                  <a href={template.documentation_url} target="_blank" rel="noreferrer">
                    Vendor documentation
                  </a>
                ) : null}
              </p>
            ) : null}
            <TemplateRuns template={template} />
            {installing === template.slug ? (
              <InstallForm template={template} teams={installable} onCancel={() => setInstalling(null)} />
            ) : installable.length > 0 ? (
              <button type="button" onClick={() => setInstalling(template.slug)}>
                Install<span className="visually-hidden"> {template.name}</span>
              </button>
            ) : (
              <p className="hint">Installing needs the team admin role in a team.</p>
            )}
          </li>
        ))}
      </ul>
      {session.can('mcp_servers.manage') ? <ImportServerJson onImported={templates.reload} /> : null}
    </Page>
  );
}

/**
 * Adds a template from a server.json document of the official MCP Registry, pasted or read from a file
 * (nothing is fetched). The API checks it as the registry does and says what installations must provide.
 */
function ImportServerJson({ onImported }: { onImported: () => void }) {
  const [parseError, setParseError] = useState<string | undefined>();
  const [imported, setImported] = useState<{ template: TemplateView; inputs: TemplateInput[] } | undefined>();
  const form = useForm({ server: '', slug: '' }, async ({ server: text, slug }) => {
    setParseError(undefined);
    setImported(undefined);
    let server: unknown;
    try {
      server = JSON.parse(text);
    } catch (error) {
      setParseError(`This is not JSON: ${(error as Error).message}`);
      return;
    }
    setImported(await api.catalogue.importServerJson({ server, ...(slug ? { slug } : {}) }));
    form.reset();
    onImported();
  });
  const server = form.field('server');

  async function readFile(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (file) form.set({ server: await file.text() });
  }

  return (
    <section className="card" aria-labelledby="import">
      <h2 id="import">Import a server.json</h2>
      <p className="muted">
        A server described in the official MCP Registry’s <code>server.json</code> format becomes a template: its npm,
        PyPI or container package (run over stdio), or its remote endpoint.
      </p>
      <form onSubmit={form.submit} noValidate>
        <TextAreaField
          id="server-json"
          label="server.json document"
          rows={8}
          {...server}
          error={parseError ?? server.error}
        />
        <div className="form-grid">
          <Field label="Or read it from a file" type="file" accept=".json,application/json" onChange={readFile} />
          <Field label="Slug (optional)" hint="Taken from the server's name when left empty." {...form.field('slug')} />
        </div>
        <FormEnd form={form} label="Import" disabled={server.value.trim() === ''} />
      </form>
      {imported ? (
        <div role="status">
          <p>
            Added <strong>{imported.template.name}</strong> (<code>{imported.template.slug}</code>).
          </p>
          {imported.inputs.length > 0 ? (
            <>
              <p>Each installation must provide:</p>
              <ul>
                {imported.inputs.map((input) => (
                  <li key={`${input.kind}-${input.name}`}>
                    {input.kind === 'env' ? 'environment variable' : input.kind} <code>{input.name}</code>
                    {input.secret ? ' (secret)' : ''}
                    {input.required ? '' : ' (optional)'}
                    {input.description ? `: ${input.description}` : ''}
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}

function TemplateRuns({ template }: { template: TemplateView }) {
  const what =
    template.transport === 'stdio'
      ? [template.command, ...template.args].filter(Boolean).join(' ')
      : (template.url ?? '');
  const needs = Object.keys(template.env);
  return (
    <details>
      <summary>What it runs</summary>
      <p>
        <code className="wrap">{what}</code>
      </p>
      {needs.length > 0 ? (
        <p>
          Environment:{' '}
          {needs.map((n) => (
            <code key={n}>{n} </code>
          ))}
        </p>
      ) : null}
    </details>
  );
}

/**
 * The API's refusal of one variable or header (path `installation.headers.Content-Type`), as the field
 * shows it: the name it refused, then why, since the field holds several lines.
 */
function namedError([path, message]: [string, string], field: string): string {
  const name = path.replace(/^installation\./, '').slice(field.length + 1);
  return name ? `${name}: ${message}` : message;
}

/**
 * Installs a template: the team, the installation's name (the server part of tool paths), and what the
 * team adds. A local server takes arguments appended to the template's and environment variables; a
 * remote one takes request headers (an API key its documentation names, say). Values are write-only
 * once saved.
 */
function InstallForm(props: { template: TemplateView; teams: TeamView[]; onCancel: () => void }) {
  const { slug } = props.template;
  const remote = props.template.transport !== 'stdio';
  const [localError, setLocalError] = useState<string | undefined>();
  // The reference templates are named after their npm packages (server-everything); the tool paths
  // read better without the prefix (everything:echo).
  const initial = {
    team: props.teams[0]?.id ?? '',
    name: slug.replace(/^server-/, ''),
    args: '',
    env: '',
    headers: '',
  };
  const install = useForm(initial, async ({ team, name, args, env, headers }) => {
    setLocalError(undefined);
    const parsed = remote ? parseAssignments(headers, headerLines) : parseAssignments(env);
    if ('error' in parsed) {
      setLocalError(parsed.error);
      return;
    }
    const created = await api.installations.create(team, {
      server_slug: slug,
      name,
      ...(remote
        ? { headers: parsed.values }
        : {
            args: args
              .split('\n')
              .map((a) => a.trim())
              .filter(Boolean),
            env: parsed.values,
          }),
    });
    navigate(`/teams/${team}/installations/${created.id}`);
  });

  // The API names these fields with or without the `installation.` prefix, and each variable or header.
  const fields = Object.entries(install.error?.fields ?? {});
  const nameError = install.error?.fields.name ?? install.error?.fields['installation.name'];
  const valuesField = remote ? 'headers' : 'env';
  const refusedValue = fields.find(([k]) => k.startsWith(`installation.${valuesField}`) || k.startsWith(valuesField));
  const valuesError = localError ?? (refusedValue && namedError(refusedValue, valuesField));
  // A few lines of text each; the ids carry the slug, so two open forms never share one.
  const lines = (name: 'args' | 'env' | 'headers', label: string, error?: string) => {
    const field = install.field(name);
    return <TextAreaField id={`${slug}-${name}`} label={label} rows={2} {...field} error={error ?? field.error} />;
  };
  return (
    <form onSubmit={install.submit} noValidate className="install-form" aria-label={`Install ${props.template.name}`}>
      <SelectField
        label="Team"
        options={props.teams.map((t) => ({ value: t.id, label: t.name }))}
        {...install.field('team')}
      />
      <Field
        label="Installation name"
        hint="Lowercase; clients call its tools as name:tool."
        {...install.field('name')}
        error={nameError}
      />
      {remote ? (
        lines('headers', 'Request headers (Name: value, one a line, optional)', valuesError)
      ) : (
        <>
          {lines('args', 'Extra arguments (one a line, optional)')}
          {lines('env', 'Environment (NAME=value, one a line, optional)', valuesError)}
        </>
      )}
      <FormEnd
        form={install}
        fieldsShown={Boolean(nameError || valuesError)}
        label="Install"
        busyLabel="Installing…"
        disabled={!install.values.team}
      >
        <button type="button" className="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </FormEnd>
    </form>
  );
}
