// The one error a scenario file can cause. Like ManifestSyntaxError its message is one line that
// starts with `file:line:column`, so editors and CI annotations jump to the spot, and then names
// the field, so a reader of a long steps list knows which item is meant.

export class ScenarioError extends Error {
  override readonly name = 'ScenarioError';
  readonly file: string;
  /** 1-based; absent when the problem has no place in the text (e.g. an empty file). */
  readonly line: number | undefined;
  /** 1-based. */
  readonly column: number | undefined;
  /** The field path, e.g. `steps[3].build`; `(scenario)` for the document as a whole. */
  readonly field: string;
  readonly reason: string;

  constructor(
    at: { readonly file: string; readonly line?: number | undefined; readonly column?: number | undefined },
    field: string,
    reason: string,
    options?: ErrorOptions,
  ) {
    const position = at.line === undefined ? at.file : `${at.file}:${String(at.line)}:${String(at.column ?? 1)}`;
    super(`${position}: ${field}: ${reason}`, options);
    this.file = at.file;
    this.line = at.line;
    this.column = at.column;
    this.field = field;
    this.reason = reason;
  }
}
