// Errors of the digest rewriter; each names the input at fault so the controller can put it in a
// condition message without a stack trace.

export class InvalidFileMatchError extends Error {
  readonly pattern: string;
  constructor(pattern: string, reason: string) {
    super(`fileMatch pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${reason}`);
    this.name = 'InvalidFileMatchError';
    this.pattern = pattern;
  }
}

export class InvalidDigestUpdateError extends Error {
  /** e.g. `updates[2].digest` */
  readonly field: string;
  constructor(field: string, message: string) {
    super(`digest update ${field}: ${message}`);
    this.name = 'InvalidDigestUpdateError';
    this.field = field;
  }
}
