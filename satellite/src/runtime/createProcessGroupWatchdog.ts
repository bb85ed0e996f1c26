import { type ChildProcess, spawn } from 'node:child_process';
import type { Socket } from 'node:net';

/**
 * Ends every stdio server's process group when the satellite dies, however it dies (SIGKILL and
 * out-of-memory kills included, which run no exit handler). Servers run in process groups of their
 * own so a signal to the satellite's group (Ctrl-C) does not reach them half-way through a shutdown;
 * the price is that nothing kills them with the satellite. This tiny shell, in a group of its own
 * too, holds the read end of a pipe only the satellite writes to: the satellite registers each group
 * (`+pgid`) and unregisters it at exit (`-pgid`); end of file means the satellite is gone, and the
 * shell sends SIGTERM then SIGKILL to every group still registered, then exits.
 */
const script = `
groups=""
while IFS= read -r line; do
  case "$line" in
    +*) groups="$groups \${line#+}" ;;
    -*) g="\${line#-}"; kept=""; for x in $groups; do [ "$x" = "$g" ] || kept="$kept $x"; done; groups="$kept" ;;
  esac
done
[ -z "$groups" ] && exit 0
for g in $groups; do kill -TERM -$g 2>/dev/null; done
sleep 2
for g in $groups; do kill -KILL -$g 2>/dev/null; done
`;

export type ProcessGroupWatchdog = {
  register(pgid: number): void;
  unregister(pgid: number): void;
  /** Orderly exit: every group was already stopped, so the shell exits with nothing to kill. */
  close(): void;
};

export function createProcessGroupWatchdog(): ProcessGroupWatchdog {
  let shell: ChildProcess | undefined;
  const ensure = (): ChildProcess => {
    if (shell && shell.exitCode === null && shell.signalCode === null) return shell;
    shell = spawn('/bin/sh', ['-c', script], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
    shell.on('error', () => {});
    shell.stdin?.on('error', () => {});
    // Neither the shell nor its pipe may keep the satellite's event loop alive.
    shell.unref();
    (shell.stdin as unknown as Socket | null)?.unref?.();
    return shell;
  };
  const write = (line: string) => {
    const stdin = ensure().stdin;
    if (stdin && !stdin.destroyed) stdin.write(`${line}\n`);
  };
  return {
    register: (pgid) => write(`+${pgid}`),
    unregister: (pgid) => {
      if (shell) write(`-${pgid}`);
    },
    close: () => {
      shell?.stdin?.end();
      shell = undefined;
    },
  };
}
