/**
 * The actions the audit log records, by name, with what each one means. The owner of an action records
 * it under one of these names (recordAudit takes only these), the console offers them as a filter, and
 * the reference shows them; the store accepts any well-formed name, so an owner that is deployed before
 * the store still has its entries kept.
 *
 * A name is `<target kind>.<what happened>`. An action that can fail records `outcome: failure` with a
 * reason under the same name (a refused login is `auth.login` failed, not another action).
 */
export const auditActions = {
  'auth.login': 'A person signed in with e-mail and password (failure: wrong credentials, too many attempts)',
  'auth.logout': 'A person signed out (their session ended)',
  'auth.sso_login':
    'A person signed in with an outside account, GitHub or single sign-on (details: provider and whether the account was new or linked; failure: the reason)',
  'auth.account_linked':
    'An outside account was linked to an existing user by its verified address (details: provider)',
  'session.revoked': 'An administrator ended every session of a user',
  'user.created': 'A user was created',
  'user.updated': "A global admin changed an account's global role or disabled/enabled it (details: the change)",
  'user.deleted': 'A global admin deleted an account (a tombstone of its id and name stays)',
  'auth.password_changed': 'A person changed their own password (failure: the current password was wrong)',
  'auth.registered': 'Someone registered by e-mail (details: whether the address was new)',
  'auth.email_verified': 'A person confirmed their address with the mailed link',
  'auth.password_reset_requested': 'A password reset link was asked for an existing account',
  'auth.password_reset': 'A password was set with a mailed reset link',
  'invitation.created': 'A team admin invited an e-mail address to the team',
  'invitation.revoked': 'A team admin withdrew an invitation',
  'invitation.accepted': 'An invitation was accepted (details: whether a new account was made)',
  'mail.failed': 'A mail was given up after its last attempt (details: its kind and the last error)',
  'team.created': 'A team was created',
  'team.updated': 'A team was renamed or described',
  'team.deleted': 'A team was deleted',
  'team.member_added': 'A user was made a member of a team',
  'team.member_role_changed': "A member's role in a team changed",
  'team.member_removed': 'A member was removed from a team',
  'setting.created': 'A setting was created (details: key, and the value unless it is encrypted)',
  'setting.updated': 'A setting was changed (details: key, and the values unless encrypted)',
  'setting.deleted': 'A setting was deleted',
  'setting_group.created': 'A setting group was created',
  'setting_group.updated': 'A setting group was changed',
  'database.setup': 'The database was set up (POST /api/db/setup)',
  'audit.pruned': 'Entries older than the retention period were removed',
  'audit.exported': 'Someone downloaded the audit log (details: format, filters, how many entries)',
  'template.created': 'An MCP server template was added to the catalogue',
  'template.updated': 'An MCP server template was changed',
  'template.deleted': 'An MCP server template was removed from the catalogue',
  'installation.created': 'An MCP server was installed into a team',
  'installation.updated': "An installation's name or configuration was changed",
  'installation.deleted': 'An installation was removed',
  'installation.settings_updated': "An installation's settings (request logging) were changed",
  'installation.tool_policy_updated':
    "A team admin changed which of an installation's tools run or ask for confirmation (details: the rules changed)",
  'installation.tool_definition_approved':
    'A team admin approved a new or changed tool definition, which satellites had held back (details: tool and hash)',
  'team.tool_policy_updated':
    "A team admin changed the team's rules for a server's tools, for every installation of it (details: the rules changed)",
  'installation.user_config_updated': "A member changed their own level of an installation's configuration",
  'installation.oauth_authorized':
    "A person authorized Orbital at a remote server's authorization server, for themself or the team (failure: consent refused or the exchange failed)",
  'installation.oauth_revoked':
    'An authorization of a remote server was removed and its tokens queued for revocation (details: whose, never a token)',
  'registration_token.created': 'A satellite registration token was made (details: its id, never the token)',
  'registration_token.revoked': 'A satellite registration token was revoked',
  'satellite.registered': 'A satellite registered with a registration token (failure: the reason it was refused)',
  'satellite.activated': 'A registered satellite reported in for the first time and became active',
  'satellite.revoked': 'A satellite was revoked (DELETE /api/satellites/:id): its key stops working at once',
  'satellite.allowlist_updated': "A satellite's IP allowlist was changed",
  'personal_token.created': 'A personal access token was made (details: its id and name, never the token)',
  'access_token.revoked':
    'A person or a team admin revoked a personal access token or an OAuth authorization (details: its kind and name)',
  'oauth.client_registered': 'An OAuth client registered itself (dynamic client registration)',
  'oauth.consent_granted': "A person approved an OAuth client's access",
  'oauth.consent_denied': "A person refused an OAuth client's access",
  'oauth.token_revoked': 'An OAuth client revoked one of its tokens',
} as const satisfies Record<string, string>;

export type AuditAction = keyof typeof auditActions;
export const auditActionNames = Object.keys(auditActions) as AuditAction[];
