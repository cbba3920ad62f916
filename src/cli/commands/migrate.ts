import { FILE_HEADERS_ONLY, createTwoFilesPatch } from 'diff';
import { readManifestFiles } from '../../adapters/fs/read-inputs.ts';
import { writeFilesAtomically } from '../../adapters/fs/write-files.ts';
import {
  type DroppedEdge,
  type FileChange,
  type MigrationResult,
  MigrationRefusedError,
  UnsafeMigrationError,
  commitOrder,
  planMigration,
} from '../../domain/migrate.ts';
import { formatProblem } from '../../domain/migrate-error.ts';
import { EXIT_FINDINGS, EXIT_OK } from '../errors.ts';
import { editsPatchChunks } from '../format/edit-patch.ts';
import { terminalSafeLines } from '../format/terminal-text.ts';
import { type CliIo, type OutputFormat, writeJson, writeLine } from '../io.ts';
import { type LoadOptions, readOptions } from '../load.ts';

export interface MigrateOptions extends LoadOptions {
  readonly write: boolean;
  readonly output: OutputFormat;
  /** Drop the edges nudger's validation rejects (unknown names, self-nudges) instead of refusing. */
  readonly dropInvalid?: boolean;
}

/** Without --write this is a dry run: it prints a unified diff and touches nothing. */
export async function migrateCommand(paths: readonly string[], options: MigrateOptions, io: CliIo): Promise<number> {
  const files = await readManifestFiles(paths.length === 0 ? ['.'] : paths, readOptions(options, io));
  let result: MigrationResult;
  try {
    result = planMigration(files, { dropInvalid: options.dropInvalid === true });
  } catch (error) {
    if (!(error instanceof UnsafeMigrationError)) throw error;
    reportUnsafe(error, options.output, io);
    return EXIT_FINDINGS;
  }
  // In commit order, so that a crash between two renames loses no edge (a rerun completes it).
  if (options.write)
    await writeFilesAtomically(commitOrder(result.changes).map(({ path, after }) => ({ path, text: after })));
  if (options.output === 'json') {
    writeJson(io.stdout, {
      edges: result.edges,
      nudgeConfigs: result.nudgeConfigs,
      componentsUpdated: result.componentsUpdated,
      written: options.write,
      dropped: result.dropped,
      notes: result.notes,
    });
  } else {
    if (!options.write) writeDiff(result, io);
    for (const edge of result.dropped) writeLine(io.stderr, droppedLine(edge, options.write));
    for (const note of result.notes) writeLine(io.stderr, `note: ${note}`);
    writeLine(io.stderr, migrationSummary(result, options.write));
  }
  return EXIT_OK;
}

/** Every reason, one per line on stderr (and as `refused` in JSON); exit 1, nothing written. */
function reportUnsafe(error: UnsafeMigrationError, output: OutputFormat, io: CliIo): void {
  if (output === 'json') writeJson(io.stdout, { refused: error.problems, written: false });
  writeLine(io.stderr, `nudger: refusing to migrate; nothing was written:`);
  for (const problem of error.problems) writeLine(io.stderr, `  ${formatProblem(problem)}`);
  if (error instanceof MigrationRefusedError) writeLine(io.stderr, error.advice);
}

function droppedLine(edge: DroppedEdge, written: boolean): string {
  const where = edge.sources.map((s) => `${s.line === undefined ? s.file : `${s.file}:${String(s.line)}`} ${s.field}`);
  const ns = edge.namespace === '' ? '' : `${edge.namespace}: `;
  return `${written ? 'dropped' : 'would drop'} (--drop-invalid) ${ns}${edge.from} -> ${edge.to} [${edge.rule}] declared at ${where.join(', ')}: ${edge.reason}`;
}

/**
 * The dry run's unified diff, safe on a terminal (docs/cli.md). jsdiff C-quotes a file name that
 * holds anything but printable ASCII, as git does (`"a/x\033[31m.yaml"`), so a header is one
 * line that `git apply` and `patch` still read. In the lines, the files' newlines, tabs and CRLF
 * line ends stay, so an ordinary file's diff applies as it is; any other control character is
 * written as a visible escape, so a hostile file can put neither a terminal escape nor a line of
 * its own on screen (nor in a CI log).
 */
export function unifiedDiff(result: MigrationResult): string {
  return result.changes.flatMap((change) => [...patchChunks(change)]).join('');
}

/** unifiedDiff written in pieces of about 64 KiB: a large migration's diff is never held whole. */
function writeDiff(result: MigrationResult, io: CliIo): void {
  let pending = '';
  for (const change of result.changes) {
    for (const chunk of patchChunks(change)) {
      pending += chunk;
      if (pending.length < 65_536) continue;
      io.stdout.write(pending);
      pending = '';
    }
  }
  if (pending !== '') io.stdout.write(pending);
}

const PATCH_OPTIONS = { context: 3, headerOptions: FILE_HEADERS_ONLY };

/**
 * A file's patch in pieces of whole lines, escaped; from the migration's edits where it has them
 * (diffing two whole large texts takes hours).
 */
function* patchChunks(change: FileChange): Generator<string> {
  const after = diffPath('b', change.path);
  const chunks =
    change.before !== undefined && change.edits !== undefined
      ? editsPatchChunks(diffPath('a', change.path), after, change.before, change.edits, PATCH_OPTIONS)
      : [
          createTwoFilesPatch(
            change.before === undefined ? '/dev/null' : diffPath('a', change.path),
            after,
            change.before ?? '',
            change.after,
            undefined,
            undefined,
            PATCH_OPTIONS,
          ),
        ];
  for (const chunk of chunks) yield terminalSafeLines(chunk);
}

/** `a/tmp/x/y.yaml` for `/tmp/x/y.yaml` (not `a//tmp/...`), `a/x/y.yaml` for `x/y.yaml`. */
function diffPath(side: 'a' | 'b', path: string): string {
  return `${side}/${path.replace(/^\/+/, '')}`;
}

function migrationSummary(result: MigrationResult, written: boolean): string {
  if (result.changes.length === 0) return 'nothing to migrate: no build-nudges-ref or upstream NudgeConfig left';
  const verb = written ? 'migrated' : 'would migrate';
  const where = result.nudgeConfigs.map((c) => `${c.file} (${String(c.edges)} entries)`).join(', ');
  const tail = written ? '' : '; run again with --write to apply';
  return `${verb} ${String(result.edges)} edge(s) from ${String(result.componentsUpdated.length)} Component(s) into ${where}${tail}`;
}
