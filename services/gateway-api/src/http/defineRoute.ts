import { randomUUID } from 'node:crypto';
import { authorizeRequest } from '@orbital/access';
import { anonymousIdentity, type CallerIdentity, type RequestOrigin } from '@orbital/contracts';
import { AppError } from '@orbital/errors';
import type { FastifyInstance, FastifyReply, FastifyRequest, HTTPMethods } from 'fastify';
import { z } from 'zod';
import { errorResponsesOf, operationIdOf, securityOf } from './describeOperation.ts';
import { originOf } from './requestOrigin.ts';
import type { Access, AccessResolver } from './routeAccess.ts';
import { findUnstorableText, withStorableText } from './storableText.ts';

export type { Access, AccessResolver, SatelliteAuthenticator } from './routeAccess.ts';

export type RouteInput<B, Q, P> = {
  body: B;
  query: Q;
  params: P;
  identity: CallerIdentity;
  requestId: string;
  /** Where the request came from and who made it; sent beside the identity for audit entries. */
  origin: RequestOrigin;
  request: FastifyRequest;
  reply: FastifyReply;
};

type Schema = z.ZodType;
type Out<S> = S extends z.ZodType ? z.output<S> : undefined;

export type RouteDefinition<
  B extends Schema | undefined = Schema | undefined,
  Q extends Schema | undefined = Schema | undefined,
  P extends Schema | undefined = Schema | undefined,
  R extends Schema = Schema,
> = {
  method: HTTPMethods;
  url: string;
  summary: string;
  tags: string[];
  /** Who may call: routeAccess.ts; a route relaying a subject takes the subject's (proxyRoute). */
  access: Access;
  /**
   * What the access is judged against once the inputs are parsed: the subject's request, for a route
   * relaying a subject, whose access names that request's fields. Without it the access is judged before
   * the body is read, against the path (`{params}`), so a caller who may not call learns nothing of it.
   */
  accessRequest?(input: RouteInput<Out<B>, Out<Q>, Out<P>>): unknown;
  body?: B;
  querystring?: Q;
  params?: P;
  response: R;
  /**
   * `envelope` (the default) answers `{success: true, data}`; `bare` sends the data as it is, for the
   * the database setup endpoints, whose clients (the setup wizard) read their fields at the top level.
   */
  responseShape?: 'envelope' | 'bare';
  successStatus?: number;
  /**
   * What text PostgreSQL cannot store (a NUL character, an unpaired surrogate) in the body, query or path
   * does: `refuse` (the default) answers 400 naming where it is; `clean` makes the body's text storable
   * first (satellite events, whose log lines may hold anything a process wrote).
   */
  unstorableText?: 'refuse' | 'clean';
  /** Answers data the response schema accepts, or data it already parsed (a subject's reply relayed). */
  handler(input: RouteInput<Out<B>, Out<Q>, Out<P>>): Promise<z.input<R> | z.output<R>>;
};

/** A route of any schemas, as the app registers it: `defineRoute` has already tied its handler to them. */
export type Route = RouteDefinition;

/**
 * Checks a route's handler against its own schemas, then forgets them: the handler only ever receives
 * what those schemas parsed, so a list of routes of different schemas is one `Route[]`.
 */
export function defineRoute<
  B extends Schema | undefined,
  Q extends Schema | undefined,
  P extends Schema | undefined,
  R extends Schema,
>(def: RouteDefinition<B, Q, P, R>): Route {
  return def;
}

function parseInput<S extends Schema | undefined>(schema: S, value: unknown, where: string): Out<S> {
  if (!schema) return undefined as Out<S>;
  const result = schema.safeParse(value ?? (where === 'body' ? undefined : {}));
  if (result.success) return result.data as Out<S>;
  throw new AppError('validation_failed', `The request ${where} is not valid`, {
    details: result.error.issues.map((issue) => ({
      path: [where, ...issue.path.map(String)].join('.'),
      message: issue.message,
    })),
  });
}

/**
 * No input may carry text PostgreSQL cannot store (a NUL character, an unpaired surrogate): refused here,
 * for every route, before any schema or service sees it, with the place it was found.
 */
function refuseUnstorableText(request: FastifyRequest, bodyCleaned: boolean): void {
  // A body just cleaned holds none: scanning it again cost a batch of events a second walk of every string.
  const inputs = { params: request.params, query: request.query, ...(bodyCleaned ? {} : { body: request.body }) };
  const found = findUnstorableText(inputs);
  if (!found) return;
  throw new AppError('validation_failed', 'The request contains text that cannot be stored', {
    details: [{ path: found.path.join('.'), message: found.problem }],
  });
}

function jsonSchema(schema: Schema | undefined) {
  if (!schema) return undefined;
  return z.toJSONSchema(schema, { target: 'openapi-3.0', io: 'input', unrepresentable: 'any' });
}

export const envelopeOf = (data: Schema) => z.object({ success: z.literal(true), data });

/**
 * Registers a route: OpenAPI from the zod schemas, access resolved before anything else, inputs
 * parsed with zod (a failure is a 400 envelope naming each bad field), the reply wrapped.
 */
export function registerRoute(app: FastifyInstance, def: RouteDefinition, resolveAccess: AccessResolver): void {
  const shape = def.responseShape ?? 'envelope';
  app.route({
    method: def.method,
    url: def.url,
    schema: {
      summary: def.summary,
      tags: def.tags,
      ...(def.body ? { body: jsonSchema(def.body) } : {}),
      ...(def.querystring ? { querystring: jsonSchema(def.querystring) } : {}),
      ...(def.params ? { params: jsonSchema(def.params) } : {}),
      operationId: operationIdOf(def.method, def.url),
      security: securityOf(def.access),
      response: {
        [def.successStatus ?? 200]: jsonSchema(shape === 'envelope' ? envelopeOf(def.response) : def.response),
        ...errorResponsesOf(def),
      },
    },
    handler: async (request, reply) => {
      // The path is read in its parsed form before access is resolved: a team or satellite id in the
      // path is checked against the caller's teams or key in the one form ids are compared in (a UUID
      // in lower case), so an id written in capitals names the same team. A path that does not parse
      // is still answered after authentication, as before, with the 400 naming the bad parameter.
      const params = def.params?.safeParse(request.params ?? {});
      if (params?.success) request.params = params.data;
      const identity = await resolveAccess(request, def.access);
      if (!def.accessRequest) authorize(request, def.access, identity, { params: request.params });
      const strip = def.unstorableText === 'clean';
      if (strip) request.body = withStorableText(request.body);
      refuseUnstorableText(request, strip);
      const input = {
        body: parseInput(def.body, request.body, 'body'),
        query: parseInput(def.querystring, request.query, 'query'),
        params: params?.success ? params.data : parseInput(def.params, request.params, 'params'),
        identity,
        requestId: request.id,
        origin: originOf(request),
        request,
        reply,
      };
      if (def.accessRequest) authorize(request, def.access, identity, def.accessRequest(input));
      const data = await def.handler(input);
      if (reply.sent) return reply;
      reply.status(def.successStatus ?? 200);
      return shape === 'envelope' ? { success: true, data } : data;
    },
  });
}

/**
 * Judges the caller against the route's access with the interpreter `bus.serve` uses. A satellite sent
 * to another satellite's id is logged as a security event: it holds a valid key and is probing.
 */
function authorize(request: FastifyRequest, access: Access, identity: CallerIdentity, judged: unknown): void {
  try {
    authorizeRequest(access, identity, judged);
  } catch (error) {
    if (identity.kind === 'satellite') {
      request.log.warn(
        {
          event: 'security.satellite_auth_refused',
          reason: 'foreign_satellite_path',
          client_ip: request.ip,
          satellite_id: identity.satellite_id,
        },
        'satellite authentication refused',
      );
    }
    throw error;
  }
}

/** Until an identity module registers its resolvers, only public routes exist. */
export const publicOnlyAccess: AccessResolver = async (_request, access) => {
  if (access.public) return anonymousIdentity;
  throw new AppError('internal', 'No identity module reads the credentials this route takes');
};

const requestIdPattern = /^[A-Za-z0-9._-]{1,128}$/;

/** Keeps a caller's X-Request-Id when it is well formed, so one id follows a request everywhere. */
export function requestIdFor(request: { headers: Record<string, string | string[] | undefined> }): string {
  const given = request.headers['x-request-id'];
  return typeof given === 'string' && requestIdPattern.test(given) ? given : randomUUID();
}
