import { type OidcRoleMapping, oidcRoleMapping, oidcTeamMapping, type TeamRole } from '@orbital/contracts';
import { parseArray, parseBoolean, parseUrl, type SettingsReader } from '@orbital/settings-client';
import type { z } from 'zod';
import { SignInFailure } from './signInFailure.ts';

export type RepohostSettings = {
  clientId: string;
  clientSecret: string;
  callbackUrl: URL;
  scope: string;
  webUrl: URL;
  apiUrl: URL;
};

export type TeamTarget = { slug: string; role: TeamRole };

export type OidcSettings = {
  displayName: string;
  issuer: URL;
  clientId: string;
  clientSecret: string;
  callbackUrl: URL;
  scopes: string;
  /** Lower-case domains; empty: every domain. */
  allowedDomains: string[];
  roleClaim: string;
  roleMapping: OidcRoleMapping | null;
  teamClaim: string;
  teamMapping: Record<string, TeamTarget[]> | null;
};

const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * A provider's address must be https: the client secret, codes and tokens travel to it. Plain http is
 * accepted on this machine's loopback only (a provider run beside a development stack or a test).
 */
export function isAcceptableProviderUrl(url: URL): boolean {
  return url.protocol === 'https:' || (url.protocol === 'http:' && loopbackHosts.has(url.hostname));
}

function misconfigured(key: string, problem: string): SignInFailure {
  return new SignInFailure('misconfigured', {
    message: `This way of signing in is not configured correctly: the setting ${key} ${problem}. An administrator has to fix it.`,
  });
}

/** Reads one group's values by key; a missing setting reads as empty. */
function fieldsOf(values: Record<string, string>) {
  const text = (key: string) => (values[key] ?? '').trim();
  return {
    text,
    required(key: string) {
      const value = text(key);
      if (value === '') throw misconfigured(key, 'is empty');
      return value;
    },
    url(key: string, options: { provider: boolean }) {
      let url: URL;
      try {
        url = parseUrl(key, text(key));
      } catch {
        throw misconfigured(key, 'is not an http(s) URL');
      }
      if (options.provider && !isAcceptableProviderUrl(url)) {
        throw misconfigured(key, 'must be https (plain http only on localhost)');
      }
      return url;
    },
    json<S extends z.ZodType>(key: string, schema: S): z.output<S> | null {
      const raw = text(key);
      if (raw === '') return null;
      let document: unknown;
      try {
        document = JSON.parse(raw);
      } catch {
        throw misconfigured(key, 'is not valid JSON');
      }
      const parsed = schema.safeParse(document);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw misconfigured(key, `is not valid (${issue?.path.join('.') || 'value'}: ${issue?.message})`);
      }
      return parsed.data;
    },
  };
}

const enabled = (values: Record<string, string>, key: string) => {
  const raw = values[key];
  if (raw === undefined || raw.trim() === '') return false;
  try {
    return parseBoolean(key, raw);
  } catch {
    return false;
  }
};

/**
 * The code-hosting sign-in's settings (group `repohost-oauth`): null when it is off, a `misconfigured`
 * failure naming the setting when it is on but cannot work.
 */
export async function readRepohostSettings(settings: SettingsReader): Promise<RepohostSettings | null> {
  const values = await settings.group('repohost-oauth', { withPrefix: true });
  if (!enabled(values, 'repohost.oauth.enabled')) return null;
  const field = fieldsOf(values);
  return {
    clientId: field.required('repohost.oauth.client_id'),
    clientSecret: field.required('repohost.oauth.client_secret'),
    callbackUrl: field.url('repohost.oauth.callback_url', { provider: false }),
    scope: field.text('repohost.oauth.scope') || 'user:email',
    webUrl: field.url('repohost.oauth.web_url', { provider: true }),
    apiUrl: field.url('repohost.oauth.api_url', { provider: true }),
  };
}

/** The single sign-on's settings (group `oidc`), like readRepohostSettings. */
export async function readOidcSettings(settings: SettingsReader): Promise<OidcSettings | null> {
  const values = await settings.group('oidc', { withPrefix: true });
  if (!enabled(values, 'oidc.enabled')) return null;
  const field = fieldsOf(values);
  const scopes = field.text('oidc.scopes') || 'openid email profile';
  if (!scopes.split(/\s+/).includes('openid')) throw misconfigured('oidc.scopes', 'must include openid');
  return {
    displayName: field.text('oidc.display_name') || 'SSO',
    issuer: field.url('oidc.issuer_url', { provider: true }),
    clientId: field.required('oidc.client_id'),
    clientSecret: field.required('oidc.client_secret'),
    callbackUrl: field.url('oidc.callback_url', { provider: false }),
    scopes,
    allowedDomains: parseArray('oidc.allowed_email_domains', field.text('oidc.allowed_email_domains')).map((d) =>
      d.toLowerCase().replace(/^@/, ''),
    ),
    roleClaim: field.text('oidc.role_claim') || 'groups',
    roleMapping: field.json('oidc.role_mapping', oidcRoleMapping),
    teamClaim: field.text('oidc.team_claim') || 'groups',
    teamMapping: field.json('oidc.team_mapping', oidcTeamMapping),
  };
}
