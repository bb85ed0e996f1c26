import { api, type TemplateView } from '../api/client.ts';
import { queryParam, useLocation } from '../app/router.tsx';
import { useSession } from '../app/session.tsx';
import { useAction, useLoad } from '../app/useLoad.ts';
import { ErrorMessage } from '../components/ErrorMessage.tsx';
import { When } from '../components/When.tsx';

/**
 * The authorization of a remote server that needs OAuth: whether calls made for you carry a token, a
 * button that sends the browser to the server's authorization server (and back to this page, whose
 * address then says how it went), and removing an authorization, which revokes its tokens.
 */
export function RemoteAuthorization({
  teamId,
  installationId,
  template,
}: {
  teamId: string;
  installationId: string;
  template: TemplateView;
}) {
  const session = useSession();
  const location = useLocation();
  const status = useLoad(() => api.installations.oauthStatus(teamId, installationId), [teamId, installationId]);
  const authorize = useAction(async () => {
    const { authorization_url } = await api.installations.authorize(teamId, installationId);
    window.location.assign(authorization_url);
  });
  const disconnect = useAction(async (owner: string) => {
    await api.installations.disconnect(teamId, installationId, owner);
    status.reload();
  });
  const outcome = queryParam(location, 'oauth');
  const message = queryParam(location, 'message');
  const perUser = template.oauth?.token_scope === 'user';
  const canManage = session.canInTeam(teamId, 'installations.manage');
  const s = status.data;
  return (
    <section aria-labelledby="authorization" className="card">
      <h2 id="authorization">Authorization</h2>
      <p className="muted">
        {perUser
          ? 'This server acts with each person’s own account: authorize Orbital once, and your calls carry your token.'
          : 'This server acts with one account for the whole team, which a team admin authorizes.'}
      </p>
      {outcome ? (
        <p role="status" className={outcome === 'connected' ? 'notice' : 'field-error'} data-testid="oauth-outcome">
          {message ?? outcome}
        </p>
      ) : null}
      <ErrorMessage error={status.error} />
      {s ? (
        <p data-testid="oauth-connected">
          {s.connected
            ? perUser
              ? 'Your calls carry your authorization.'
              : 'Calls carry the team’s authorization.'
            : perUser
              ? 'You have not authorized Orbital here yet: your calls are refused until you do.'
              : 'The team has no authorization yet: calls are refused until a team admin gives one.'}
        </p>
      ) : null}
      {perUser || canManage ? (
        <button type="button" disabled={authorize.pending} onClick={() => void authorize.run()}>
          {s?.connected ? 'Authorize again' : 'Authorize'}
        </button>
      ) : null}
      <ErrorMessage error={authorize.error} />
      {s && s.connections.length > 0 ? (
        <ul>
          {s.connections.map((c) => {
            const owner = c.owner === 'team' ? 'team' : c.owner.user_id;
            const mine = c.owner !== 'team' && c.owner.user_id === session.me.id;
            return (
              <li key={owner}>
                {c.owner === 'team' ? 'The team' : mine ? 'You' : `Member ${owner}`} at{' '}
                <code>{c.authorization_server}</code>, since <When at={c.authorized_at} />
                {c.expires_at ? (
                  <>
                    {' '}
                    · token ends <When at={c.expires_at} /> (refreshed before)
                  </>
                ) : null}{' '}
                {mine || canManage ? (
                  <button
                    type="button"
                    className="danger"
                    disabled={disconnect.pending}
                    onClick={() => void disconnect.run(mine ? 'me' : owner)}
                  >
                    Remove<span className="visually-hidden"> authorization of {mine ? 'you' : owner}</span>
                  </button>
                ) : null}
              </li>
            );
          })}
        </ul>
      ) : null}
      <ErrorMessage error={disconnect.error} />
    </section>
  );
}
