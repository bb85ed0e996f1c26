import { useState } from 'react';
import { api } from '../api/client.ts';
import { useSession } from '../app/session.tsx';
import { useForm } from '../app/useForm.ts';
import { PasswordField, passwordHint } from '../components/Field.tsx';
import { FormEnd } from '../components/FormEnd.tsx';
import { Page } from '../components/Page.tsx';

/** Your own account: who you are, and a new password (the current one is asked; other sessions end). */
export function AccountPage() {
  const session = useSession();
  const [done, setDone] = useState(false);
  const change = useForm({ current_password: '', new_password: '' }, async (passwords) => {
    setDone(false);
    await api.users.changePassword(passwords);
    change.reset();
    setDone(true);
  });
  return (
    <Page title="Your account">
      <p>
        {session.me.name} · <code>{session.me.email}</code> · {session.me.global_role}
      </p>
      <form className="card" onSubmit={change.submit} noValidate aria-labelledby="password-title">
        <h2 id="password-title">Change your password</h2>
        <PasswordField label="Current password" {...change.field('current_password')} />
        <PasswordField choosing label="New password" hint={passwordHint} {...change.field('new_password')} />
        <FormEnd form={change} label="Change the password" busyLabel="Saving…" />
        {done ? (
          <p role="status" className="success">
            Your password is changed; your other sessions have ended.
          </p>
        ) : null}
      </form>
    </Page>
  );
}
