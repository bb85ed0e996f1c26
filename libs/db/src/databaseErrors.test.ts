import { AppError } from '@orbital/errors';
import { ConnectionError, StatementTimeoutError, UniqueIntegrityConstraintViolationError } from 'slonik';
import { describe, expect, it } from 'vitest';
import {
  classifyDatabaseError,
  databaseUnavailable,
  isDatabaseUnavailable,
  isTransientDatabaseError,
} from './databaseErrors.ts';

const withCode = (code: string, message = 'driver error') => Object.assign(new Error(message), { code });

describe('database errors', () => {
  it('tells an unreachable or refusing server from a query that failed', () => {
    for (const outage of [
      new ConnectionError('connect ECONNREFUSED'),
      withCode('ECONNREFUSED'),
      withCode('ECONNRESET'),
      withCode('57P01', 'terminating connection due to administrator command'),
      withCode('53300', 'too many connections'),
      withCode('08006'),
      new Error('Connection terminated unexpectedly'),
      // An error made from one keeps it as its cause.
      databaseUnavailable(withCode('ECONNREFUSED')),
    ]) {
      expect(isDatabaseUnavailable(outage)).toBe(true);
      expect(isTransientDatabaseError(outage)).toBe(true);
    }
  });

  it('calls lost races transient but not an outage', () => {
    for (const race of [withCode('40001'), withCode('40P01'), withCode('55P03')]) {
      expect(isDatabaseUnavailable(race)).toBe(false);
      expect(isTransientDatabaseError(race)).toBe(true);
    }
    const timeout = new StatementTimeoutError(withCode('57014') as never);
    expect(isTransientDatabaseError(timeout)).toBe(true);
  });

  it('calls neither what trying again cannot fix, nor another dependency being unavailable', () => {
    const unique = new UniqueIntegrityConstraintViolationError(withCode('23505') as never);
    for (const lasting of [
      unique,
      withCode('22P02', 'invalid input syntax'),
      new TypeError('x is undefined'),
      new AppError('unavailable', 'The service did not answer'),
      new AppError('validation_failed'),
    ]) {
      expect(isDatabaseUnavailable(lasting)).toBe(false);
      expect(isTransientDatabaseError(lasting)).toBe(false);
    }
  });

  it('tells a consumer what to retry, what to park, and what to leave to its attempts', () => {
    expect(classifyDatabaseError(withCode('ECONNREFUSED'))).toBe('transient');
    expect(classifyDatabaseError(withCode('40P01'))).toBe('transient');
    expect(classifyDatabaseError(new UniqueIntegrityConstraintViolationError(withCode('23505') as never))).toBe(
      'poison',
    );
    expect(classifyDatabaseError(withCode('22P02', 'invalid input syntax'))).toBe('poison');
    expect(classifyDatabaseError(new TypeError('x is undefined'))).toBeUndefined();
  });
});
