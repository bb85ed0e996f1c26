import { type FormEvent, useState } from 'react';
import { api, type UserPage, type UserView } from '../api/client.ts';
import { useSession } from '../app/session.tsx';
import { useAction, useLoad } from '../app/useLoad.ts';
import { DataTable } from '../components/DataTable.tsx';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Field } from '../components/Field.tsx';
import { Page } from '../components/Page.tsx';

const pageSize = 25;

/**
 * People, for global admins: search by address or name, page through, and per account change the global
 * role, disable or enable it (its sessions and tokens stop at once) or delete it (its id and name stay for
 * what it created). The API refuses to leave the platform without an active global admin, and says so.
 */
export function PeoplePage() {
  const session = useSession();
  const [query, setQuery] = useState('');
  const [search, setSearch] = useState('');
  const [offset, setOffset] = useState(0);
  const people = useLoad<UserPage>(
    () => api.users.list({ q: search || undefined, limit: pageSize, offset }),
    [search, offset],
  );
  const change = useAction(async (user: UserView, body: Parameters<typeof api.users.update>[1]) => {
    const updated = await api.users.update(user.id, body);
    people.set((page) => page && { ...page, items: page.items.map((u) => (u.id === updated.id ? updated : u)) });
  });
  const remove = useAction(async (user: UserView) => {
    if (!window.confirm(`Delete ${user.email}? Their memberships, sessions and tokens go; this cannot be undone.`))
      return;
    await api.users.remove(user.id);
    people.reload();
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    setOffset(0);
    setSearch(query.trim());
  };
  const page = people.data;
  return (
    <Page title="People">
      <form className="inline-form" aria-label="Search people" onSubmit={submit}>
        <Field
          label="Search by e-mail address or name"
          type="search"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <button type="submit">Search</button>
      </form>
      <ErrorMessage error={people.error ?? change.error ?? remove.error} />
      {page ? (
        <>
          <p className="muted" role="status">
            {page.total === 0
              ? 'Nobody matches.'
              : `${page.offset + 1}–${page.offset + page.items.length} of ${page.total}`}
          </p>
          <DataTable
            caption="People"
            rows={page.items}
            rowKey={(u) => u.id}
            columns={[
              { header: 'Name', rowHeader: true, cell: (u) => u.name },
              { header: 'E-mail address', cell: (u) => u.email },
              { header: 'Status', cell: (u) => u.status },
              {
                header: 'Global role',
                cell: (u) => (
                  <select
                    aria-label={`Global role of ${u.email}`}
                    value={u.global_role}
                    disabled={change.pending}
                    onChange={(e) => void change.run(u, { global_role: e.target.value as UserView['global_role'] })}
                  >
                    <option value="global_user">global_user</option>
                    <option value="global_admin">global_admin</option>
                  </select>
                ),
              },
              {
                header: 'Last login',
                cell: (u) => (u.last_login_at ? new Date(u.last_login_at).toLocaleString() : 'never'),
              },
              {
                header: 'Actions',
                cell: (u) =>
                  u.id === session.me.id ? (
                    <span className="muted">you</span>
                  ) : (
                    <span className="row-actions">
                      <button type="button" onClick={() => void change.run(u, { disabled: u.status !== 'disabled' })}>
                        {u.status === 'disabled' ? 'Enable' : 'Disable'}
                        <span className="visually-hidden"> {u.email}</span>
                      </button>
                      <button type="button" className="danger" onClick={() => void remove.run(u)}>
                        Delete<span className="visually-hidden"> {u.email}</span>
                      </button>
                    </span>
                  ),
              },
            ]}
          />
          <div className="pager">
            <button type="button" disabled={offset === 0} onClick={() => setOffset(Math.max(0, offset - pageSize))}>
              Previous
            </button>
            <button
              type="button"
              disabled={offset + pageSize >= page.total}
              onClick={() => setOffset(offset + pageSize)}
            >
              Next
            </button>
          </div>
        </>
      ) : people.loading ? (
        <p role="status">Loading people…</p>
      ) : null}
    </Page>
  );
}
