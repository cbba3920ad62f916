// Limits on what one run reads: the bytes of all inputs together (the per-file limit alone lets a
// directory of many large files exhaust memory), and the kinds of file it opens at all.
import type { Stats } from 'node:fs';
import { InputError } from './errors.ts';

const MIB = 1024 * 1024;
/** Several times any real GitOps repository's manifests; peak memory stays in the low gigabytes. */
export const DEFAULT_MAX_TOTAL_BYTES = 256 * MIB;

/** The bytes a run may still read; shared by every input of the run, stdin included. */
export class InputBudget {
  readonly #limit: number;
  #used = 0;

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** Counts `bytes` of `path` against the budget; throws naming `path` when they do not fit. */
  take(path: string, bytes: number): void {
    this.#used += bytes;
    if (this.#used > this.#limit) {
      throw new InputError(
        path,
        `reading it takes the inputs together past the ${formatLimit(this.#limit)} limit of one run ` +
          '(--max-total-size): name fewer paths or raise the limit',
      );
    }
  }
}

function formatLimit(bytes: number): string {
  return bytes % MIB === 0 ? `${String(bytes / MIB)} MiB` : `${String(bytes)}-byte`;
}

/**
 * An already-open descriptor of this process (`<(kubectl kustomize .)` reaches nudger as
 * `/dev/fd/63`): a pipe whose writer is the shell's child, so reading it cannot wait for ever.
 */
const OPEN_DESCRIPTOR = /^\/(?:dev\/fd|proc\/self\/fd)\/\d+$|^\/dev\/stdin$/;

/**
 * Why a named path that is neither a regular file nor a directory is refused: opening a FIFO
 * blocks until some writer appears (for ever, usually), and devices and sockets are not manifests.
 * Undefined when it may be read.
 */
export function refusedSpecialFile(path: string, stats: Stats): string | undefined {
  if (stats.isFile() || stats.isDirectory()) return undefined;
  if (stats.isFIFO() && OPEN_DESCRIPTOR.test(path)) return undefined;
  return `is ${specialKind(stats)}, not a regular file or directory: nudger reads files, directories, or '-' for stdin`;
}

export function specialKind(stats: Stats): string {
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}
