import { useState } from 'react';
import { type ApiError, api, type MemberView, type TeamRole } from '../api/client.ts';
import { Link, navigate } from '../app/router.tsx';
import { useSession } from '../app/session.tsx';
import { useForm } from '../app/useForm.ts';
import { useAction, useLoad } from '../app/useLoad.ts';
import { DangerButton } from '../components/DangerButton.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Field, PasswordField } from '../components/Field.tsx';
import { FormEnd } from '../components/FormEnd.tsx';
import { Page } from '../components/Page.tsx';
import { Options, SelectField } from '../components/SelectField.tsx';

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
      title={loaded.data ? loaded.data.team.name : 'Team'}
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
            {loaded.data.members.length === 0 ? (
              <p className="muted">No members yet{canManage ? ': add people below, or invite them by e-mail.' : '.'}</p>
            ) : null}
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
                        <Options options={roles} />
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
          {canManage ? <Invitations teamId={teamId} /> : null}
          {session.can('teams.manage') ? (
            <section className="card danger-zone" aria-labelledby="delete-team">
              <h2 id="delete-team">Delete this team</h2>
              <p>Its memberships go with it. Installations of the team should be removed first.</p>
              <DangerButton action={removeTeam} question={`Delete team ${loaded.data.team.name}?`}>
                Delete team
              </DangerButton>
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
  const [createAccount, setCreateAccount] = useState(false);
  const add = useForm(
    { email: '', role: 'team_user', name: '', password: '' },
    async ({ email, role, name, password }) => {
      if (createAccount) await api.users.create({ email, name, password, global_role: 'global_user' });
      await api.teams.addMember(teamId, { email, role: role as TeamRole });
      add.set({ email: '', name: '', password: '' });
      setCreateAccount(false);
      onAdded();
    },
  );
  const noSuchUser = add.error?.code === 'not_found';

  return (
    <section className="card" aria-labelledby="add-member">
      <h2 id="add-member">Add a member</h2>
      <form onSubmit={add.submit} noValidate className="form-grid">
        <Field label="E-mail address" type="email" required {...add.field('email')} />
        <SelectField label="Role" options={roles} {...add.field('role')} />
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
            <Field label="Name" required {...add.field('name')} />
            <PasswordField
              choosing
              label="First password"
              hint="At least 12 characters, not a common password; give it to the person to change."
              required
              {...add.field('password')}
            />
          </>
        ) : null}
        {noSuchUser && session.can('users.manage') && !createAccount ? (
          <p className="hint">Tick “Create the account” to make one for this address.</p>
        ) : null}
        <FormEnd form={add} label="Add member" />
      </form>
    </section>
  );
}

/** Invitations by e-mail: the person follows the mailed link to set a password (or sign in) and join. */
function Invitations({ teamId }: { teamId: string }) {
  const invitations = useLoad(() => api.invitations.list(teamId), [teamId]);
  const invite = useForm({ email: '', role: 'team_user' }, async ({ email, role }) => {
    await api.invitations.create(teamId, { email, role: role as TeamRole });
    invite.set({ email: '' });
    invitations.reload();
  });
  const revoke = useAction(async (id: string) => {
    await api.invitations.revoke(teamId, id);
    invitations.reload();
  });
  return (
    <section className="card" aria-labelledby="invitations">
      <h2 id="invitations">Invite by e-mail</h2>
      <form className="inline-form" noValidate onSubmit={invite.submit}>
        <Field label="Address to invite" type="email" {...invite.field('email')} />
        <SelectField label="Their role" options={roles} {...invite.field('role')} />
        <FormEnd form={invite} label="Send the invitation" busyLabel="Inviting…" />
      </form>
      <ErrorMessage error={revoke.error ?? invitations.error} />
      <DataTable
        caption="Invitations"
        rows={invitations.data}
        empty={<p className="muted">No invitations sent.</p>}
        rowKey={(i) => i.id}
        columns={[
          { header: 'E-mail', cell: (i) => i.email },
          { header: 'Role', cell: (i) => i.role.replace('_', ' ') },
          { header: 'State', cell: (i) => i.status },
          { header: 'Until', cell: (i) => new Date(i.expires_at).toLocaleDateString() },
          {
            header: 'Actions',
            cell: (i) =>
              i.status === 'pending' ? (
                <button type="button" className="secondary" onClick={() => void revoke.run(i.id)}>
                  Withdraw<span className="visually-hidden"> {i.email}</span>
                </button>
              ) : null,
          },
        ]}
      />
    </section>
  );
}
