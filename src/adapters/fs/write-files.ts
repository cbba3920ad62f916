// Writes a set of files so that a failure while writing leaves every file as it was: all new
// contents are staged (written and flushed beside their targets) before the first rename. Only a
// rename failing part-way (rare: the data is already on disk) can leave some files replaced, and
// the error then says how many.
import { WriteError } from './errors.ts';
import { commitStaged, discardStaged, stageFile, type StagedFile } from './write-atomic.ts';

export { WriteError } from './errors.ts';

export interface FileWrite {
  readonly path: string;
  readonly text: string;
}

export async function writeFilesAtomically(writes: readonly FileWrite[]): Promise<void> {
  const staged: StagedFile[] = [];
  try {
    for (const { path, text } of writes) staged.push(await stageFile(path, text));
  } catch (error) {
    await Promise.all(staged.map(discardStaged));
    throw error;
  }
  for (const [index, file] of staged.entries()) {
    try {
      await commitStaged(file);
    } catch (error) {
      await Promise.all(staged.slice(index + 1).map(discardStaged));
      if (index === 0 || !(error instanceof WriteError)) throw error;
      throw new WriteError(file.path, `${error.reason} (${String(index)} earlier file(s) were already replaced)`);
    }
  }
}
