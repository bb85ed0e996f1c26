const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => escapes[c] ?? c);

export type ConsentPage = {
  clientName: string;
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
      you choose, as you, until you revoke its access. Its answer goes to <code>${escapeHtml(page.redirectUri)}</code>.</p>
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
