import { describe, expect, it, vi } from 'vitest';
import { createStderrBatcher, type LogLine } from './createStderrBatcher.ts';
import { commandLine } from './createStdioConnector.ts';

describe('createStderrBatcher', () => {
  it('joins chunks into lines and sends them in one batch per interval', () => {
    vi.useFakeTimers();
    const batches: LogLine[][] = [];
    const batcher = createStderrBatcher({ intervalMs: 1000, maxLines: 100, send: (lines) => batches.push(lines) });
    batcher.write('starting up\nWARNING: slow di');
    batcher.write('sk\nerror: boom\n');
    expect(batches).toEqual([]);
    vi.advanceTimersByTime(1000);
    expect(batches).toHaveLength(1);
    expect(batches[0]?.map((l) => [l.log_level, l.message])).toEqual([
      ['info', 'starting up'],
      ['warn', 'WARNING: slow disk'],
      ['error', 'error: boom'],
    ]);
    vi.useRealTimers();
  });

  it('sends at once when a batch is full, and the unfinished last line on flush', () => {
    const batches: LogLine[][] = [];
    const batcher = createStderrBatcher({ intervalMs: 60000, maxLines: 2, send: (lines) => batches.push(lines) });
    batcher.write('one\ntwo\nthree');
    expect(batches.map((b) => b.length)).toEqual([2]);
    batcher.flush();
    expect(batches[1]?.[0]?.message).toBe('three');
    batcher.close();
  });
});

describe('commandLine', () => {
  it('runs the command itself when no limit is set (the default)', () => {
    expect(commandLine('node', ['server.js'], undefined)).toEqual({ file: 'node', args: ['server.js'] });
    expect(commandLine('node', ['server.js'], { memoryMb: 0 })).toEqual({ file: 'node', args: ['server.js'] });
  });

  it('wraps the command in ulimit and exec when limits are set', () => {
    const line = commandLine('node', ['server.js'], { memoryMb: 100, cpuSeconds: 60, maxProcesses: 50 });
    expect(line.file).toBe('/bin/sh');
    expect(line.args).toEqual([
      '-c',
      'ulimit -v 102400 && ulimit -t 60 && ulimit -u 50 && exec "$0" "$@"',
      'node',
      'server.js',
    ]);
  });
});
