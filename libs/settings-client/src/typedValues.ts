import { AppError } from '@orbital/errors';
import { z } from 'zod';

/**
 * Typed reads of setting text. Pure functions: the settings
 * service applies them to its cache, other services to values fetched over NATS.
 */
const trueWords = new Set(['true', '1', 'yes', 'on', 'enabled']);
const falseWords = new Set(['false', '0', 'no', 'off', 'disabled']);

function invalid(key: string, expected: string): AppError {
  // The value itself is never quoted: it may be a secret.
  return new AppError('validation_failed', `Setting ${key} is not a valid ${expected}`, { details: { key, expected } });
}

export function parseBoolean(key: string, raw: string): boolean {
  const word = raw.trim().toLowerCase();
  if (trueWords.has(word)) return true;
  if (falseWords.has(word)) return false;
  throw invalid(key, 'boolean');
}

/** Comma-separated text as a list, items trimmed, empty items dropped. */
export function parseArray(_key: string, raw: string): string[] {
  return raw
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);
}

export function parseNumber(key: string, raw: string): number {
  const text = raw.trim();
  const value = Number(text);
  if (text === '' || !Number.isFinite(value)) throw invalid(key, 'number');
  return value;
}

export function parseInteger(key: string, raw: string): number {
  const value = parseNumber(key, raw);
  if (!Number.isSafeInteger(value)) throw invalid(key, 'integer');
  return value;
}

export function parseUrl(key: string, raw: string): URL {
  const result = z.url({ protocol: /^https?$/ }).safeParse(raw.trim());
  if (!result.success) throw invalid(key, 'URL');
  return new URL(result.data);
}

export function parseEmail(key: string, raw: string): string {
  const result = z.email().safeParse(raw.trim());
  if (!result.success) throw invalid(key, 'e-mail address');
  return result.data;
}

export function parseJson(key: string, raw: string): unknown {
  try {
    return JSON.parse(raw);
  } catch {
    throw invalid(key, 'JSON document');
  }
}

/** A required read fails when the setting is missing or empty. */
export function requireValue(key: string, raw: string | undefined): string {
  if (raw === undefined)
    throw new AppError('not_found', `Required setting ${key} does not exist`, { details: { key } });
  if (raw.trim() === '')
    throw new AppError('validation_failed', `Required setting ${key} is empty`, { details: { key } });
  return raw;
}

/**
 * A group's values keyed with their full keys, or without the prefix the group's keys share
 * (`smtp.host` -> `host`, `repohost.oauth.client_id` -> `client_id`).
 */
export function groupValues(values: Record<string, string>, options: { withPrefix: boolean }): Record<string, string> {
  if (options.withPrefix) return { ...values };
  const prefix = commonKeyPrefix(Object.keys(values));
  return Object.fromEntries(Object.entries(values).map(([key, value]) => [key.slice(prefix.length), value]));
}

function commonKeyPrefix(keys: string[]): string {
  if (keys.length === 0) return '';
  const split = keys.map((key) => key.split('.').slice(0, -1));
  const first = split[0] ?? [];
  let length = 0;
  while (length < first.length && split.every((parts) => parts[length] === first[length])) length += 1;
  return length === 0 ? '' : `${first.slice(0, length).join('.')}.`;
}
