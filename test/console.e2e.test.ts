import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { linkIn, type MailServer, startMailServer, startOidcProvider } from '@orbital/testing';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Browser, keepScreenshot, launchBrowser } from './browser/launchBrowser.ts';
import { call, eventually, type Platform, startPlatform } from './platformHarness.ts';

/**
 * A platform team's first hour in the web console, in Debian's Chromium against the real processes:
 * log in, change a setting (a refused value shows at its field), create a team and its admin, make a
 * registration token and start a satellite with the command the console shows, install a template and
 * watch it go online, see an MCP client's tool call appear live, read all of it in the audit log. Then
 * the people flows that go through mailed links (a local SMTP receiver): registering and confirming an
 * address, resetting a password, accepting an invitation; login switched off and on; their audit
 * entries. Last, the team admin, who sees only their team, on a phone-sized screen. Each step needs the ones before it; a failed step leaves a
 * screenshot under test-results/browser/.
 */
type Envelope<T> = { success: true; data: T };
const root = resolve(import.meta.dirname, '..');
const lead = { email: 'lead@orbital.test', name: 'Lea Lead', password: 'seven orbits around a quiet moon' };

/** A link of the main navigation. */
const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name, exact: true });

/** Every form control has a name a screen reader can say. */
async function unlabelledControls(page: Page): Promise<string[]> {
  // Runs in the page (a string: this file is type-checked for Node, not the DOM).
  return page.evaluate(`[...document.querySelectorAll('input, select, textarea')]
    .filter((el) => el.labels.length === 0 && !el.getAttribute('aria-label'))
    .map((el) => el.outerHTML.slice(0, 120))`);
}

describe('the web console, day one, in a real browser', () => {
  let platform: Platform;
  let browser: Browser;
  let page: Page;
  let adminToken: string;
  let smtp: MailServer;
  const state: Record<string, string> = {};
  const newcomer = { email: 'nova@orbital.test', name: 'Nova Newcomer', password: 'a comet passes twice a year' };
  const invitee = { email: 'ivy@orbital.test', name: 'Ivy Invited', password: 'ivy climbs the north wall' };

  /** A step of the walk: on failure its screenshot is kept and its path printed. */
  const step = (name: string, run: () => Promise<void>) =>
    it(name, async ({ onTestFailed }) => {
      onTestFailed(async () => {
        await keepScreenshot(page, name);
      });
      await run();
      // KEEP_SCREENSHOTS=1 keeps one of every step, to look at what the console shows.
      if (process.env.KEEP_SCREENSHOTS) await keepScreenshot(page, name);
    });

  /** Opens the audit log and waits for an entry of each action; its rows, to look closer. */
  async function auditLogShows(actions: string[]) {
    await nav(page, 'Audit').click();
    await page.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
    const rows = page.getByTestId('audit-entry');
    for (const action of actions) await rows.filter({ hasText: action }).first().waitFor();
    return rows;
  }

  beforeAll(async () => {
    // The test serves what the build makes; `npm test` builds first, a lone run builds here.
    if (!existsSync(resolve(root, 'console/dist/index.html'))) {
      execFileSync(process.execPath, [resolve(root, 'node_modules/vite/bin/vite.js'), 'build'], {
        cwd: resolve(root, 'console'),
        stdio: 'ignore',
      });
    }
    platform = await startPlatform();
    await call(platform.api, 'POST', '/api/db/setup', { body: { type: 'postgresql' } });
    adminToken = (
      await eventually('the first admin to exist', () =>
        call<Envelope<{ token: string }>>(platform.api, 'POST', '/api/auth/login', { body: platform.admin }),
      )
    ).data.token;
    browser = await launchBrowser();
    page = await browser.context.newPage();
    smtp = await startMailServer();
  });

  afterAll(async () => {
    await browser?.close();
    await platform?.stop();
    await smtp?.close();
  });

  /** The link in the newest of `count` mails to an address (waiting for it). */
  async function mailedLink(address: string, count = 1) {
    const mail = (await smtp.waitFor(address, count)).at(-1);
    if (!mail) throw new Error(`no mail to ${address}`);
    return linkIn(mail);
  }

  /** A person other than the admin, in a browser of their own; its screenshot is kept when it fails. */
  async function asVisitor(name: string, run: (visitor: Page) => Promise<void>): Promise<void> {
    const own = await launchBrowser();
    const visitor = await own.context.newPage();
    try {
      await run(visitor);
    } catch (error) {
      await keepScreenshot(visitor, name);
      throw error;
    } finally {
      await own.close();
    }
  }

  step('sends a visitor to the login page, then logs the admin in', async () => {
    await page.goto(`${platform.api}/settings`);
    await page.waitForURL(/\/login\?next=%2Fsettings$/);
    await page.getByLabel('E-mail address').fill(platform.admin.email);
    await page.getByLabel('Password').fill('not the password at all');
    await page.getByRole('button', { name: 'Log in' }).click();
    await page.getByRole('alert').filter({ hasText: 'wrong' }).waitFor();
    await page.getByLabel('Password').fill(platform.admin.password);
    await page.getByRole('button', { name: 'Log in' }).click();
    // Back where the visitor was going.
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/settings');
  });

  step('changes a setting; a refused value is shown at its field', async () => {
    // One tab per group, in sort order; arrow keys move between them.
    const tabs = page.getByRole('tab');
    // The page heading shows before the groups arrive: wait for the last tab, then read them all.
    await page.getByRole('tab', { name: 'Audit Log' }).waitFor();
    expect(await tabs.allTextContents()).toEqual([
      'Global Settings',
      'SMTP Mail Settings',
      'Code Hosting OAuth',
      'Single Sign-On',
      'Tool discovery',
      'Audit Log',
    ]);
    await tabs.first().focus();
    await page.keyboard.press('ArrowRight');
    expect(await page.getByRole('tab', { name: 'SMTP Mail Settings' }).getAttribute('aria-selected')).toBe('true');

    const port = page.getByLabel('SMTP port');
    await port.fill('five hundred');
    await page.getByRole('button', { name: 'Save SMTP port' }).click();
    await page.getByText('must be a port number from 1 to 65535').waitFor();
    expect(await port.getAttribute('aria-invalid')).toBe('true');
    expect(await port.getAttribute('aria-describedby')).toContain('error');

    await port.fill('2525');
    await page.getByRole('button', { name: 'Save SMTP port' }).click();
    await page.getByText('Saved').first().waitFor();
    expect(await port.getAttribute('aria-invalid')).toBeNull();
    const stored = await call<Envelope<{ value: string }>>(platform.api, 'GET', '/api/settings/smtp.port', {
      token: adminToken,
    });
    expect(stored.data.value).toBe('2525');

    // The console's address must be a URL: refused at the field, then the platform's own address saved.
    await page.getByRole('tab', { name: 'Global Settings' }).click();
    const pageUrl = page.getByLabel('Frontend URL');
    await pageUrl.fill('not a url');
    await page.getByRole('button', { name: 'Save Frontend URL' }).click();
    await page.getByText('must be a URL starting with http:// or https://').waitFor();
    expect(await pageUrl.getAttribute('aria-invalid')).toBe('true');
    await pageUrl.fill(platform.api);
    await page.getByRole('button', { name: 'Save Frontend URL' }).click();
    await page.getByText('Saved').first().waitFor();
    expect(await pageUrl.getAttribute('aria-invalid')).toBeNull();
    await page.getByRole('tab', { name: 'SMTP Mail Settings' }).click();

    // An encrypted value is write-only: the field is empty and says whether one is set.
    const password = page.getByLabel('SMTP password');
    expect(await password.inputValue()).toBe('');
    expect(await password.getAttribute('type')).toBe('password');
    expect(await unlabelledControls(page)).toEqual([]);
  });

  step('creates a team and its admin', async () => {
    await nav(page, 'Teams').click();
    await page.getByLabel('Name').fill('Platform');
    expect(await page.getByLabel('Slug').inputValue()).toBe('platform');
    await page.getByRole('button', { name: 'Create team' }).click();
    await page.getByRole('heading', { name: 'Platform', level: 1 }).waitFor();
    state.team = new URL(page.url()).pathname.split('/')[2] as string;

    await page.getByLabel('E-mail address').fill(lead.email);
    await page.getByLabel('Role', { exact: true }).selectOption('team_admin');
    await page.getByLabel(/Create the account/).check();
    await page.getByLabel('Name').fill(lead.name);
    await page.getByLabel('First password').fill(lead.password);
    await page.getByRole('button', { name: 'Add member' }).click();
    await page.getByRole('cell', { name: lead.email }).waitFor();
    expect(await page.getByLabel(`Role of ${lead.name}`).inputValue()).toBe('team_admin');
    expect(await unlabelledControls(page)).toEqual([]);
  });

  step('makes a registration token; the satellite started with the shown command comes online', async () => {
    await nav(page, 'Satellites').click();
    await page.getByLabel('For', { exact: true }).selectOption({ label: 'Team Platform' });
    await page.getByRole('button', { name: 'Make a registration token' }).click();
    const command = await page
      .getByRole('region', { name: 'command to start the satellite from a checkout' })
      .textContent();
    const token = /SATELLITE_REGISTRATION_TOKEN='([^']+)'/.exec(command ?? '')?.[1];
    expect(command).toContain(`BACKEND_URL=${platform.api}`);
    expect(token).toBeTruthy();
    // Beside npm start's satellite: a name and a port of its own, its own credentials folder, and clients
    // that must sign in (nothing pre-filled opens a satellite to anyone).
    expect(command).toMatch(/SATELLITE_NAME='satellite-[0-9a-f]{6}'/);
    expect(command).toContain('PORT=3002');
    expect(command).toMatch(/SATELLITE_STATE_DIR=\.satellite-satellite-[0-9a-f]{6}/);
    expect(command).toContain('SATELLITE_AUTH_MODE=oauth');
    expect(command).not.toContain('SATELLITE_ALLOW_UNAUTHENTICATED_GLOBAL');
    await page.getByLabel('Port').fill('3012');
    await page.getByLabel('Satellite name').fill('build-runner');
    const edited = await page
      .getByRole('region', { name: 'command to start the satellite from a checkout' })
      .textContent();
    expect(edited).toContain("SATELLITE_NAME='build-runner'");
    expect(edited).toContain('SATELLITE_PUBLIC_URL=http://localhost:3012/mcp');
    const satellite = await platform.startSatellite(token as string);
    state.satelliteUrl = satellite.url;
    await eventually('the satellite to show online', async () => {
      await page.reload();
      return (await page.getByRole('cell', { name: 'online' }).count()) > 0 ? true : undefined;
    });
    expect(await unlabelledControls(page)).toEqual([]);
  });

  step('installs a reference server from the day-one catalogue and watches it go online', async () => {
    await nav(page, 'Catalogue').click();
    await page.getByRole('button', { name: 'Install Everything (MCP reference server)' }).waitFor();
    // Nothing installed yet: no card shows a health it does not know.
    expect(await page.locator('.card.template').getByText('unknown', { exact: true }).count()).toBe(0);
    await page.getByRole('button', { name: 'Install Everything (MCP reference server)' }).click();
    const form = page.getByRole('form', { name: 'Install Everything (MCP reference server)' });
    expect(await form.getByLabel('Installation name').inputValue()).toBe('everything');
    expect(await unlabelledControls(page)).toEqual([]);
    await form.getByRole('button', { name: 'Install' }).click();
    await page.getByRole('heading', { name: 'Installation everything' }).waitFor();
    // The status comes from the status stream: no reload.
    const status = page.locator('.status-line');
    await status.getByText('online', { exact: true }).waitFor({ timeout: 90_000 });
    state.installationPath = new URL(page.url()).pathname;
  });

  step("shows an MCP client's tool call live", async () => {
    const client = new Client({ name: 'console-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${state.satelliteUrl}/mcp`)));
    try {
      const ran = await client.callTool({
        name: 'execute_mcp_tool',
        arguments: { tool_path: 'everything:echo', arguments: { message: 'hello from the console test' } },
      });
      expect(JSON.stringify(ran)).toContain('hello from the console test');
    } finally {
      await client.close();
    }
    // Still the same page, never reloaded: the row arrives on the requests stream.
    expect(new URL(page.url()).pathname).toBe(state.installationPath);
    await page.getByTestId('request-row').filter({ hasText: 'echo' }).first().waitFor({ timeout: 30_000 });
  });

  step('a tool turned off on the Tools section is refused to MCP clients, and runs again when turned on', async () => {
    const tools = page.getByRole('region', { name: 'Tools' });
    await tools.getByTestId('tool-row').filter({ hasText: 'echo' }).first().waitFor({ timeout: 30_000 });
    // The server's first listing was approved as it was: nothing waits, pinning is on.
    const definitions = page.getByRole('region', { name: 'Tool definitions' });
    await definitions.getByText('No tool is waiting for approval.').waitFor();
    expect(await definitions.getByRole('checkbox').isChecked()).toBe(true);
    expect(await unlabelledControls(page)).toEqual([]);
    const client = new Client({ name: 'console-e2e-policy', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${state.satelliteUrl}/mcp`)));
    const echo = async () =>
      JSON.stringify(
        await client.callTool({
          name: 'execute_mcp_tool',
          arguments: { tool_path: 'everything:echo', arguments: { message: 'policy check' } },
        }),
      );
    try {
      // The box follows the stored policy: it changes once the change is saved, not on the click.
      const enabled = tools.getByLabel('echo enabled', { exact: true });
      await enabled.click();
      await enabled.and(page.locator(':not(:checked)')).waitFor();
      await eventually(
        'the satellite to refuse the disabled tool',
        async () => ((await echo()).includes('disabled by') ? true : undefined),
        30_000,
      );
      await enabled.click();
      await enabled.and(page.locator(':checked')).waitFor();
      await eventually(
        'the satellite to run it again',
        async () => ((await echo()).includes('policy check') ? true : undefined),
        30_000,
      );
    } finally {
      await client.close();
    }
  });

  step('a settings change made in the console reaches the satellite at once', async () => {
    const docs = async () => (await fetch(`${state.satelliteUrl}/documentation`)).status;
    expect(await docs()).toBe(200);
    await nav(page, 'Settings').click();
    const toggle = page.getByLabel('Enable API documentation');
    await toggle.uncheck();
    await page.getByText('Saved').first().waitFor();
    // The satellite's own schedule would fetch its configuration in 5 minutes; the held command poll
    // tells it now.
    await eventually(
      'the satellite to turn its documentation off',
      async () => ((await docs()) === 404 ? true : undefined),
      30_000,
    );
    await toggle.check();
    await eventually(
      'the satellite to turn it back on',
      async () => ((await docs()) === 200 ? true : undefined),
      30_000,
    );
  });

  step('the audit log shows who did what, filters it, follows it live and exports it', async () => {
    // What the walk did so far, each recorded by the service that did it.
    const rows = await auditLogShows([
      'auth.login',
      'setting.updated',
      'team.created',
      'team.member_added',
      'installation.created',
    ]);
    await rows.filter({ hasText: 'auth.login' }).filter({ hasText: 'wrong_password' }).first().waitFor();

    await page.getByLabel('Action').fill('setting.*');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.getByRole('status').filter({ hasText: 'live' }).waitFor();
    await eventually('only setting entries to show', async () => {
      const actions = await rows.locator('th').allTextContents();
      return actions.length > 0 && actions.every((a) => a.startsWith('setting.')) ? true : undefined;
    });
    // A change made elsewhere arrives without a reload.
    await call(platform.api, 'PUT', '/api/settings/smtp.from_name', {
      token: adminToken,
      body: { value: 'Orbital Ops' },
    });
    await rows.filter({ hasText: 'Orbital Ops' }).first().waitFor({ state: 'attached', timeout: 30_000 });

    const href = await page.getByRole('link', { name: 'Export CSV' }).getAttribute('href');
    expect(href).toBe('/api/audit/export?action=setting.*&format=csv');
    const csv = (await page.evaluate(`fetch(${JSON.stringify(href)}).then((r) => r.text())`)) as string;
    expect(csv.split('\r\n')[0]).toContain('occurred_at,source,action');
    expect(csv).toContain('smtp.from_name');
    expect(csv).not.toContain('installation.created');
    expect(await unlabelledControls(page)).toEqual([]);
  });

  step('every reference server of the catalogue installs in one call and goes online', async () => {
    for (const slug of ['server-memory', 'server-filesystem', 'server-sequential-thinking']) {
      const installation = await call<Envelope<{ id: string }>>(
        platform.api,
        'POST',
        `/api/teams/${state.team}/mcp/installations`,
        { token: adminToken, body: { server_slug: slug, name: slug.replace(/^server-/, '') } },
      );
      await eventually(`${slug} to go online`, async () => {
        const status = await call<Envelope<{ status: string; status_message: string | null }>>(
          platform.api,
          'GET',
          `/api/teams/${state.team}/mcp/installations/${installation.data.id}/status`,
          { token: adminToken },
        );
        if (['error', 'permanently_failed'].includes(status.data.status)) {
          throw new Error(`${slug} failed: ${status.data.status_message}`);
        }
        return status.data.status === 'online' ? true : undefined;
      });
    }
  });

  step("signs a person in with the company's single sign-on, into the team their group maps to", async () => {
    const provider = await startOidcProvider({ redirectUris: [`${platform.api}/api/auth/oidc/callback`] });
    try {
      provider.addAccount({
        sub: 'kim',
        claims: { email: 'kim@acme.test', email_verified: true, name: 'Kim Company', groups: ['sso-devs'] },
      });
      const team = await call<Envelope<{ id: string }>>(platform.api, 'POST', '/api/teams', {
        token: adminToken,
        body: { slug: 'sso-team', name: 'SSO Team' },
      });
      const settings: Record<string, string> = {
        'global.page_url': platform.api,
        'oidc.display_name': 'Acme SSO',
        'oidc.issuer_url': provider.issuer,
        'oidc.client_id': provider.clientId,
        'oidc.client_secret': provider.clientSecret,
        'oidc.callback_url': `${platform.api}/api/auth/oidc/callback`,
        // The provider releases the groups claim for its own scope.
        'oidc.scopes': 'openid email profile groups',
        'oidc.team_mapping': JSON.stringify({ 'sso-devs': 'sso-team' }),
        'oidc.enabled': 'true',
      };
      for (const [key, value] of Object.entries(settings)) {
        await call(platform.api, 'PUT', `/api/settings/${key}`, { token: adminToken, body: { value } });
      }
      const visitor = await launchBrowser();
      const sso = await visitor.context.newPage();
      try {
        await sso.goto(`${platform.api}/teams`);
        await sso.waitForURL(/\/login\?next=%2Fteams$/);
        await sso.getByRole('link', { name: 'Sign in with Acme SSO' }).click();
        // The provider's own page: the person signs in there.
        await sso.getByLabel('Username').fill('kim');
        await sso.getByRole('button', { name: 'Sign in' }).click();
        // Back in the console where they were going, signed in, a member of the mapped team.
        await sso.getByRole('link', { name: 'SSO Team' }).waitFor();
        expect(new URL(sso.url()).pathname).toBe('/teams');
        const me = await sso.evaluate('fetch("/api/users/me").then((r) => r.json())');
        expect(me).toMatchObject({
          data: { email: 'kim@acme.test', memberships: [expect.objectContaining({ team_id: team.data.id })] },
        });
      } catch (error) {
        await keepScreenshot(sso, 'single sign-on');
        throw error;
      } finally {
        await visitor.close();
      }
    } finally {
      await call(platform.api, 'PUT', '/api/settings/oidc.enabled', { token: adminToken, body: { value: 'false' } });
      await provider.stop();
    }
  });

  step('a newcomer registers by e-mail and confirms the address through the mailed link', async () => {
    // Mail through the local SMTP receiver, and registration open.
    const settings: Record<string, string> = {
      'smtp.host': '127.0.0.1',
      'smtp.port': String(smtp.port),
      'smtp.secure': 'false',
      'smtp.from_email': 'orbital@orbital.test',
      'global.send_mail': 'true',
      'global.enable_email_registration': 'true',
    };
    for (const [key, value] of Object.entries(settings)) {
      await call(platform.api, 'PUT', `/api/settings/${key}`, { token: adminToken, body: { value } });
    }
    await asVisitor('registration', async (visitor) => {
      await visitor.goto(`${platform.api}/login`);
      await visitor.getByRole('link', { name: 'Create an account' }).click();
      await visitor.getByLabel('Name').fill(newcomer.name);
      await visitor.getByLabel('E-mail address').fill(newcomer.email);
      await visitor.getByLabel('Password').fill(newcomer.password);
      await visitor.getByRole('button', { name: 'Create the account' }).click();
      await visitor.locator('[role=status].success').waitFor();
      const link = await mailedLink(newcomer.email);
      // Every link of a mail starts with the Frontend URL saved above.
      expect(link.page).toBe(`${platform.api}/verify-email`);
      await visitor.goto(link.url);
      await visitor.getByRole('heading', { name: 'Confirm your e-mail address' }).waitFor();
      await visitor.getByLabel('Password').fill(newcomer.password);
      await visitor.getByRole('button', { name: 'Confirm and sign in' }).click();
      await visitor.getByRole('heading', { name: `Welcome, ${newcomer.name}` }).waitFor();
    });
  });

  step('a forgotten password is reset through the mailed link', async () => {
    const renewed = `${newcomer.password} and back`;
    await asVisitor('password reset', async (visitor) => {
      await visitor.goto(`${platform.api}/login`);
      await visitor.getByRole('link', { name: 'Forgot your password?' }).click();
      await visitor.getByLabel('E-mail address').fill(newcomer.email);
      await visitor.getByRole('button', { name: 'Send me a link' }).click();
      await visitor.locator('[role=status].success').waitFor();
      const link = await mailedLink(newcomer.email, 2);
      expect(link.page).toBe(`${platform.api}/reset-password`);
      await visitor.goto(link.url);
      await visitor.getByLabel('New password').fill(renewed);
      await visitor.getByRole('button', { name: 'Set the password' }).click();
      await visitor.getByText('Your password is changed').waitFor();
      await visitor.getByRole('link', { name: 'Log in' }).click();
      await visitor.getByLabel('E-mail address').fill(newcomer.email);
      await visitor.getByLabel('Password').fill(renewed);
      await visitor.getByRole('button', { name: 'Log in' }).click();
      await visitor.getByRole('heading', { name: `Welcome, ${newcomer.name}` }).waitFor();
    });
    newcomer.password = renewed;
  });

  step('a team admin invites by e-mail; the invitation is accepted with a new password', async () => {
    await page.goto(`${platform.api}/teams/${state.team}`);
    await page.getByLabel('Address to invite').fill(invitee.email);
    await page.getByRole('button', { name: 'Send the invitation' }).click();
    await page.getByRole('cell', { name: invitee.email, exact: true }).waitFor();
    const link = await mailedLink(invitee.email);
    expect(link.page).toBe(`${platform.api}/invitation`);
    await asVisitor('invitation', async (visitor) => {
      await visitor.goto(link.url);
      await visitor.getByRole('heading', { name: 'Join a team' }).waitFor();
      await visitor.getByLabel('Your name').fill(invitee.name);
      await visitor.getByLabel('Choose a password').fill(invitee.password);
      await visitor.getByRole('button', { name: 'Join the team' }).click();
      // Signed in with the new account, a member of the team.
      await visitor.getByRole('heading', { name: `Welcome, ${invitee.name}` }).waitFor();
      const me = await visitor.evaluate('fetch("/api/users/me").then((r) => r.json())');
      expect(me).toMatchObject({ data: { memberships: [expect.objectContaining({ team_id: state.team })] } });
    });
    await page.reload();
    await page.getByRole('cell', { name: invitee.email, exact: true }).first().waitFor();
  });

  step('login switched off: the login page says so, the admin keeps working and switches it on again', async () => {
    await nav(page, 'Settings').click();
    const enableLogin = page.getByLabel('Enable login');
    await enableLogin.uncheck();
    await page.getByText('Saved').first().waitFor();
    await asVisitor('login off', async (visitor) => {
      await visitor.goto(`${platform.api}/login`);
      await visitor.getByText('Signing in is turned off on this platform').waitFor();
      const refused = await visitor.evaluate(
        `fetch('/api/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' },
          body: JSON.stringify(${JSON.stringify({ email: newcomer.email, password: newcomer.password })}) })
          .then(async (r) => ({ status: r.status, body: await r.json() }))`,
      );
      expect(refused).toMatchObject({ status: 403, body: { error: { code: 'login_disabled' } } });

      // The admin's session still works: login goes back on, and the page lets people in again.
      await page.reload();
      await page.getByLabel('Enable login').check();
      await page.getByText('Saved').first().waitFor();
      await visitor.reload();
      await visitor.getByLabel('E-mail address').fill(newcomer.email);
      await visitor.getByLabel('Password').fill(newcomer.password);
      await visitor.getByRole('button', { name: 'Log in' }).click();
      await visitor.getByRole('heading', { name: `Welcome, ${newcomer.name}` }).waitFor();
      expect(await visitor.getByText('Signing in is turned off').count()).toBe(0);
    });
  });

  step('the audit log shows each of these', async () => {
    const rows = await auditLogShows([
      'auth.registered',
      'auth.email_verified',
      'auth.password_reset_requested',
      'auth.password_reset',
      'invitation.created',
      'invitation.accepted',
    ]);
    // The login switch, off and then on: two changes of its key.
    await rows.filter({ hasText: 'setting.updated' }).filter({ hasText: 'global.enable_login' }).nth(1).waitFor();
  });

  step('a team admin, on a phone, sees only their team', async () => {
    await call(platform.api, 'POST', '/api/teams', { token: adminToken, body: { slug: 'other', name: 'Other' } });
    const phone = await launchBrowser({ width: 390, height: 844 });
    const mobile = await phone.context.newPage();
    try {
      await mobile.goto(`${platform.api}/`);
      await mobile.getByLabel('E-mail address').fill(lead.email);
      await mobile.getByLabel('Password').fill(lead.password);
      await mobile.getByRole('button', { name: 'Log in' }).click();
      await mobile.getByRole('heading', { name: `Welcome, ${lead.name}` }).waitFor();
      // The navigation folds into a menu button.
      const menu = mobile.getByRole('button', { name: 'Menu' });
      expect(await menu.getAttribute('aria-expanded')).toBe('false');
      expect(await nav(mobile, 'Teams').isVisible()).toBe(false);
      await menu.click();
      await nav(mobile, 'Teams').click();
      await mobile.getByRole('link', { name: 'Platform' }).waitFor();
      expect(await mobile.getByRole('link', { name: 'Other' }).count()).toBe(0);
      // No admin pages for a team admin.
      expect(await nav(mobile, 'Settings').count()).toBe(0);
      // Their team's part of the audit log, and nothing of the platform's own.
      await mobile.goto(`${platform.api}/audit`);
      await mobile.getByRole('heading', { name: 'Audit log', level: 1 }).waitFor();
      await mobile.getByTestId('audit-entry').filter({ hasText: 'installation.created' }).first().waitFor();
      expect(await mobile.getByTestId('audit-entry').filter({ hasText: 'setting.updated' }).count()).toBe(0);
      await mobile.goto(`${platform.api}/installations`);
      await mobile.getByRole('link', { name: 'everything' }).waitFor();
      expect(await mobile.getByRole('heading', { name: 'Other' }).count()).toBe(0);
      // Usable at this width: nothing wider than the screen.
      expect(await mobile.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      if (process.env.KEEP_SCREENSHOTS) await keepScreenshot(mobile, 'phone installations');
    } catch (error) {
      await keepScreenshot(mobile, 'phone');
      throw error;
    } finally {
      await phone.close();
    }
  });
});
