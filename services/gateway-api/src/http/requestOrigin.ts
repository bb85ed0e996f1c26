import type { RequestOrigin } from '@orbital/contracts';
import type { FastifyRequest } from 'fastify';

const people = new WeakMap<FastifyRequest, { email: string; name: string }>();

/** Called by whoever authenticates a person for this request: their e-mail and name as they are now. */
export function rememberPerson(request: FastifyRequest, person: { email: string; name: string }): void {
  people.set(request, { email: person.email, name: person.name });
}

/**
 * Where a request came from and who made it, for the audit entries of what it causes: the client's
 * address as Fastify derived it (TRUST_PROXY decides which forwarded address counts) and the signed-in
 * person's e-mail and name, copied so an entry says who it was even after a rename.
 */
export function originOf(request: FastifyRequest): RequestOrigin {
  const person = people.get(request);
  return { source_ip: request.ip ?? null, user_email: person?.email ?? null, user_name: person?.name ?? null };
}
