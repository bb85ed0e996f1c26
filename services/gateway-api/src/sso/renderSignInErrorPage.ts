const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => escapes[c] ?? c);

/**
 * The page a browser lands on when a sign-in with an outside account fails: what happened, the reason's
 * code (for a support request or a log search), and the way back to the login page. Plain HTML without
 * script, served with the failure's own status (400, 401, 403, 404, 503), so a script driving the flow
 * can tell the cases apart too.
 */
export function renderSignInErrorPage(page: { provider: string; reason: string; message: string; loginUrl: string }) {
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>Sign-in failed · Orbital</title>
    <style>
      body { font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto; padding: 0 1rem; line-height: 1.5; }
      code { background: #f1f3f5; padding: 0.1rem 0.3rem; border-radius: 3px; }
    </style>
  </head>
  <body>
    <main>
      <h1>Sign-in with ${escapeHtml(page.provider)} failed</h1>
      <p role="alert">${escapeHtml(page.message)}</p>
      <p>Error code: <code>${escapeHtml(page.reason)}</code></p>
      <p><a href="${escapeHtml(page.loginUrl)}">Back to sign-in</a></p>
    </main>
  </body>
</html>
`;
}
