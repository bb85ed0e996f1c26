import { linkIn, type MailServer, startMailServer } from '@orbital/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, callerAs, login } from './identityStack.ts';
import { useIdentityStack } from './useIdentityStack.ts';

/**
 * The flows that go through a mailed link, against a real SMTP server (smtp-server, in this process):
 * registration and address confirmation, password reset, invitations, and the outbox that sends their
 * mail from two gateway replicas (once each), through a server that is down or refuses.
 */
const identity = useIdentityStack({
  gateways: 2,
  mail: { intervalMs: 200, retryBaseMs: 200, maxAttempts: 3 },
  mailRequestLimits: {
    perAddress: { maxAttempts: 3, windowSeconds: 600 },
    perClient: { maxAttempts: 1000, windowSeconds: 600 },
  },
});
const { replica: app, asAdmin, sql } = identity;
let smtp: MailServer;
let teamId: string;
const pageUrl = 'https://console.orbital.test';
const strong = 'a fine long pass phrase 42';

const post = (url: string, payload: unknown, index = 0) =>
  app(index).inject({ method: 'POST', url, payload: payload as object });
const setSetting = async (key: string, value: string | boolean | number) => {
  const response = await asAdmin()('PUT', `/api/settings/${key}`, { value });
  expect(response.statusCode, response.body).toBe(200);
};

beforeAll(async () => {
  smtp = await startMailServer();
  teamId = (await asAdmin()('POST', '/api/teams', { slug: 'mailers', name: 'Mail <Team>' })).json().data.id;
});
afterAll(async () => {
  await smtp?.close();
});

const mailOn = async () => {
  await setSetting('smtp.host', '127.0.0.1');
  await setSetting('smtp.port', smtp.port);
  await setSetting('smtp.secure', false);
  await setSetting('smtp.from_email', 'orbital@orbital.test');
  await setSetting('smtp.from_name', 'Orbital Test');
  await setSetting('global.page_url', pageUrl);
  await setSetting('global.send_mail', true);
};

describe('while the platform sends no mail', () => {
  it('says so for every flow that needs one, and sends nothing', async () => {
    const refusals = [
      await post('/api/auth/register', { email: 'early@orbital.test', password: strong, name: 'Early' }),
      await post('/api/auth/password-reset', { email: 'root@orbital.test' }),
      await post('/api/auth/verify-email/resend', { email: 'early@orbital.test' }),
      await asAdmin()('POST', `/api/teams/${teamId}/invitations`, { email: 'early@orbital.test' }),
    ];
    for (const refused of refusals) {
      expect(refused.statusCode).toBe(409);
      expect(refused.json().error).toMatchObject({
        code: 'mail_disabled',
        message: expect.stringContaining('does not send mail'),
      });
    }
    expect(
      (await sql('SELECT count(*)::int AS n FROM identity.users WHERE email = $1', ['early@orbital.test']))[0].n,
    ).toBe(0);
    expect(smtp.received).toEqual([]);
  });
});

describe('registration by e-mail', () => {
  beforeAll(mailOn);

  it('is refused while global.enable_email_registration is off', async () => {
    await setSetting('global.enable_email_registration', false);
    const refused = await post('/api/auth/register', {
      email: 'closed@orbital.test',
      password: strong,
      name: 'Closed',
    });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().error.code).toBe('registration_disabled');
    await setSetting('global.enable_email_registration', true);
  });

  it('creates an unconfirmed global_user, mails a link under global.page_url, and signs in once it is followed', async () => {
    const email = 'newcomer@orbital.test';
    const weak = await post('/api/auth/register', { email, password: 'short', name: 'New' });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().error.details[0].path).toBe('body.password');

    const registered = await post('/api/auth/register', { email, password: strong, name: 'Newcomer' });
    expect(registered.statusCode).toBe(202);
    expect(registered.json().data.status).toBe('mail_sent');
    const [mail] = await smtp.waitFor(email);
    if (!mail) throw new Error('no mail');
    expect(mail.subject).toContain('Confirm your e-mail address');
    const link = linkIn(mail);
    expect(link.page).toBe(`${pageUrl}/verify-email`);
    // Only the hash of the token is stored, and the outbox never held it.
    const stored = await sql("SELECT encode(token_hash, 'hex') AS h FROM identity.account_tokens");
    expect(JSON.stringify(stored)).not.toContain(link.token);
    expect(JSON.stringify(await sql('SELECT * FROM identity.mail_outbox'))).not.toContain(link.token);

    const early = await post('/api/auth/login', { email, password: strong });
    expect(early.statusCode).toBe(403);
    expect(early.json().error.code).toBe('email_unverified');
    const wrongPassword = await post('/api/auth/verify-email', { token: link.token, password: 'not the one I chose' });
    expect(wrongPassword.statusCode).toBe(400);
    expect(wrongPassword.json().error.details[0].path).toBe('body.password');

    const confirmed = await post('/api/auth/verify-email', { token: link.token, password: strong }, 1);
    expect(confirmed.statusCode).toBe(200);
    expect(confirmed.json().data.user).toMatchObject({ email, global_role: 'global_user' });
    const replayed = await post('/api/auth/verify-email', { token: link.token, password: strong });
    expect(replayed.statusCode).toBe(400);
    expect(replayed.json().error.message).toContain('already used');
    expect((await login(app(), email, strong)).token).toBeTruthy();
  });

  it('answers a registered address exactly like a new one, and tells its owner by mail', async () => {
    const again = await post('/api/auth/register', { email: 'newcomer@orbital.test', password: strong, name: 'Other' });
    expect(again.statusCode).toBe(202);
    const mails = await smtp.waitFor('newcomer@orbital.test', 2);
    expect(mails[1]?.subject).toContain('account');
    expect(mails[1]?.text).toContain(`${pageUrl}/forgot-password`);
    // The account and its password are untouched.
    expect((await login(app(), 'newcomer@orbital.test', strong)).token).toBeTruthy();
  });

  it('refuses new sessions from registration while login is off', async () => {
    await setSetting('global.enable_login', false);
    try {
      const refused = await post('/api/auth/register', { email: 'off@orbital.test', password: strong, name: 'Off' });
      expect(refused.statusCode).toBe(403);
      expect(refused.json().error.code).toBe('login_disabled');
    } finally {
      await setSetting('global.enable_login', true);
    }
  });
});

describe('password reset', () => {
  beforeAll(mailOn);
  const email = 'forgetful@orbital.test';

  it('answers the same for an unknown address and sends nothing there', async () => {
    await asAdmin()('POST', '/api/users', { email, name: 'Forgetful', password: strong });
    const unknown = await post('/api/auth/password-reset', { email: 'nobody-here@orbital.test' });
    const known = await post('/api/auth/password-reset', { email });
    expect(unknown.statusCode).toBe(202);
    expect(known.statusCode).toBe(202);
    expect(unknown.json()).toEqual(known.json());
    await smtp.waitFor(email);
    expect(smtp.to('nobody-here@orbital.test')).toEqual([]);
  });

  it('sets a new password once with the mailed link, ending every session; a replayed or expired link is refused', async () => {
    const session = await login(app(), email, strong);
    const [, mail] = await smtp.waitFor(email, 1).then(async () => {
      await post('/api/auth/password-reset', { email });
      return smtp.waitFor(email, 2);
    });
    if (!mail) throw new Error('no reset mail');
    const link = linkIn(mail);
    expect(link.page).toBe(`${pageUrl}/reset-password`);
    // The first mail's link was replaced by the second's.
    const first = smtp.to(email)[0];
    if (!first) throw new Error('no first mail');
    expect(
      (
        await post('/api/auth/password-reset/confirm', {
          token: linkIn(first).token,
          password: 'another fine pass phrase',
        })
      ).statusCode,
    ).toBe(400);

    const weak = await post('/api/auth/password-reset/confirm', { token: link.token, password: 'short' });
    expect(weak.statusCode).toBe(400);
    expect(weak.json().error.details[0].path).toBe('body.password');
    const done = await post(
      '/api/auth/password-reset/confirm',
      { token: link.token, password: 'another fine pass phrase' },
      1,
    );
    expect(done.statusCode).toBe(200);
    expect((await app(0).inject({ method: 'GET', url: '/api/users/me', headers: bearer(session) })).statusCode).toBe(
      401,
    );
    const replay = await post('/api/auth/password-reset/confirm', {
      token: link.token,
      password: 'yet another pass phrase',
    });
    expect(replay.statusCode).toBe(400);
    expect(replay.json().error.details).toEqual([{ path: 'body.token', message: 'has been used' }]);
    expect((await login(app(), email, 'another fine pass phrase')).token).toBeTruthy();

    await post('/api/auth/password-reset', { email });
    const [, , latest] = await smtp.waitFor(email, 3);
    if (!latest) throw new Error('no third mail');
    await sql("UPDATE identity.account_tokens SET expires_at = now() - interval '1 second' WHERE used_at IS NULL");
    const expired = await post('/api/auth/password-reset/confirm', {
      token: linkIn(latest).token,
      password: 'yet another pass phrase',
    });
    expect(expired.statusCode).toBe(400);
    expect(expired.json().error.message).toContain('expired');
  });

  it('limits requests for one address', async () => {
    const address = 'limited@orbital.test';
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push((await post('/api/auth/password-reset', { email: address })).statusCode);
    expect(answers).toEqual([202, 202, 202, 429]);
  });
});

describe('invitations', () => {
  beforeAll(mailOn);

  it('lets a new person set a password and join the team through the mailed link, once', async () => {
    const email = 'invitee@orbital.test';
    const made = await asAdmin()('POST', `/api/teams/${teamId}/invitations`, { email, role: 'team_admin' });
    expect(made.statusCode).toBe(201);
    expect(made.json().data).toMatchObject({
      email,
      role: 'team_admin',
      status: 'pending',
      invited_by: { name: 'Root' },
    });
    const [mail] = await smtp.waitFor(email);
    if (!mail) throw new Error('no invitation mail');
    expect(mail.subject).toContain('Mail <Team>');
    const link = linkIn(mail);
    expect(link.page).toBe(`${pageUrl}/invitation`);
    const preview = await post('/api/invitations/preview', { token: link.token });
    expect(preview.json().data).toMatchObject({
      team_name: 'Mail <Team>',
      email,
      role: 'team_admin',
      account_exists: false,
    });

    const accepted = await post('/api/invitations/accept', { token: link.token, name: 'Invitee', password: strong }, 1);
    expect(accepted.statusCode).toBe(200);
    const session = { token: accepted.json().data.token, cookie: '', userId: accepted.json().data.user.id };
    const me = await app(0).inject({ method: 'GET', url: '/api/users/me', headers: bearer(session) });
    expect(me.json().data.memberships).toEqual([expect.objectContaining({ team_id: teamId, role: 'team_admin' })]);
    const replay = await post('/api/invitations/accept', { token: link.token, name: 'Again', password: strong });
    expect(replay.statusCode).toBe(400);
    const list = (await asAdmin()('GET', `/api/teams/${teamId}/invitations`)).json().data;
    expect(list.find((i: { email: string }) => i.email === email)?.status).toBe('accepted');
  });

  it('lets an existing account accept while signed in as itself, and nobody else', async () => {
    const email = 'member-to-be@orbital.test';
    await asAdmin()('POST', '/api/users', { email, name: 'Existing', password: strong });
    await asAdmin()('POST', `/api/teams/${teamId}/invitations`, { email });
    const link = linkIn(
      (await smtp.waitFor(email))[0] ??
        (() => {
          throw new Error('no mail');
        })(),
    );
    expect((await post('/api/invitations/preview', { token: link.token })).json().data.account_exists).toBe(true);
    const asNewPerson = await post('/api/invitations/accept', { token: link.token, name: 'Someone', password: strong });
    expect(asNewPerson.statusCode).toBe(409);
    const stranger = await callerAs(app(), identity.admin)('POST', '/api/users/me/invitations/accept', {
      token: link.token,
    });
    expect(stranger.statusCode).toBe(403);
    const owner = await login(app(), email, strong);
    const joined = await callerAs(app(1), owner)('POST', '/api/users/me/invitations/accept', { token: link.token });
    expect(joined.json().data).toEqual({ team_id: teamId, team_name: 'Mail <Team>', role: 'team_user' });
    const me = await app(0).inject({ method: 'GET', url: '/api/users/me', headers: bearer(owner) });
    expect(me.json().data.memberships.map((m: { team_id: string }) => m.team_id)).toEqual([teamId]);
  });

  it('stops a withdrawn invitation, refuses a member and checks the team admin', async () => {
    const email = 'withdrawn@orbital.test';
    const made = (await asAdmin()('POST', `/api/teams/${teamId}/invitations`, { email })).json().data;
    const link = linkIn(
      (await smtp.waitFor(email))[0] ??
        (() => {
          throw new Error('no mail');
        })(),
    );
    expect((await asAdmin()('DELETE', `/api/teams/${teamId}/invitations/${made.id}`)).statusCode).toBe(200);
    expect((await post('/api/invitations/accept', { token: link.token, name: 'W', password: strong })).statusCode).toBe(
      400,
    );
    const member = await asAdmin()('POST', `/api/teams/${teamId}/invitations`, { email: 'invitee@orbital.test' });
    expect(member.statusCode).toBe(409);
    expect(member.json().error.details).toEqual([{ path: 'body.email', message: 'is already a member' }]);
  });
});

describe('the outbox', () => {
  beforeAll(mailOn);

  it('sends each mail once from two replicas', async () => {
    const addresses = Array.from({ length: 6 }, (_, i) => `once-${i}@orbital.test`);
    for (const [i, email] of addresses.entries()) {
      await asAdmin(i % 2)('POST', '/api/users', { email, name: `Once ${i}`, password: strong });
      await post('/api/auth/password-reset', { email }, i % 2);
    }
    for (const email of addresses) await smtp.waitFor(email);
    // Give both senders more rounds: nothing is sent twice.
    await Promise.all(identity.stack.gateways.map((g) => g.identity.mail.flush()));
    for (const email of addresses) expect(smtp.to(email)).toHaveLength(1);
  });

  it('keeps mail through a server that is down, logs each failure, and sends it once the server is back', async () => {
    const down = await startMailServer();
    const port = down.port;
    await down.close();
    await setSetting('smtp.port', port);
    const email = 'patient@orbital.test';
    await asAdmin()('POST', '/api/users', { email, name: 'Patient', password: strong });
    const answered = await post('/api/auth/password-reset', { email });
    expect(answered.statusCode).toBe(202);
    await expect
      .poll(
        async () =>
          (await sql('SELECT attempts, last_error FROM identity.mail_outbox WHERE recipient = $1', [email]))[0]
            ?.attempts ?? 0,
        { timeout: 20_000 },
      )
      .toBeGreaterThanOrEqual(1);
    const [row] = await sql('SELECT status, last_error FROM identity.mail_outbox WHERE recipient = $1', [email]);
    expect(row.status).toBe('pending');
    expect(row.last_error).toMatch(/ECONNREFUSED|connect/);
    expect(identity.stack.logs.lines().some((l) => l.event === 'mail.send_failed')).toBe(true);
    await setSetting('smtp.port', smtp.port);
    await smtp.waitFor(email);
  });

  it('gives up a mail the server refuses after its last attempt, saying so in the log', async () => {
    smtp.setRefusing(true);
    try {
      const email = 'refused@orbital.test';
      await asAdmin()('POST', '/api/users', { email, name: 'Refused', password: strong });
      await post('/api/auth/password-reset', { email });
      await expect
        .poll(
          async () => (await sql('SELECT status FROM identity.mail_outbox WHERE recipient = $1', [email]))[0]?.status,
          {
            timeout: 20_000,
          },
        )
        .toBe('failed');
      const failure = identity.stack.logs.lines().find((l) => l.event === 'mail.failed');
      expect(failure).toMatchObject({ level: 'error', kind: 'password_reset', attempts: 3 });
    } finally {
      smtp.setRefusing(false);
    }
  });

  it('holds mail while sending is turned off, and sends it when it is turned back on', async () => {
    const email = 'held@orbital.test';
    await asAdmin()('POST', '/api/users', { email, name: 'Held', password: strong });
    await post('/api/auth/password-reset', { email });
    await setSetting('global.send_mail', false);
    await Promise.all(identity.stack.gateways.map((g) => g.identity.mail.flush()));
    const sentBefore = smtp.to(email).length;
    await setSetting('global.send_mail', true);
    await smtp.waitFor(email, Math.max(1, sentBefore));
  });
});

describe('the audit log', () => {
  it('holds an entry for each account action, and never a link or a password', async () => {
    const wanted = [
      'auth.registered',
      'auth.email_verified',
      'auth.password_reset_requested',
      'auth.password_reset',
      'invitation.created',
      'invitation.accepted',
      'invitation.revoked',
      'mail.failed',
    ];
    const actions = async () => {
      const page = await asAdmin()('GET', '/api/audit?limit=500');
      return new Set((page.json().data.entries as Array<{ action: string }>).map((e) => e.action));
    };
    await expect
      .poll(
        async () => {
          const seen = await actions();
          return wanted.filter((a) => !seen.has(a));
        },
        { timeout: 20_000 },
      )
      .toEqual([]);
    const all = JSON.stringify((await asAdmin()('GET', '/api/audit?limit=500')).json());
    expect(all).not.toContain(strong);
    for (const mail of smtp.received.filter((m) => m.text.includes('#token='))) {
      expect(all).not.toContain(linkIn(mail).token);
    }
  });
});
