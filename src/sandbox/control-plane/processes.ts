// Child servers that cannot outlive the test process. Three layers, because a test may forget
// close(), throw half-way, or be killed:
// - the child is unref'd (while idle), so a forgotten close() does not keep the test process alive;
// - a process 'exit' hook (and SIGINT/SIGTERM/SIGHUP) SIGKILLs every child still registered;
// - on Linux the child runs under `setpriv --pdeathsig SIGKILL`, so even a SIGKILLed test process
//   takes its servers with it. (The death signal follows the spawning thread: spawn from the main
//   thread, which is what node:test does.)
// Output goes straight to a log file descriptor: no pipes to drain, nothing keeping the loop alive.
import { type ChildProcess, spawn } from 'node:child_process';
import { accessSync, closeSync, constants, openSync, readFileSync } from 'node:fs';

export interface ProcessExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

const live = new Set<ChildProcess>();
const exitCleanups = new Set<() => void>();
let hooksInstalled = false;

function killAllNow(): void {
  for (const child of live) child.kill('SIGKILL');
  live.clear();
  for (const cleanup of exitCleanups) {
    try {
      cleanup();
    } catch {
      // best effort: the process is exiting
    }
  }
  exitCleanups.clear();
}

/**
 * Runs `cleanup` (synchronously) if the process exits before `unregister` is called: for temp
 * dirs of a control plane nobody closed. Children are killed first.
 */
export function onExitCleanup(cleanup: () => void): () => void {
  installExitHooks();
  exitCleanups.add(cleanup);
  return () => {
    exitCleanups.delete(cleanup);
  };
}

function installExitHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on('exit', killAllNow);
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = (): void => {
      killAllNow();
      // Keep the default behaviour (terminate) unless someone else handles the signal too.
      if (process.listenerCount(signal) === 1) {
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      }
    };
    process.on(signal, onSignal);
  }
}

const SETPRIV = '/usr/bin/setpriv';
const hasSetpriv = ((): boolean => {
  if (process.platform !== 'linux') return false;
  try {
    accessSync(SETPRIV, constants.X_OK);
    return true;
  } catch {
    return false;
  }
})();

export class ManagedProcess {
  readonly name: string;
  readonly logPath: string;
  readonly pid: number | undefined;
  /** Settles once, when the process has exited (never rejects). */
  readonly exited: Promise<ProcessExit>;
  #child: ChildProcess;
  #exit: ProcessExit | undefined;

  constructor(name: string, command: string, args: readonly string[], logPath: string) {
    installExitHooks();
    this.name = name;
    this.logPath = logPath;
    const fd = openSync(logPath, 'a');
    try {
      const [file, argv] = hasSetpriv ? [SETPRIV, ['--pdeathsig', 'SIGKILL', '--', command, ...args]] : [command, args];
      this.#child = spawn(file, argv, { stdio: ['ignore', fd, fd], detached: false });
    } finally {
      closeSync(fd); // the child holds its own duplicate
    }
    this.pid = this.#child.pid;
    live.add(this.#child);
    this.exited = new Promise<ProcessExit>((resolve) => {
      const done = (exit: ProcessExit): void => {
        if (this.#exit !== undefined) return;
        this.#exit = exit;
        live.delete(this.#child);
        resolve(exit);
      };
      this.#child.once('exit', (code, signal) => {
        done({ code, signal });
      });
      // spawn failure (ENOENT, EACCES): 'exit' may never come.
      this.#child.once('error', () => {
        done({ code: null, signal: null });
      });
    });
    this.#child.unref();
  }

  get running(): boolean {
    return this.#exit === undefined;
  }

  get exitStatus(): ProcessExit | undefined {
    return this.#exit;
  }

  /** Keeps the event loop alive while a caller waits on this process (start-up, stop). */
  hold(): () => void {
    this.#child.ref();
    return () => {
      this.#child.unref();
    };
  }

  /** `signal`, then SIGKILL if it has not exited after `graceMs`; resolves once it has exited. */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 30_000): Promise<ProcessExit> {
    if (this.#exit !== undefined) return this.#exit;
    const release = this.hold();
    this.#child.kill(signal);
    const timer = setTimeout(() => this.#child.kill('SIGKILL'), graceMs);
    try {
      return await this.exited;
    } finally {
      clearTimeout(timer);
      release();
    }
  }

  /** The last `lines` lines of the log (at most the last 64 KiB are read). */
  logTail(lines = 30): string {
    return tailOfFile(this.logPath, lines);
  }
}

export function describeExit(exit: ProcessExit): string {
  return exit.signal !== null
    ? `killed by ${exit.signal}`
    : exit.code === null
      ? 'failed to spawn'
      : `exited with code ${exit.code}`;
}

export function tailOfFile(path: string, lines: number): string {
  let text: string;
  try {
    const buffer = readFileSync(path);
    text = buffer.subarray(Math.max(0, buffer.length - 65_536)).toString('utf8');
  } catch {
    return '(no log)';
  }
  const all = text.trimEnd().split('\n');
  return all.slice(-lines).join('\n');
}
