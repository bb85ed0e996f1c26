import { describe, expect, it } from 'vitest';
import { isOperatorQuery } from './isOperatorQuery.ts';

describe('isOperatorQuery', () => {
  it.each([
    '=echo',
    "'tiny",
    "'tiny image",
    '^read',
    '!git',
    'file !^test',
    'file$',
    '"read file"$',
    '="read file"',
    'read | write',
    'read|write',
    'echo |',
    '!important notes',
  ])('reads %j as Fuse extended search', (query) => {
    expect(isOperatorQuery(query)).toBe(true);
  });

  it.each([
    'add two numbers',
    "what's the time in Tokyo",
    "don't delete anything",
    "the user's files",
    "show 'tiny' images",
    "find 'read the file' in the docs",
    'cost in US$5',
    'costs 5$',
    '$HOME directory',
    'hello!',
    'a = b',
    'x^2 plus y',
    '!',
    '"read file"',
    '',
    '   ',
  ])('reads %j as plain words', (query) => {
    expect(isOperatorQuery(query)).toBe(false);
  });
});
