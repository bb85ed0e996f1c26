import type { Bus } from '@orbital/bus';
import type { ReplyOf, RequestOf, SubjectDef } from '@orbital/contracts';
import type { z } from 'zod';
import { defineRoute, type Route, type RouteDefinition, type RouteInput } from './defineRoute.ts';

type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;
type Input<B, Q, P> = RouteInput<Out<B>, Out<Q>, Out<P>>;

/** Everything of a route but its access, response and handler, which the subject gives. */
export type ProxyRouteOptions<
  S extends SubjectDef,
  B extends Schema | undefined,
  Q extends Schema | undefined,
  P extends Schema | undefined,
> = Omit<RouteDefinition<B, Q, P, S['reply']>, 'access' | 'accessRequest' | 'response' | 'handler'> & {
  /** The subject's request, from what the route parsed (path, query and body). */
  toRequest(input: Input<B, Q, P>): RequestOf<S>;
  /** How long the subject may take to answer, where it is longer than any request should (database setup). */
  timeoutMs?: number;
};

/**
 * Sends the route's subject as the caller: `toRequest`'s request when none is given, or another request
 * of the same subject (a later page, a poll repeated), which its service judges again.
 */
export type SendSubject<S extends SubjectDef> = (request?: RequestOf<S>) => Promise<ReplyOf<S>>;

/**
 * A route that serves a subject but answers in its own way (a held poll, an event stream, a download, a
 * cookie or a redirect): everything but the access, whose request `toRequest` gives, and a handler that
 * reaches the subject through `send`.
 */
export type SubjectRouteOptions<
  S extends SubjectDef,
  B extends Schema | undefined,
  Q extends Schema | undefined,
  P extends Schema | undefined,
  R extends Schema,
> = Omit<RouteDefinition<B, Q, P, R>, 'access' | 'accessRequest' | 'handler'> & {
  toRequest(input: Input<B, Q, P>): RequestOf<S>;
  timeoutMs?: number;
  handler(input: Input<B, Q, P>, send: SendSubject<S>): Promise<z.input<R> | z.output<R>>;
};

/** A route that serves a subject, and which: its access is derived from it, never declared beside it. */
export type ProxyRoute = Route & { relays: SubjectDef };

/**
 * A route that serves one subject and takes its access from it: judged on the subject's request (from
 * `toRequest`) once the inputs are parsed, before anything is sent, so a refused caller never reaches
 * NATS. The caller's identity, the request id and the origin travel with every request `send` makes;
 * `bus.serve` judges the same access again in the serving service, which trusts no caller to have filtered.
 */
export function subjectRoute<
  S extends SubjectDef,
  R extends Schema,
  B extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  P extends Schema | undefined = undefined,
>(bus: Bus, subject: S, options: SubjectRouteOptions<S, B, Q, P, R>): ProxyRoute {
  const { toRequest, handler, timeoutMs, ...route } = options;
  const served = defineRoute<B, Q, P, R>({
    ...route,
    access: subject.access,
    accessRequest: toRequest,
    handler: (input) =>
      handler(input, (request = toRequest(input)) =>
        bus.request(subject, request, {
          identity: input.identity,
          requestId: input.requestId,
          origin: input.origin,
          ...(timeoutMs ? { timeoutMs } : {}),
        }),
      ),
  });
  return { ...served, relays: subject };
}

/**
 * A route that relays one subject and takes everything but HTTP from it: the subject's access (as
 * subjectRoute judges it), and its reply schema as the response, so the OpenAPI document is as strict as
 * the bus; the answer is the subject's reply.
 */
export function proxyRoute<
  S extends SubjectDef,
  B extends Schema | undefined = undefined,
  Q extends Schema | undefined = undefined,
  P extends Schema | undefined = undefined,
>(bus: Bus, subject: S, options: ProxyRouteOptions<S, B, Q, P>): ProxyRoute {
  return subjectRoute<S, S['reply'], B, Q, P>(bus, subject, {
    ...options,
    response: subject.reply,
    handler: (_input, send) => send(),
  });
}

export function isProxyRoute(route: Route): route is ProxyRoute {
  return 'relays' in route;
}

/** A route's method and path in one string, as a table of routes reads: `'GET /api/settings/:key'`. */
export type MethodAndPath = `${'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'} /${string}`;

/** The method and the path of `'GET /api/settings/:key'`. */
function methodAndUrl(at: MethodAndPath) {
  const space = at.indexOf(' ');
  return { method: at.slice(0, space) as RouteDefinition['method'], url: at.slice(space + 1) };
}

/** The parts of a route a table's row does not write: its method and path come as one string, its tags are the table's. */
type TableParts = 'method' | 'url' | 'summary' | 'tags';

/**
 * Rows of routes written by `write` (proxyRoute or subjectRoute), each naming its subject, its method and
 * path, its summary and what HTTP adds (path, query and body schemas, the success status, the subject's
 * request from them); the tags are the table's.
 */
function routeTable<S extends SubjectDef, O extends Pick<RouteDefinition, TableParts>>(
  bus: Bus,
  tags: string[],
  write: (bus: Bus, subject: S, options: O) => ProxyRoute,
) {
  // The row and the table's parts make the whole of O; TypeScript does not see that through a generic Omit.
  return (subject: S, at: MethodAndPath, summary: string, options: Omit<O, TableParts>): ProxyRoute =>
    write(bus, subject, { ...methodAndUrl(at), summary, tags, ...options } as O);
}

/** A table of relaying routes (proxyRoute). */
export const relayTable = (bus: Bus, tags: string[]) => routeTable(bus, tags, proxyRoute);

/** A table of routes that serve a subject in their own way (subjectRoute): each row adds its response and handler. */
export const subjectTable = (bus: Bus, tags: string[]) => routeTable(bus, tags, subjectRoute);
