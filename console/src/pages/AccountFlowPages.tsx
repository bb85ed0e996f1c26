import { type ReactNode, useEffect, useState } from 'react';
import { api, type InvitationPreview } from '../api/client.ts';
import { Link, navigate } from '../app/router.tsx';
import { useForm } from '../app/useForm.ts';
import { useAction, useLoad } from '../app/useLoad.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Field, PasswordField, passwordHint } from '../components/Field.tsx';
import { FormEnd } from '../components/FormEnd.tsx';
import { SignInButtons } from '../components/SignInButtons.tsx';

/**
 * The pages a person reaches before signing in, most of them from a mailed link: registration, address
 * confirmation, forgotten password, new password, and an invitation. A link's token comes in the URL
 * fragment (`#token=...`), which the browser never sends to a server; the page posts it to the API.
 */
function tokenFromFragment(): string {
  return new URLSearchParams(window.location.hash.slice(1)).get('token') ?? '';
}

function Card({ title, children }: { title: string; children: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Orbital`;
  }, [title]);
  return (
    <main id="main" className="login">
      <div className="card login-card">
        <h1>{title}</h1>
        {children}
      </div>
    </main>
  );
}

function Done({ children }: { children: ReactNode }) {
  return (
    <p role="status" className="success">
      {children}
    </p>
  );
}

export function RegisterPage() {
  const [sent, setSent] = useState<string | null>(null);
  const form = useForm({ name: '', email: '', password: '' }, async (body) =>
    setSent((await api.register(body)).message),
  );
  return (
    <Card title="Create an account">
      {sent ? (
        <Done>{sent}</Done>
      ) : (
        <form onSubmit={form.submit} noValidate>
          <Field label="Name" autoComplete="name" {...form.field('name')} />
          <Field label="E-mail address" type="email" autoComplete="email" {...form.field('email')} />
          <PasswordField choosing label="Password" hint={passwordHint} {...form.field('password')} />
          <FormEnd form={form} label="Create the account" busyLabel="Creating…" />
        </form>
      )}
      <p className="hint">
        Have an account? <Link to="/login">Log in</Link>
      </p>
    </Card>
  );
}

export function VerifyEmailPage({ onLogin }: { onLogin: () => Promise<void> }) {
  const form = useForm({ password: '' }, async ({ password }) => {
    await api.verifyEmail({ token: tokenFromFragment(), password });
    await onLogin();
    navigate('/', { replace: true });
  });
  return (
    <Card title="Confirm your e-mail address">
      <form onSubmit={form.submit} noValidate>
        <p>Enter the password you chose when you registered: it confirms the address and signs you in.</p>
        <PasswordField label="Password" {...form.field('password')} />
        <FormEnd form={form} label="Confirm and sign in" busyLabel="Confirming…" />
      </form>
    </Card>
  );
}

export function ForgotPasswordPage() {
  const [sent, setSent] = useState<string | null>(null);
  const form = useForm({ email: '' }, async ({ email }) => setSent((await api.requestPasswordReset(email)).message));
  return (
    <Card title="Forgot your password?">
      {sent ? (
        <Done>{sent}</Done>
      ) : (
        <form onSubmit={form.submit} noValidate>
          <Field label="E-mail address" type="email" autoComplete="email" {...form.field('email')} />
          <FormEnd form={form} label="Send me a link" busyLabel="Sending…" />
        </form>
      )}
      <p className="hint">
        <Link to="/login">Back to log in</Link>
      </p>
    </Card>
  );
}

export function ResetPasswordPage() {
  const [done, setDone] = useState(false);
  const form = useForm({ password: '' }, async ({ password }) => {
    await api.resetPassword({ token: tokenFromFragment(), password });
    setDone(true);
  });
  return (
    <Card title="Choose a new password">
      {done ? (
        <Done>
          Your password is changed and your other sessions have ended. <Link to="/login">Log in</Link>
        </Done>
      ) : (
        <form onSubmit={form.submit} noValidate>
          <PasswordField choosing label="New password" {...form.field('password')} />
          <FormEnd form={form} label="Set the password" busyLabel="Saving…" />
        </form>
      )}
    </Card>
  );
}

export function InvitationPage({ onLogin, signedInAs }: { onLogin: () => Promise<void>; signedInAs: string | null }) {
  const token = tokenFromFragment();
  const preview = useLoad<InvitationPreview>(() => api.invitations.preview(token), [token]);
  // GitHub or single sign-on, when on, bring the person back here signed in, to join with that account.
  const methods = useLoad(() => api.signInMethods(), []).data;
  const joinAsNew = useForm({ name: '', password: '' }, async (person) => {
    await api.invitations.acceptAsNew({ token, ...person });
    await onLogin();
    navigate('/', { replace: true });
  });
  const joinAsMe = useAction(async () => {
    const joined = await api.invitations.acceptAsMe(token);
    await onLogin();
    navigate(`/teams/${joined.team_id}`, { replace: true });
  });
  const invite = preview.data;
  const next = `/invitation${window.location.hash}`;
  return (
    <Card title="Join a team">
      <ErrorMessage error={preview.error} />
      {invite ? (
        <>
          <p>
            You are invited to <strong>{invite.team_name}</strong> as{' '}
            {invite.role === 'team_admin' ? 'a team admin' : 'a member'}, at <code>{invite.email}</code>.
          </p>
          {signedInAs !== null ? (
            <>
              <ErrorMessage error={joinAsMe.error} />
              <button type="button" onClick={() => void joinAsMe.run()} disabled={joinAsMe.pending}>
                Join as {signedInAs}
              </button>
            </>
          ) : invite.account_exists ? (
            <>
              <p>
                This address has an account: <Link to={`/login?next=${encodeURIComponent(next)}`}>log in</Link>, then
                join.
              </p>
              <SignInButtons methods={methods} next={next} />
            </>
          ) : (
            <form onSubmit={joinAsNew.submit} noValidate>
              <Field label="Your name" autoComplete="name" {...joinAsNew.field('name')} />
              <PasswordField choosing label="Choose a password" {...joinAsNew.field('password')} />
              <FormEnd form={joinAsNew} label="Join the team" busyLabel="Joining…" />
              <SignInButtons methods={methods} next={next} />
            </form>
          )}
        </>
      ) : preview.loading ? (
        <p role="status">Loading the invitation…</p>
      ) : null}
    </Card>
  );
}
