// A local repository checkout for `nudger validate --repository` (docs/cli.md, docs/decisions.md
// N33): its `.tekton/` PipelineRuns and the text files a nudge could rewrite. Thin: the nudge-loop
// rule itself is pure (src/domain/monorepo/nudge-loop-check.ts).
import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { RepositoryCheckout } from '../../domain/monorepo/nudge-loop-check.ts';
import { compareStrings } from '../../domain/compare.ts';
import { InputError, reasonOf } from './errors.ts';
import type { InputBudget } from './input-limits.ts';
import { DEFAULT_MAX_FILE_BYTES } from './read-inputs.ts';

export interface CheckoutReadOptions {
  /** Larger files are left out (a nudge skips them too). Default 32 MiB. */
  readonly maxFileBytes?: number;
  /** Shared with the manifests' own reading, so one limit holds for the whole run. */
  readonly budget: InputBudget;
}

/** Git's own directory: never part of what a nudge changes. */
const SKIPPED = new Set(['.git']);

/**
 * Every regular text file under `root` (symlinks, special files, `.git/` and files with a NUL
 * byte left out), by `/`-separated path relative to it. `root` must hold a `.tekton/` directory.
 */
export async function readRepositoryCheckout(root: string, options: CheckoutReadOptions): Promise<RepositoryCheckout> {
  const limit = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  try {
    if (!(await stat(join(root, '.tekton'))).isDirectory()) throw new Error('.tekton is not a directory');
  } catch (error: unknown) {
    throw new InputError(
      root,
      `--repository needs a repository checkout with a .tekton/ directory (${reasonOf(error)})`,
    );
  }
  const files = new Map<string, string>();
  const walk = async (relative: string): Promise<void> => {
    const entries = await readdir(join(root, relative), { withFileTypes: true });
    entries.sort((a, b) => compareStrings(a.name, b.name));
    for (const entry of entries) {
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!SKIPPED.has(entry.name)) await walk(path);
        continue;
      }
      if (!entry.isFile()) continue;
      const full = join(root, path);
      if ((await stat(full)).size > limit) continue;
      const bytes = await readFile(full);
      options.budget.take(full, bytes.length);
      if (bytes.includes(0)) continue;
      files.set(path, new TextDecoder().decode(bytes));
    }
  };
  try {
    await walk('');
  } catch (error: unknown) {
    if (error instanceof InputError) throw error;
    throw new InputError(root, reasonOf(error));
  }
  return { name: root, files };
}
