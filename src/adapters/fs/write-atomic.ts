// Replace a file so that readers (and a crash) see either the old text or the new, never half.
import { randomBytes } from 'node:crypto';
import { chmod, open, readdir, realpath, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { WriteError, reasonOf } from './errors.ts';

/** New contents written and flushed beside their target, waiting to be renamed over it. */
export interface StagedFile {
  /** The path as the caller named it, for messages. */
  readonly path: string;
  /** The file actually replaced: a symlink's target, so the link keeps pointing at it. */
  readonly target: string;
  readonly temp: string;
}

/**
 * Writes `text` to a temporary file beside `path`, flushes it to disk, then renames it over
 * `path`: rename is atomic within a directory. The file keeps its permission bits; a symlink keeps
 * pointing at the file it named, which is the one replaced. On failure the temporary file is
 * removed and `path` is untouched.
 */
export async function writeFileAtomic(path: string, text: string): Promise<void> {
  const staged = await stageFile(path, text);
  await commitStaged(staged);
}

/** The first half of an atomic write. Throws WriteError, leaving nothing behind. */
export async function stageFile(path: string, text: string): Promise<StagedFile> {
  const target = await realpath(path).catch(() => path); // a new file has no real path yet
  const existingMode = await stat(target).then(
    (stats) => stats.mode & 0o7777,
    () => undefined,
  );
  const temp = join(dirname(target), tempFileName(basename(target)));
  let created = false;
  try {
    {
      await using handle = await open(temp, 'wx', existingMode ?? 0o666);
      created = true;
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    }
    // open()'s mode is filtered through the umask; an existing file's bits are restored exactly.
    if (existingMode !== undefined) await chmod(temp, existingMode);
  } catch (error) {
    if (created) await unlink(temp).catch(() => undefined);
    throw new WriteError(path, reasonOf(error));
  }
  return { path, target, temp };
}

/** The second half: the rename. On failure the temporary file is removed. */
export async function commitStaged(staged: StagedFile): Promise<void> {
  try {
    await rename(staged.temp, staged.target);
  } catch (error) {
    await discardStaged(staged);
    throw new WriteError(staged.path, reasonOf(error));
  }
  await syncDirectory(dirname(staged.target));
}

export async function discardStaged(staged: StagedFile): Promise<void> {
  await unlink(staged.temp).catch(() => undefined);
}

// Temporary files are named `.<file>.nudger-<pid>-<12 hex>.tmp`: hidden, recognisably nudger's, and
// saying which process wrote them, so that a later run can tell a killed run's leftovers (whose
// process is gone) from a concurrent run's files in flight. Older versions wrote no pid.
const TEMP_FILE = /^\..+\.nudger-(?:(\d+)-)?[0-9a-f]{12}\.tmp$/;

function tempFileName(target: string): string {
  return `.${target}.nudger-${String(process.pid)}-${randomBytes(6).toString('hex')}.tmp`;
}

/** Whether `name` (a base name) is one of nudger's temporary files. */
export function isTempFileName(name: string): boolean {
  return TEMP_FILE.test(name);
}

function processIsAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the temporary files a killed nudger left in these directories: those of its own naming
 * whose writing process is gone (or unknown, for the older names). A missing or unreadable
 * directory is skipped: this is housekeeping, never a reason to fail. Returns the paths removed.
 */
export async function removeStaleTempFiles(directories: Iterable<string>): Promise<string[]> {
  const removed: string[] = [];
  for (const directory of new Set(directories)) {
    const names = await readdir(directory).catch(() => [] as string[]);
    for (const name of names) {
      const match = TEMP_FILE.exec(name);
      if (match === null) continue;
      const pid = match[1] === undefined ? undefined : Number(match[1]);
      if (pid !== undefined && processIsAlive(pid)) continue;
      const path = join(directory, name);
      await unlink(path).then(
        () => removed.push(path),
        () => undefined,
      );
    }
  }
  return removed;
}

/** The directory a write of `path` puts its temporary file in (a symlink's target's). */
export async function tempDirectoryOf(path: string): Promise<string> {
  return dirname(await realpath(path).catch(() => path));
}

/** Makes the rename itself durable. Best effort: some platforms cannot open a directory. */
async function syncDirectory(directory: string): Promise<void> {
  try {
    await using handle = await open(directory, 'r');
    await handle.sync();
  } catch {
    // The data is already on disk; only the directory entry's durability is at stake.
  }
}
