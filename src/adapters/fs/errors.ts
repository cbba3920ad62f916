// File-system errors with one-line messages that name the path, for the CLI to print as they are.

/** An input path cannot be read as manifest text. */
export class InputError extends Error {
  override readonly name = 'InputError';
  /** The path as the user gave it (or as found under a directory they gave); `-` is stdin. */
  readonly path: string;
  readonly reason: string;

  constructor(path: string, reason: string) {
    super(`${displayPath(path)}: ${reason}`);
    this.path = path;
    this.reason = reason;
  }
}

/** A file could not be written; the original, if any, is left as it was. */
export class WriteError extends Error {
  override readonly name = 'WriteError';
  readonly path: string;
  readonly reason: string;

  constructor(path: string, reason: string) {
    super(`${path}: cannot write: ${reason}`);
    this.path = path;
    this.reason = reason;
  }
}

export const STDIN_PATH = '-';

export function displayPath(path: string): string {
  return path === STDIN_PATH ? 'stdin' : path;
}

/** A human reason for a Node file-system error: its errno text without the syscall noise. */
export function reasonOf(error: unknown): string {
  const code = typeof error === 'object' && error !== null ? (error as { code?: unknown }).code : undefined;
  switch (code) {
    case 'ENOENT':
      return 'no such file or directory';
    case 'EACCES':
    case 'EPERM':
      return 'permission denied';
    case 'EISDIR':
      return 'is a directory';
    case 'ENOTDIR':
      return 'not a directory';
    case 'ELOOP':
      return 'too many levels of symbolic links';
    case 'EMFILE':
    case 'ENFILE':
      return 'too many open files';
    case 'ENOSPC':
      return 'no space left on device';
    case 'EROFS':
      return 'read-only file system';
    default:
      break;
  }
  const message = error instanceof Error ? error.message : String(error);
  return (message.split('\n', 1)[0] ?? message).replace(/^[A-Z]+: /, '');
}
