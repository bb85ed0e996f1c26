import { auditContextOf } from '@orbital/audit';
import type { Bus } from '@orbital/bus';
import { remoteOAuthSubjects as s } from '@orbital/contracts';
import type { RemoteOAuth } from '../oauth/createRemoteOAuth.ts';

/** The OAuth flow of remote servers' installations; access is declared with each subject. */
export function serveRemoteOAuthSubjects(bus: Bus, oauth: RemoteOAuth): void {
  bus.serve(s.getStatus, (r, c) => oauth.getStatus(c.access.identity, r.team_id, r.installation_id));
  bus.serve(s.start, (r, c) => oauth.start(c.access.identity, r));
  bus.serve(s.complete, (r, c) => oauth.complete(r, auditContextOf(c)));
  bus.serve(s.disconnect, (r, c) => oauth.disconnect(c.access.identity, r, auditContextOf(c)));
  bus.serve(s.tokenForSatellite, (r, c) => oauth.tokenForSatellite(c.access.identity, r));
}
