const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => escapes[c] ?? c);

export type ConsentPage = {
  clientName: string;
  /** Set for a client identified by its metadata document: the document's URL, which anyone may publish. */
  metadataDocumentUrl?: string;
  redirectUri: string;
  userEmail: string;
  teams: Array<{ id: string; name: string; slug: string }>;
  selectedTeamId: string | undefined;
  /** The authorization request's parameters, posted back unchanged with the user's choice. */
  params: Record<string, string>;
};

/**
 * The page where a logged-in user chooses the ONE team a client may act for, then allows or denies.
 * Plain HTML with no script: the form posts back to /authorize, where the session cookie (SameSite
 * Strict, so never sent from another site's form) proves the user made the choice. Every value is
 * escaped: the client name and redirect URI come from an unauthenticated registration.
 */
export function renderConsentPage(page: ConsentPage): string {
  const redirect = new URL(page.redirectUri);
  const redirectHost = redirect.host || redirect.protocol;
  const loopback = ['localhost', '127.0.0.1', '[::1]'].includes(redirect.hostname);
  const origin = page.metadataDocumentUrl
    ? `<p>The application describes itself in a document published at <strong>${escapeHtml(new URL(page.metadataDocumentUrl).host)}</strong>; the name above is what that document says.</p>`
    : '';
  // Any website can name a loopback address as its redirect: the code would go to whatever listens
  // on this computer, so the user is told to allow it only for a program they just started.
  const warning = loopback
    ? `<p><strong>Warning:</strong> the answer goes to a program on your own computer (${escapeHtml(redirect.host)}). Allow only if you have just started signing in from such a program.</p>`
    : '';
  const hidden = Object.entries(page.params)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n      ');
  const selected = page.teams.some((t) => t.id === page.selectedTeamId) ? page.selectedTeamId : page.teams[0]?.id;
  const teams = page.teams
    .map(
      (team) =>
        `<label><input type="radio" name="team_id" value="${escapeHtml(team.id)}"${team.id === selected ? ' checked' : ''}> ${escapeHtml(team.name)} (${escapeHtml(team.slug)})</label><br>`,
    )
    .join('\n        ');
  return `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>Authorize ${escapeHtml(page.clientName)}</title></head>
  <body>
    <h1>Allow ${escapeHtml(page.clientName)} to use your team's MCP tools?</h1>
    <p>Signed in as ${escapeHtml(page.userEmail)}. The application will discover and run the tools of the team
      you choose, as you, until you revoke its access. Its answer goes to <strong>${escapeHtml(redirectHost)}</strong>
      (<code>${escapeHtml(page.redirectUri)}</code>).</p>
    ${origin}
    ${warning}
    <form method="post" action="/authorize">
      ${hidden}
      <fieldset>
        <legend>Team</legend>
        ${teams}
      </fieldset>
      <button type="submit" name="decision" value="approve">Allow</button>
      <button type="submit" name="decision" value="deny">Deny</button>
    </form>
  </body>
</html>
`;
}
