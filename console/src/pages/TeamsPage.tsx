import { useState } from 'react';
import { api } from '../api/client.ts';
import { Link, navigate } from '../app/router.tsx';
import { useSession } from '../app/session.tsx';
import { useForm } from '../app/useForm.ts';
import { useLoad } from '../app/useLoad.ts';
import { DataTable } from '../components/DataTable.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Field } from '../components/Field.tsx';
import { FormEnd } from '../components/FormEnd.tsx';
import { Page } from '../components/Page.tsx';

/** Teams: every team for a global admin, the person's own teams otherwise (the API decides which). */
export function TeamsPage() {
  const session = useSession();
  const teams = useLoad(() => api.teams.list(), []);
  const roleOf = (teamId: string) => session.me.memberships.find((m) => m.team_id === teamId)?.role;

  return (
    <Page title="Teams">
      <ErrorMessage error={teams.error} />
      <DataTable
        caption="Teams"
        rows={teams.data}
        empty={
          <p>
            {session.isAdmin ? 'No team yet: create the first one below.' : 'You are not a member of any team yet.'}
          </p>
        }
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
      {session.can('teams.manage') ? <CreateTeam /> : null}
    </Page>
  );
}

function CreateTeam() {
  const [slugEdited, setSlugEdited] = useState(false);
  const create = useForm({ name: '', slug: '' }, async (body) => {
    const team = await api.teams.create(body);
    navigate(`/teams/${team.id}`);
  });
  const name = create.field('name');
  const slug = create.field('slug');

  return (
    <section className="card" aria-labelledby="create-team">
      <h2 id="create-team">Create a team</h2>
      <form onSubmit={create.submit} noValidate className="form-grid">
        <Field
          label="Name"
          required
          {...name}
          onChange={(e) =>
            create.set({ name: e.target.value, ...(slugEdited ? {} : { slug: suggestedSlug(e.target.value) }) })
          }
        />
        <Field
          label="Slug"
          hint="Lowercase letters and digits joined by hyphens; part of process names and tool paths."
          placeholder={suggestedSlug(name.value)}
          required
          {...slug}
          onChange={(e) => {
            slug.onChange(e);
            setSlugEdited(true);
          }}
        />
        <FormEnd form={create} label="Create team" />
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
