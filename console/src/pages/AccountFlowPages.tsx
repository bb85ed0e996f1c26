import { type FormEvent, type ReactNode, useEffect, useState } from 'react';
import { api, type InvitationPreview } from '../api/client.ts';
import { Link, navigate } from '../app/router.tsx';
import { useAction, useLoad } from '../app/useLoad.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { Field } from '../components/Field.tsx';
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
  const [email, setEmail] = useState('');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const register = useAction(async () => setSent((await api.register({ email, name, password })).message));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void register.run();
  };
  return (
    <Card title="Create an account">
      {sent ? (
        <Done>{sent}</Done>
      ) : (
        <form onSubmit={submit} noValidate>
          <Field
            label="Name"
            autoComplete="name"
            value={name}
            onChange={(e) => setName(e.target.value)}
            error={register.error?.fields.name}
          />
          <Field
            label="E-mail address"
            type="email"
            autoComplete="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={register.error?.fields.email}
          />
          <Field
            label="Password"
            type="password"
            autoComplete="new-password"
            hint="At least 12 characters; a pass phrase is best."
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            error={register.error?.fields.password}
          />
          <ErrorMessage error={register.error} fieldsShown />
          <button type="submit" disabled={register.pending}>
            {register.pending ? 'Creating…' : 'Create the account'}
          </button>
        </form>
      )}
      <p className="hint">
        Have an account? <Link to="/login">Log in</Link>
      </p>
    </Card>
  );
}

export function VerifyEmailPage({ onLogin }: { onLogin: () => Promise<void> }) {
  const [password, setPassword] = useState('');
  const verify = useAction(async () => {
    await api.verifyEmail({ token: tokenFromFragment(), password });
    await onLogin();
    navigate('/', { replace: true });
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void verify.run();
  };
  return (
    <Card title="Confirm your e-mail address">
      <form onSubmit={submit} noValidate>
        <p>Enter the password you chose when you registered: it confirms the address and signs you in.</p>
        <Field
          label="Password"
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          error={verify.error?.fields.password}
        />
        <ErrorMessage error={verify.error} fieldsShown={Boolean(verify.error?.fields.password)} />
        <button type="submit" disabled={verify.pending}>
          {verify.pending ? 'Confirming…' : 'Confirm and sign in'}
        </button>
      </form>
    </Card>
  );
}

export function ForgotPasswordPage() {
  const [email, setEmail] = useState('');
  const [sent, setSent] = useState<string | null>(null);
  const request = useAction(async () => setSent((await api.requestPasswordReset(email)).message));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void request.run();
  };
  return (
    <Card title="Forgot your password?">
      {sent ? (
        <Done>{sent}</Done>
      ) : (
        <form onSubmit={submit} noValidate>
          <Field
            label="E-mail address"
            type="email"
            autoComplete="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            error={request.error?.fields.email}
          />
          <ErrorMessage error={request.error} fieldsShown />
          <button type="submit" disabled={request.pending}>
            {request.pending ? 'Sending…' : 'Send me a link'}
          </button>
        </form>
      )}
      <p className="hint">
        <Link to="/login">Back to log in</Link>
      </p>
    </Card>
  );
}

export function ResetPasswordPage() {
  const [password, setPassword] = useState('');
  const [done, setDone] = useState(false);
  const reset = useAction(async () => {
    await api.resetPassword({ token: tokenFromFragment(), password });
    setDone(true);
  });
  const submit = (event: FormEvent) => {
    event.preventDefault();
    void reset.run();
  };
  return (
    <Card title="Choose a new password">
      {done ? (
        <Done>
          Your password is changed and your other sessions have ended. <Link to="/login">Log in</Link>
        </Done>
      ) : (
        <form onSubmit={submit} noValidate>
          <Field
            label="New password"
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            error={reset.error?.fields.password}
          />
          <ErrorMessage error={reset.error} fieldsShown={Boolean(reset.error?.fields.password)} />
          <button type="submit" disabled={reset.pending}>
            {reset.pending ? 'Saving…' : 'Set the password'}
          </button>
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
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const joinAsNew = useAction(async () => {
    await api.invitations.acceptAsNew({ token, name, password });
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
            <form
              onSubmit={(event) => {
                event.preventDefault();
                void joinAsNew.run();
              }}
              noValidate
            >
              <Field
                label="Your name"
                autoComplete="name"
                value={name}
                onChange={(e) => setName(e.target.value)}
                error={joinAsNew.error?.fields.name}
              />
              <Field
                label="Choose a password"
                type="password"
                autoComplete="new-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                error={joinAsNew.error?.fields.password}
              />
              <ErrorMessage error={joinAsNew.error} fieldsShown />
              <button type="submit" disabled={joinAsNew.pending}>
                {joinAsNew.pending ? 'Joining…' : 'Join the team'}
              </button>
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
