// Writes a set of files so that a failure leaves every file as it was: all new contents are staged
// as temporary files beside their targets (and fsynced) before the first rename. A rename within a
// directory is atomic, so no reader ever sees a half-written file.
import { randomBytes } from 'node:crypto';
import { open, rename, rm, stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

export interface FileWrite {
  readonly path: string;
  readonly text: string;
}

export class WriteError extends Error {
  override readonly name = 'WriteError';
  readonly path: string;
  constructor(path: string, reason: string, options?: ErrorOptions) {
    super(`${path}: cannot write: ${reason}`, options);
    this.path = path;
  }
}

export async function writeFilesAtomically(writes: readonly FileWrite[]): Promise<void> {
  const staged: { temp: string; target: string }[] = [];
  try {
    for (const { path, text } of writes) {
      const temp = join(dirname(path), `.${basename(path)}.nudger-${randomBytes(6).toString('hex')}.tmp`);
      staged.push({ temp, target: path });
      await stage(temp, path, text);
    }
  } catch (error) {
    await Promise.all(staged.map(({ temp }) => rm(temp, { force: true })));
    throw error;
  }
  for (const { temp, target } of staged) await rename(temp, target);
}

async function stage(temp: string, target: string, text: string): Promise<void> {
  // Keep the target's permissions: a script file must stay executable after a rewrite.
  const mode = await stat(target).then(
    (s) => s.mode & 0o7777,
    () => 0o644,
  );
  let handle;
  try {
    handle = await open(temp, 'wx', mode);
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } catch (error) {
    throw new WriteError(target, describe(error), { cause: error });
  } finally {
    await handle?.close();
  }
}

function describe(error: unknown): string {
  if (error instanceof Error && 'code' in error) {
    const code = String(error.code);
    if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
    if (code === 'ENOENT') return 'directory does not exist';
    if (code === 'ENOSPC') return 'no space left on device';
    if (code === 'EROFS') return 'read-only file system';
    return code;
  }
  return 'unknown error';
}
