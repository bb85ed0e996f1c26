import type { z } from 'zod';
import type { ProcessName } from '../processes.ts';
import { subjectToken } from '../subject.ts';
import type { StreamDefinition } from './eventStreams.ts';

/** The `{name}` tokens of a subject pattern, as a union of their names. */
export type SubjectTokens<S extends string> = S extends `${string}{${infer Name}}${infer Rest}`
  ? Name | SubjectTokens<Rest>
  : never;

/**
 * An event kept in JetStream: its subject pattern (before the deployment prefix; `{name}` stands for
 * one token filled from data), the stream that stores it, its payload schema, who publishes it and who
 * reads it. Publishing, the outbox, durable consumers and SSE feeds all take this object, so a
 * producer and its consumers cannot disagree about a payload, and the catalogue of events (the
 * AsyncAPI document, each process's NATS permissions) is built from the same objects.
 */
export type EventDef<P extends z.ZodType = z.ZodType, S extends string = string> = {
  readonly subject: S;
  readonly stream: StreamDefinition;
  readonly payload: P;
  readonly producer: ProcessName;
  /** Processes that read it: durable consumers and SSE feeds. */
  readonly consumers: readonly ProcessName[];
  readonly description: string;
  /** Tokens of the subject taken from the payload; the publisher gives the others. */
  // A method, so a definition of any payload is an EventDef (its parameter is compared both ways).
  tokensOf?(payload: z.output<P>): Partial<Record<SubjectTokens<S>, string>>;
  /** Headers a message carries, for the reference (name to description); `required` ones always. */
  readonly headers?: { readonly [name: string]: { readonly description: string; readonly required?: boolean } };
  /**
   * Set on a message that carries several events of one kind (`{events: [...]}`, defineEventBatch):
   * the event each element is. A consumer checks and settles the elements one by one, so one element
   * that breaks its contract or fails for good is parked alone, never its neighbours.
   */
  readonly batchOf?: { readonly subject: string; readonly payload: z.ZodType };
};

export type EventPayloadOf<E extends EventDef> = z.output<E['payload']>;
export type EventInputOf<E extends EventDef> = z.input<E['payload']>;
export type EventTokens<E extends EventDef> = Partial<Record<SubjectTokens<E['subject']>, string>>;

const tokenPattern = /^\{([a-z_]+)\}$/;
const literalToken = /^[a-z][a-z0-9_]*$/;

/** Does a NATS filter (with `*` and `>`) match every subject the pattern (tokens as `*`) can produce? */
export function filterCovers(filter: string, pattern: string): boolean {
  const f = filter.split('.');
  const p = pattern.split('.');
  for (let i = 0; i < f.length; i++) {
    if (f[i] === '>') return p.length > i;
    if (i >= p.length) return false;
    if (f[i] !== '*' && f[i] !== p[i]) return false;
  }
  return f.length === p.length;
}

export function defineEvent<P extends z.ZodType, const S extends string>(def: EventDef<P, S>): EventDef<P, S> {
  for (const token of def.subject.split('.')) {
    if (!tokenPattern.test(token) && !literalToken.test(token)) {
      throw new Error(`invalid token "${token}" in event subject ${def.subject}`);
    }
  }
  const wildcard = eventFilter(def);
  if (!def.stream.subjects.some((filter) => filterCovers(filter, wildcard))) {
    throw new Error(`event subject ${def.subject} is not stored by stream ${def.stream.name}`);
  }
  return def;
}

/** A subject pattern taken apart once: literal tokens as they are, `{name}` tokens by name. */
type CompiledSubject = ReadonlyArray<{ literal: string } | { name: string }>;
const compiledSubjects = new WeakMap<EventDef, CompiledSubject>();

function compiledSubject(def: EventDef): CompiledSubject {
  let compiled = compiledSubjects.get(def);
  if (!compiled) {
    compiled = def.subject.split('.').map((token) => {
      const name = tokenPattern.exec(token)?.[1];
      return name ? { name } : { literal: token };
    });
    compiledSubjects.set(def, compiled);
  }
  return compiled;
}

/** What subjectToken accepts, checked without building a zod result: this runs for every message. */
const plainToken = /^[^.*>\s]{1,128}$/;

/** The subject one message is published on: tokens from the payload, then the publisher's. */
export function eventSubject<E extends EventDef>(
  def: E,
  /** Absent when every token is given (a batch, whose subject takes nothing from its payload). */
  payload: EventPayloadOf<E> | undefined,
  given: Partial<Record<string, string>> = {},
): string {
  const fromPayload = payload === undefined ? undefined : def.tokensOf?.(payload);
  let subject = '';
  for (const token of compiledSubject(def)) {
    let part: string;
    if ('literal' in token) part = token.literal;
    else {
      const value = token.name in given ? given[token.name] : fromPayload?.[token.name as keyof typeof fromPayload];
      if (value === undefined) throw new Error(`no value for token {${token.name}} of ${def.subject}`);
      // The zod schema gives the reason when the token is refused.
      part = typeof value === 'string' && plainToken.test(value) ? value : subjectToken.parse(value);
    }
    subject = subject ? `${subject}.${part}` : part;
  }
  return subject;
}

/** A filter on one event: the given tokens fixed, the others any value. */
export function eventFilter<E extends EventDef>(def: E, tokens: EventTokens<E> = {}): string {
  const values = tokens as Partial<Record<string, string>>;
  return def.subject
    .split('.')
    .map((token) => {
      const name = tokenPattern.exec(token)?.[1];
      if (!name) return token;
      const value = values[name];
      return value === undefined ? '*' : subjectToken.parse(value);
    })
    .join('.');
}

/** The token values of a subject of this event (without the deployment prefix). */
export function eventTokensOf<E extends EventDef>(def: E, subject: string): EventTokens<E> {
  const values = subject.split('.');
  const tokens: Record<string, string> = {};
  def.subject.split('.').forEach((token, i) => {
    const name = tokenPattern.exec(token)?.[1];
    const value = values[i];
    if (name && value !== undefined) tokens[name] = value;
  });
  return tokens as EventTokens<E>;
}

/** Is this subject (without the deployment prefix) one of this event's? */
export function isEventSubject(def: EventDef, subject: string): boolean {
  return subjectMatcher(def).test(subject);
}

/**
 * The subjects of one event as a regular expression, made once per event: a consumer asks this of
 * every message it receives, against each event it reads, and splitting the subject each time showed
 * in its profile.
 */
const subjectMatchers = new WeakMap<EventDef, RegExp>();

function subjectMatcher(def: EventDef): RegExp {
  let matcher = subjectMatchers.get(def);
  if (!matcher) {
    const parts = compiledSubject(def).map((token) =>
      'literal' in token ? token.literal.replace(/[\\^$.*+?()[\]{}|]/g, '\\$&') : '[^.]*',
    );
    matcher = new RegExp(`^${parts.join('\\.')}$`);
    subjectMatchers.set(def, matcher);
  }
  return matcher;
}

/**
 * One filter covering several events of one stream (JetStream before 2.10 takes a single filter): the
 * tokens they share, then `>`. It may cover subjects of no listed event; a consumer treats a message
 * on such a subject as breaking its contract.
 */
export function eventsFilter(defs: readonly EventDef[]): string {
  const [first, ...rest] = defs.map((def) => eventFilter(def).split('.'));
  if (!first) throw new Error('no events to filter');
  if (rest.length === 0) return first.join('.');
  const shared: string[] = [];
  for (let i = 0; i < first.length; i++) {
    const token = first[i] as string;
    if (!rest.every((other) => other[i] === token)) break;
    shared.push(token);
  }
  if (shared.length === 0) throw new Error('events without a common subject prefix cannot share one filter');
  return [...shared, '>'].join('.');
}

/** The stream several events share; a consumer or feed reads exactly one stream. */
export function streamOfEvents(defs: readonly EventDef[]): StreamDefinition {
  const [first, ...rest] = defs;
  if (!first) throw new Error('no events given');
  for (const def of rest) {
    if (def.stream.name !== first.stream.name) {
      throw new Error(`${def.subject} is in ${def.stream.name}, not ${first.stream.name}: one stream per consumer`);
    }
  }
  return first.stream;
}
