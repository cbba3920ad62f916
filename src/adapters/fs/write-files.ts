// Writes a set of files so that a failure while writing leaves every file as it was: all new
// contents are staged (written and flushed beside their targets) before the first rename. Only a
// rename failing part-way (rare: the data is already on disk) can leave some files replaced, and
// the error then says how many.
//
// Files are replaced in the order given: a caller whose files depend on each other (migrate: the
// NudgeConfig that gains an edge before the Component that loses it) orders them so that a crash
// between two renames loses nothing. Temporary files a killed earlier run left in the directories
// written are removed first.
import { WriteError } from './errors.ts';
import {
  commitStaged,
  discardStaged,
  removeStaleTempFiles,
  stageFile,
  tempDirectoryOf,
  type StagedFile,
} from './write-atomic.ts';

export { WriteError } from './errors.ts';

export interface FileWrite {
  readonly path: string;
  readonly text: string;
}

export async function writeFilesAtomically(writes: readonly FileWrite[]): Promise<void> {
  await removeStaleTempFiles(await Promise.all(writes.map(({ path }) => tempDirectoryOf(path))));
  const crash = crashPoint();
  const staged: StagedFile[] = [];
  try {
    for (const { path, text } of writes) {
      staged.push(await stageFile(path, text));
      crash();
    }
  } catch (error) {
    await Promise.all(staged.map(discardStaged));
    throw error;
  }
  for (const [index, file] of staged.entries()) {
    try {
      await commitStaged(file);
      crash();
    } catch (error) {
      await Promise.all(staged.slice(index + 1).map(discardStaged));
      if (index === 0 || !(error instanceof WriteError)) throw error;
      throw new WriteError(file.path, `${error.reason} (${String(index)} earlier file(s) were already replaced)`);
    }
  }
}

/**
 * A test hook, inert unless NUDGER_TEST_CRASH_AFTER_STEPS is set to a positive integer k: then the
 * process kills itself with SIGKILL (no cleanup, no exit handlers: a real crash) right after the
 * k-th step, a step being one file staged or one file renamed into place. The crash-safety
 * property test (test/cli/migrate-crash.test.ts) uses it to stop `migrate --write` at every point.
 */
function crashPoint(): () => void {
  const after = Number(process.env.NUDGER_TEST_CRASH_AFTER_STEPS ?? '');
  if (!Number.isInteger(after) || after <= 0) return () => undefined;
  let steps = 0;
  return () => {
    steps += 1;
    if (steps === after) process.kill(process.pid, 'SIGKILL');
  };
}
