// git failures with one-line messages that name the command and the repository. Built only from
// redacted text: the token is passed to git through the environment and scrubbed from anything git
// prints before it reaches one of these.

/** A git command failed for a reason other than a lease. */
export class GitCommandError extends Error {
  override readonly name = 'GitCommandError';
  /** The git subcommand: `fetch`, `push`, `ls-remote`, `commit-tree`, … */
  readonly command: string;
  /** The repository URL, without credentials. */
  readonly repo: string;
  /** git's most telling line. */
  readonly reason: string;
  /** Everything git printed, redacted: for classifying failures, not for users. */
  readonly details: string;

  constructor(command: string, repo: string, reason: string, details: string = reason) {
    super(`git ${command} ${repo}: ${reason}`);
    this.command = command;
    this.repo = repo;
    this.reason = reason;
    this.details = details;
  }
}

/**
 * `--force-with-lease` refused the push: the branch is not where the caller last left it, so
 * someone else pushed (docs/decisions.md D5: a human commit stops automated pushes).
 */
export class LeaseRejectedError extends Error {
  override readonly name = 'LeaseRejectedError';
  readonly repo: string;
  readonly branch: string;
  /** The head the caller expected; undefined meant "the branch must not exist". */
  readonly expectedSha: string | undefined;

  constructor(repo: string, branch: string, expectedSha: string | undefined) {
    const expected = expectedSha === undefined ? 'to be absent' : `at ${expectedSha}`;
    super(`git push ${repo}: branch ${branch} was expected ${expected} but has moved (lease rejected)`);
    this.repo = repo;
    this.branch = branch;
    this.expectedSha = expectedSha;
  }
}

/** A file handed to commitOnBase cannot be committed as given. */
export class InvalidChangeError extends Error {
  override readonly name = 'InvalidChangeError';
  readonly path: string;
  readonly reason: string;

  constructor(path: string, reason: string) {
    super(`${JSON.stringify(path)}: ${reason}`);
    this.path = path;
    this.reason = reason;
  }
}
