import { type FormEvent, useState } from 'react';
import { api } from '../api/client.ts';
import { Link, navigate } from '../app/router.tsx';
import { useSession } from '../app/session.tsx';
import { useAction, useLoad } from '../app/useLoad.ts';
import { DataTable } from '../components/DataTable.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Field } from '../components/Field.tsx';
import { Page } from '../components/Page.tsx';

/** Teams: every team for a global admin, the person's own teams otherwise (the API decides which). */
export function TeamsPage() {
  const session = useSession();
  const teams = useLoad(() => api.teams.list(), []);
  const roleOf = (teamId: string) => session.me.memberships.find((m) => m.team_id === teamId)?.role;

  return (
    <Page title="Teams">
      <ErrorMessage error={teams.error} />
      {teams.data && teams.data.length === 0 ? (
        <p>{session.isAdmin ? 'No team yet: create the first one below.' : 'You are not a member of any team yet.'}</p>
      ) : null}
      {teams.data && teams.data.length > 0 ? (
        <DataTable
          caption="Teams"
          rows={teams.data}
          rowKey={(team) => team.id}
          columns={[
            { header: 'Name', cell: (team) => <Link to={`/teams/${team.id}`}>{team.name}</Link> },
            { header: 'Slug', cell: (team) => <code>{team.slug}</code> },
            {
              header: 'Your role',
              cell: (team) => roleOf(team.id)?.replace('_', ' ') ?? (session.isAdmin ? 'global admin' : ''),
            },
          ]}
        />
      ) : null}
      {session.can('teams.manage') ? <CreateTeam /> : null}
    </Page>
  );
}

function CreateTeam() {
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [slugEdited, setSlugEdited] = useState(false);
  const create = useAction(async () => {
    const team = await api.teams.create({ name, slug });
    navigate(`/teams/${team.id}`);
  });
  const suggested = suggestedSlug(name);

  function submit(event: FormEvent) {
    event.preventDefault();
    void create.run();
  }

  return (
    <section className="card" aria-labelledby="create-team">
      <h2 id="create-team">Create a team</h2>
      <form onSubmit={submit} noValidate className="form-grid">
        <Field
          label="Name"
          value={name}
          required
          onChange={(e) => {
            setName(e.target.value);
            if (!slugEdited) setSlug(suggestedSlug(e.target.value));
          }}
          error={create.error?.fields.name}
        />
        <Field
          label="Slug"
          hint="Lowercase letters and digits joined by hyphens; part of process names and tool paths."
          value={slug}
          placeholder={suggested}
          required
          onChange={(e) => {
            setSlug(e.target.value);
            setSlugEdited(true);
          }}
          error={create.error?.fields.slug}
        />
        <ErrorMessage error={create.error} fieldsShown />
        <div>
          <button type="submit" disabled={create.pending}>
            Create team
          </button>
        </div>
      </form>
    </section>
  );
}

function suggestedSlug(name: string): string {
  return name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63);
}
