import type { Bus } from '@orbital/bus';
import type { RequestOf, SubjectDef } from '@orbital/contracts';
import type { z } from 'zod';
import { defineRoute, type Route, type RouteDefinition, type RouteInput } from './defineRoute.ts';

type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

/** Everything of a route but its access, response and handler, which the subject gives. */
export type ProxyRouteOptions<
  S extends SubjectDef,
  B extends Schema | undefined,
  Q extends Schema | undefined,
  P extends Schema | undefined,
> = Omit<RouteDefinition<B, Q, P, S['reply']>, 'access' | 'accessRequest' | 'response' | 'handler'> & {
  /** The subject's request, from what the route parsed (path, query and body). */
  toRequest(input: RouteInput<Out<B>, Out<Q>, Out<P>>): RequestOf<S>;
};

/** A route that relays a subject, and which: routes are derived from it, never declared beside it. */
export type ProxyRoute = Route & { relays: SubjectDef };

/**
 * A route that relays one subject and takes everything but HTTP from it: its access is the subject's,
 * judged on the subject's request before it is sent (so a refused caller never reaches NATS), and its
 * response schema is the subject's reply schema, so the OpenAPI document is as strict as the bus. The
 * caller's identity and the request id travel with the request; `bus.serve` judges the same access again
 * in the serving service, which trusts no caller to have filtered.
 */
export function proxyRoute<
  S extends SubjectDef,
  B extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  P extends Schema | undefined = undefined,
>(bus: Bus, subject: S, options: ProxyRouteOptions<S, B, Q, P>): ProxyRoute {
  const { toRequest, ...route } = options;
  const relayed = defineRoute<B, Q, P, S['reply']>({
    ...route,
    access: subject.access,
    accessRequest: toRequest,
    response: subject.reply,
    handler: (input) =>
      bus.request(subject, toRequest(input), {
        identity: input.identity,
        requestId: input.requestId,
        origin: input.origin,
      }),
  });
  return { ...relayed, relays: subject };
}

export function isProxyRoute(route: Route): route is ProxyRoute {
  return 'relays' in route;
}

/** A route's method and path in one string, as a table of routes reads: `'GET /api/settings/:key'`. */
export type MethodAndPath = `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} /${string}`;

/**
 * Writes a table of relaying routes once: each row names its subject, its method and path, its summary
 * and what HTTP adds (path, query and body schemas, the success status, the subject's request from them);
 * the tags are the table's.
 */
export function relayTable(bus: Bus, tags: string[]) {
  return <
    S extends SubjectDef,
    B extends Schema | undefined = undefined,
    Q extends Schema | undefined = undefined,
    P extends Schema | undefined = undefined,
  >(
    subject: S,
    at: MethodAndPath,
    summary: string,
    options: Omit<ProxyRouteOptions<S, B, Q, P>, 'method' | 'url' | 'summary' | 'tags'>,
  ): ProxyRoute => {
    const space = at.indexOf(' ');
    const method = at.slice(0, space) as RouteDefinition['method'];
    return proxyRoute(bus, subject, { method, url: at.slice(space + 1), summary, tags, ...options });
  };
}
