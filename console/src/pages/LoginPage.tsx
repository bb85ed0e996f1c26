import { useEffect } from 'react';
import { ApiError, api } from '../api/client.ts';
import { Link, navigate, queryParam, useLocation } from '../app/router.tsx';
import { useForm } from '../app/useForm.ts';
import { useLoad } from '../app/useLoad.ts';
import { Field, PasswordField } from '../components/Field.tsx';
import { FormEnd } from '../components/FormEnd.tsx';
import { SignInButtons } from '../components/SignInButtons.tsx';

/** Only paths of this console are followed after login, never another site. */
function safeNext(next: string | null): string {
  return next?.startsWith('/') && !next.startsWith('//') && !next.startsWith('/login') ? next : '/';
}

export function LoginPage({ onLogin, loggedIn }: { onLogin: () => Promise<void>; loggedIn: boolean }) {
  const location = useLocation();
  const next = safeNext(queryParam(location, 'next'));
  // Which ways to sign in are on; while unknown (or unreadable), the password form is offered as before.
  const methods = useLoad(() => api.signInMethods(), []).data;
  const passwordOn = methods?.password ?? true;
  const login = useForm({ email: '', password: '' }, async ({ email, password }) => {
    // An empty form is answered here, in words, before any request.
    if (email.trim() === '' || password === '') {
      throw new ApiError(400, 'validation_failed', 'Enter your e-mail address and your password.', {
        ...(email.trim() === '' ? { email: 'Enter your e-mail address' } : {}),
        ...(password === '' ? { password: 'Enter your password' } : {}),
      });
    }
    await api.login({ email, password });
    await onLogin();
    navigate(next, { replace: true });
  });

  useEffect(() => {
    document.title = 'Log in · Orbital';
    if (loggedIn) navigate(next, { replace: true });
  }, [loggedIn, next]);

  return (
    <main id="main" className="login">
      <form onSubmit={login.submit} className="card login-card" aria-labelledby="login-title" noValidate>
        <h1 id="login-title">Log in to Orbital</h1>
        {methods && !methods.login_enabled ? (
          <p role="status">
            Signing in is turned off on this platform. A global admin who is signed in can turn it back on.
          </p>
        ) : null}
        {passwordOn ? (
          <>
            <Field
              label="E-mail address"
              type="email"
              name="email"
              autoComplete="username"
              required
              {...login.field('email')}
            />
            <PasswordField label="Password" name="password" required {...login.field('password')} />
            <FormEnd form={login} label="Log in" busyLabel="Logging in…" />
          </>
        ) : null}
        <SignInButtons methods={methods} next={next} />
        <p className="hint">
          <Link to="/forgot-password">Forgot your password?</Link> · <Link to="/register">Create an account</Link>
        </p>
        <p className="hint">
          On a development machine ({'npm start'}) the first admin is <code>admin@orbital.localhost</code>; its password
          is <code>ADMIN_PASSWORD</code> in <code>.orbital/dev.env</code>.
        </p>
      </form>
    </main>
  );
}
