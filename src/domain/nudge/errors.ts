// The one error of the nudge text and config builders: an input that could break the text nudger
// writes (a commit, a pull request, a Renovate config). It names the field and why, never the value,
// because a value that fails these checks is exactly the one that must not reach a log or an Event.

export class NudgeInputError extends Error {
  /** e.g. `nudging`, `newDigest`, `repoAtShaLink`, `target.endpoint` */
  readonly field: string;
  readonly reason: string;
  constructor(field: string, reason: string) {
    super(`nudge input ${field}: ${reason}`);
    this.name = 'NudgeInputError';
    this.field = field;
    this.reason = reason;
  }
}
