import type { AuditActor, CallerIdentity, RequestOrigin } from '@orbital/contracts';

/** The fields of an audit entry that say who asked and from where. */
export type AuditContext = { actor: AuditActor; source_ip: string | null; request_id: string | null };

/**
 * Who made a request and from where, for the entry of the action it caused: the signed identity says
 * who (a user, a satellite, a process), the origin gateway-api sent beside it adds the person's e-mail
 * and name as they were and the client's address. Takes a bus handler's context as it is.
 */
export function auditContextOf(context: {
  identity: CallerIdentity;
  origin: RequestOrigin | null;
  requestId?: string | null;
}): AuditContext {
  const { identity, origin } = context;
  return {
    actor: actorOf(identity, origin),
    source_ip: origin?.source_ip ?? null,
    request_id: context.requestId ?? null,
  };
}

function actorOf(identity: CallerIdentity, origin: RequestOrigin | null): AuditActor {
  switch (identity.kind) {
    case 'user':
      return { kind: 'user', id: identity.user_id, email: origin?.user_email ?? null, name: origin?.user_name ?? null };
    case 'satellite':
      return { kind: 'satellite', id: identity.satellite_id, email: null, name: null };
    case 'service':
      return { kind: 'process', id: identity.service, email: null, name: null };
    case 'anonymous':
      return { kind: 'anonymous', id: null, email: null, name: null };
  }
}

/** A platform process acting on its own account (a schedule's tick, start-up work). */
export function processActor(process: string): AuditActor {
  return { kind: 'process', id: process, email: null, name: null };
}

/** A person as they are now (a sign-in, where no request identity exists yet): copied into the entry. */
export function userActor(user: { id: string; email: string; name: string }): AuditActor {
  return { kind: 'user', id: user.id, email: user.email, name: user.name };
}

/** Someone not signed in, with the e-mail address they gave if any (a refused sign-in). */
export function anonymousActor(email: string | null = null): AuditActor {
  return { kind: 'anonymous', id: null, email, name: null };
}
