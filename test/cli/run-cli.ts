// Runs the CLI in process with captured streams, or as a real child process of the built binary.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { run } from '../../src/cli/main.ts';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A stream that keeps what is written to it. */
export function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

export async function runCli(args: readonly string[], stdin = ''): Promise<CliResult> {
  const out = capture();
  const err = capture();
  const code = await run(args, {
    stdout: out.stream,
    stderr: err.stream,
    stdin: Readable.from([stdin]),
    cwd: process.cwd(),
  });
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: out.text(), stderr: err.text() };
}

export const repoRoot = join(import.meta.dirname, '..', '..');
/** What package.json `bin` names: the Node.js version check, then the CLI. */
export const builtCli = join(repoRoot, 'dist', 'cli', 'bin.js');

/** The built `nudger` binary as a user runs it. */
export function spawnCli(args: readonly string[], options: { stdin?: string; cwd?: string } = {}): CliResult {
  const result = spawnSync(process.execPath, [builtCli, ...args], {
    input: options.stdin ?? '',
    encoding: 'utf8',
    cwd: options.cwd ?? repoRoot,
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/** A temporary tree of files; returns its root and a cleanup function. */
export function tempTree(files: Record<string, string>): { root: string; cleanup: () => void } {
  const root = mkdtempSync(join(tmpdir(), 'nudger-cli-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return {
    root,
    cleanup: () => {
      rmSync(root, { recursive: true, force: true });
    },
  };
}
