// The one error the GitOps migration throws. It always names the file (and the line when known)
// so a human can fix the manifest and rerun; nothing is planned when it is thrown.

export class MigrationError extends Error {
  readonly file: string;
  readonly line: number | undefined;
  readonly reason: string;

  constructor(file: string, reason: string, line?: number) {
    super(line === undefined ? `${file}: ${reason}` : `${file}:${String(line)}: ${reason}`);
    this.name = 'MigrationError';
    this.file = file;
    this.line = line;
    this.reason = reason;
  }
}
