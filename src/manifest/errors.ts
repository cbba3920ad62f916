// Errors raised while turning manifest text into the domain model. Messages are one line and
// start with `file:line:column` so editors and CI annotations can jump to the spot.

export type ManifestFormat = 'YAML' | 'JSON';

/** The text of a manifest file is not well-formed YAML (or JSON); nothing from the set is used. */
export class ManifestSyntaxError extends Error {
  override readonly name = 'ManifestSyntaxError';
  readonly file: string;
  /** 1-based. */
  readonly line: number;
  /** 1-based. */
  readonly column: number;
  readonly reason: string;
  readonly format: ManifestFormat;

  constructor(file: string, line: number, column: number, reason: string, format: ManifestFormat = 'YAML') {
    const oneLineReason = reason.replace(/\s*\n\s*/g, ' ').trim();
    super(`${file}:${String(line)}:${String(column)}: malformed ${format}: ${oneLineReason}`);
    this.file = file;
    this.line = line;
    this.column = column;
    this.reason = oneLineReason;
    this.format = format;
  }
}
