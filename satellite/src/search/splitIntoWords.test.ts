import { describe, expect, it } from 'vitest';
import { splitIntoWords } from './splitIntoWords.ts';

describe('splitIntoWords', () => {
  it.each([
    ['read_text_file', ['read', 'text', 'file']],
    ['getFileInfo', ['get', 'file', 'info']],
    ['list-containers', ['list', 'containers']],
    ['get36krTrending', ['get', '36', 'kr', 'trending']],
    ['HTMLParser', ['html', 'parser']],
    ['server.tool/name', ['server', 'tool', 'name']],
    ["what's the user’s file?", ['whats', 'the', 'users', 'file']],
    ['ÉtéCafé', ['été', 'café']],
    ['获取当前日期 date', ['获取当前日期', 'date']],
    ['  ', []],
  ])('splits %j', (text, words) => {
    expect(splitIntoWords(text)).toEqual(words);
  });
});
