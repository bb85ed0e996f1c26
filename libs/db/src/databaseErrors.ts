import { AppError } from '@orbital/errors';
import {
  BackendTerminatedError,
  BackendTerminatedUnexpectedlyError,
  ConnectionError,
  IdleTransactionTimeoutError,
  IntegrityConstraintViolationError,
  StatementTimeoutError,
} from 'slonik';

/** Socket failures of a connection to PostgreSQL (refused, reset, timed out, no route, no name). */
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs that mean the server cannot serve now: connection exceptions (class 08), insufficient
 * resources (class 53: too many connections, out of memory or disk), operator intervention (57P01 admin
 * shutdown, 57P02 crash shutdown, 57P03 cannot connect now, 57P05 idle session timeout).
 */
function isOutageState(code: string): boolean {
  return code.startsWith('08') || code.startsWith('53') || ['57P01', '57P02', '57P03', '57P05'].includes(code);
}

/** SQLSTATEs of work that may well succeed when simply tried again: serialization failure, deadlock, lock timeout, cancelled statement. */
const retryStates = new Set(['40001', '40P01', '55P03', '57014']);

function* causes(error: unknown): Generator<unknown> {
  let current: unknown = error;
  for (let depth = 0; current !== undefined && current !== null && depth < 5; depth++) {
    yield current;
    current = (current as { cause?: unknown }).cause;
  }
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown })?.code;
  return typeof code === 'string' ? code : '';
}

/**
 * True when an error says PostgreSQL cannot be reached or cannot serve now (not that the query was
 * wrong): a connection refused, reset or timed out, a server shutting down, too many connections. The
 * right answer to such an error is 503, and a consumer retries the work until the database is back.
 * Looks through causes (an AppError made from a driver error counts), never at another dependency's
 * `unavailable`.
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (const e of causes(error)) {
    if (
      e instanceof ConnectionError ||
      e instanceof BackendTerminatedError ||
      e instanceof BackendTerminatedUnexpectedlyError
    ) {
      return true;
    }
    const code = codeOf(e);
    if (socketCodes.has(code) || isOutageState(code)) return true;
    const message = e instanceof Error ? e.message : '';
    // pg's own words when the server closes the socket under a query.
    if (/Connection terminated|connection timeout|timeout exceeded when trying to connect/i.test(message)) return true;
  }
  return false;
}

/**
 * True when trying the same work again later may succeed: the database is unavailable, or the attempt
 * lost a race (serialization failure, deadlock, lock or statement timeout). Constraint violations,
 * invalid input and bugs are not transient: trying again changes nothing.
 */
export function isTransientDatabaseError(error: unknown): boolean {
  if (isDatabaseUnavailable(error)) return true;
  for (const e of causes(error)) {
    if (e instanceof StatementTimeoutError || e instanceof IdleTransactionTimeoutError) return true;
    if (retryStates.has(codeOf(e))) return true;
  }
  return false;
}

/**
 * How a consumer of events treats a database failure: `transient` (outage or lost race) is tried again
 * until it succeeds; `poison` (a constraint violation, data PostgreSQL refuses) can never succeed and is
 * parked; anything else is left to the consumer's attempts.
 */
export function classifyDatabaseError(error: unknown): 'transient' | 'poison' | undefined {
  if (isTransientDatabaseError(error)) return 'transient';
  for (const e of causes(error)) {
    if (e instanceof IntegrityConstraintViolationError) return 'poison';
    const code = codeOf(e);
    if (/^2[23][0-9A-Z]{3}$/.test(code)) return 'poison';
  }
  return undefined;
}

/** The outage as the platform answers it: `unavailable` (503), with the driver's error kept as the cause. */
export function databaseUnavailable(cause: unknown): AppError {
  return new AppError('unavailable', 'The database is unavailable', {
    details: { dependency: 'database' },
    cause,
  });
}
