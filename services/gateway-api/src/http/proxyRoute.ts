import type { Bus } from '@orbital/bus';
import type { RequestOf, SubjectDef } from '@orbital/contracts';
import type { z } from 'zod';
import { defineRoute, type Route, type RouteDefinition, type RouteInput } from './defineRoute.ts';

type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** Everything of a route but its response and handler, which the subject gives. */
export type ProxyRouteOptions<
  S extends SubjectDef,
  B extends Schema | undefined,
  Q extends Schema | undefined,
  P extends Schema | undefined,
> = Omit<RouteDefinition<B, Q, P, S['reply']>, 'response' | 'handler'> & {
  /** The subject's request, from what the route parsed (path, query and body). */
  toRequest(input: RouteInput<Out<B>, Out<Q>, Out<P>>): RequestOf<S>;
};

/**
 * A route that relays one subject: it answers what the subject replies, so its response schema is the
 * subject's reply schema and the OpenAPI document is as strict as the bus. The caller's identity and
 * the request id travel with the request; the serving service checks the subject's access again.
 */
export function proxyRoute<
  S extends SubjectDef,
  B extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  P extends Schema | undefined = undefined,
>(bus: Bus, subject: S, options: ProxyRouteOptions<S, B, Q, P>): Route {
  const { toRequest, ...route } = options;
  return defineRoute<B, Q, P, S['reply']>({
    ...route,
    response: subject.reply,
    handler: (input) =>
      bus.request(subject, toRequest(input), {
        identity: input.identity,
        requestId: input.requestId,
        origin: input.origin,
      }),
  });
}
