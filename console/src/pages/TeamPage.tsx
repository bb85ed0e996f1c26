import { type FormEvent, useState } from 'react';
import { type ApiError, api, type MemberView, type TeamRole } from '../api/client.ts';
import { Link, navigate } from '../app/router.tsx';
import { useSession } from '../app/session.tsx';
import { useAction, useLoad } from '../app/useLoad.ts';
import { DataTable } from '../components/DataTable.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Field } from '../components/Field.tsx';
import { Page } from '../components/Page.tsx';
import { SelectField } from '../components/SelectField.tsx';

const roles: Array<{ value: TeamRole; label: string }> = [
  { value: 'team_user', label: 'Team user' },
  { value: 'team_admin', label: 'Team admin' },
];

/** One team: its members and their roles; team admins and global admins manage them. */
export function TeamPage({ teamId }: { teamId: string }) {
  const session = useSession();
  const loaded = useLoad(async () => {
    const [team, members] = await Promise.all([api.teams.get(teamId), api.teams.members(teamId)]);
    return { team, members };
  }, [teamId]);
  const canManage = session.canInTeam(teamId, 'team.manage_members');
  const [rowError, setRowError] = useState<ApiError | undefined>();

  async function change(member: MemberView, role: TeamRole | null) {
    setRowError(undefined);
    try {
      if (role === null) await api.teams.removeMember(teamId, member.user_id);
      else await api.teams.changeRole(teamId, member.user_id, role);
      loaded.reload();
      if (member.user_id === session.me.id) await session.refresh();
    } catch (error) {
      setRowError(error as ApiError);
    }
  }

  const removeTeam = useAction(async () => {
    await api.teams.remove(teamId);
    await session.refresh();
    navigate('/teams');
  });

  return (
    <Page
      title={loaded.data ? `Team ${loaded.data.team.name}` : 'Team'}
      actions={
        <Link to={`/installations?team=${teamId}`} className="button secondary">
          Installations
        </Link>
      }
    >
      <ErrorMessage error={loaded.error} />
      {loaded.data ? (
        <>
          <p className="muted">
            Slug <code>{loaded.data.team.slug}</code>
          </p>
          <section aria-labelledby="members">
            <h2 id="members">Members</h2>
            <ErrorMessage error={rowError} />
            <DataTable
              rows={loaded.data.members}
              rowKey={(member) => member.user_id}
              columns={[
                { header: 'Name', cell: (member) => member.name },
                { header: 'E-mail', cell: (member) => member.email },
                {
                  header: 'Role',
                  cell: (member) =>
                    canManage ? (
                      <select
                        aria-label={`Role of ${member.name}`}
                        value={member.role}
                        onChange={(e) => void change(member, e.target.value as TeamRole)}
                      >
                        {roles.map((r) => (
                          <option key={r.value} value={r.value}>
                            {r.label}
                          </option>
                        ))}
                      </select>
                    ) : (
                      member.role.replace('_', ' ')
                    ),
                },
                ...(canManage
                  ? [
                      {
                        header: 'Actions',
                        cell: (member: MemberView) => (
                          <button type="button" className="secondary" onClick={() => void change(member, null)}>
                            Remove<span className="visually-hidden"> {member.name}</span>
                          </button>
                        ),
                      },
                    ]
                  : []),
              ]}
            />
          </section>
          {canManage ? <AddMember teamId={teamId} onAdded={loaded.reload} /> : null}
          {session.can('teams.manage') ? (
            <section className="card danger-zone" aria-labelledby="delete-team">
              <h2 id="delete-team">Delete this team</h2>
              <p>Its memberships go with it. Installations of the team should be removed first.</p>
              <ErrorMessage error={removeTeam.error} />
              <button
                type="button"
                className="danger"
                disabled={removeTeam.pending}
                onClick={() => {
                  if (window.confirm(`Delete team ${loaded.data?.team.name}?`)) void removeTeam.run();
                }}
              >
                Delete team
              </button>
            </section>
          ) : null}
        </>
      ) : null}
    </Page>
  );
}

/**
 * Adds a person by e-mail address. A global admin can also create the account when it does not exist
 * yet (there is no self-registration): name and a first password, which the person should change.
 */
function AddMember({ teamId, onAdded }: { teamId: string; onAdded: () => void }) {
  const session = useSession();
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<TeamRole>('team_user');
  const [createAccount, setCreateAccount] = useState(false);
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const add = useAction(async () => {
    if (createAccount) await api.users.create({ email, name, password, global_role: 'global_user' });
    await api.teams.addMember(teamId, { email, role });
    setEmail('');
    setName('');
    setPassword('');
    setCreateAccount(false);
    onAdded();
  });
  const noSuchUser = add.error?.code === 'not_found';

  function submit(event: FormEvent) {
    event.preventDefault();
    void add.run();
  }

  return (
    <section className="card" aria-labelledby="add-member">
      <h2 id="add-member">Add a member</h2>
      <form onSubmit={submit} noValidate className="form-grid">
        <Field
          label="E-mail address"
          type="email"
          value={email}
          required
          onChange={(e) => setEmail(e.target.value)}
          error={add.error?.fields.email}
        />
        <SelectField
          label="Role"
          value={role}
          options={roles}
          onChange={(e) => setRole(e.target.value as TeamRole)}
          error={add.error?.fields.role}
        />
        {session.can('users.manage') ? (
          <Field
            type="checkbox"
            label="Create the account (no account has this address yet)"
            checked={createAccount}
            onChange={(e) => setCreateAccount(e.target.checked)}
          />
        ) : null}
        {createAccount ? (
          <>
            <Field
              label="Name"
              value={name}
              required
              onChange={(e) => setName(e.target.value)}
              error={add.error?.fields.name}
            />
            <Field
              label="First password"
              type="password"
              autoComplete="new-password"
              hint="At least 12 characters, not a common password; give it to the person to change."
              value={password}
              required
              onChange={(e) => setPassword(e.target.value)}
              error={add.error?.fields.password}
            />
          </>
        ) : null}
        <ErrorMessage error={add.error} fieldsShown />
        {noSuchUser && session.can('users.manage') && !createAccount ? (
          <p className="hint">Tick “Create the account” to make one for this address.</p>
        ) : null}
        <div>
          <button type="submit" disabled={add.pending}>
            Add member
          </button>
        </div>
      </form>
    </section>
  );
}
