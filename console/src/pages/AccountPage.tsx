import { type FormEvent, useState } from 'react';
import { api } from '../api/client.ts';
import { useSession } from '../app/session.tsx';
import { useAction } from '../app/useLoad.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Field } from '../components/Field.tsx';
import { Page } from '../components/Page.tsx';

/** Your own account: who you are, and a new password (the current one is asked; other sessions end). */
export function AccountPage() {
  const session = useSession();
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [done, setDone] = useState(false);
  const change = useAction(async () => {
    setDone(false);
    await api.users.changePassword({ current_password: current, new_password: next });
    setCurrent('');
    setNext('');
    setDone(true);
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void change.run();
  };
  return (
    <Page title="Your account">
      <p>
        {session.me.name} · <code>{session.me.email}</code> · {session.me.global_role}
      </p>
      <form className="card" onSubmit={submit} noValidate aria-labelledby="password-title">
        <h2 id="password-title">Change your password</h2>
        <Field
          label="Current password"
          type="password"
          autoComplete="current-password"
          value={current}
          onChange={(e) => setCurrent(e.target.value)}
          error={change.error?.fields.current_password}
        />
        <Field
          label="New password"
          type="password"
          autoComplete="new-password"
          hint="At least 12 characters; a pass phrase is best."
          value={next}
          onChange={(e) => setNext(e.target.value)}
          error={change.error?.fields.new_password}
        />
        <ErrorMessage error={change.error} fieldsShown />
        <button type="submit" disabled={change.pending}>
          {change.pending ? 'Saving…' : 'Change the password'}
        </button>
        {done ? (
          <p role="status" className="success">
            Your password is changed; your other sessions have ended.
          </p>
        ) : null}
      </form>
    </Page>
  );
}
