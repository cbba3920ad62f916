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

/** One reason the migration refuses, at the file (and line) a human must look at. */
export interface RefusalProblem {
  readonly file: string;
  readonly line?: number;
  readonly message: string;
}

/**
 * The input is well-formed but migrating it would lose or mix edges (a Component whose namespace
 * cannot be determined, edges added by a kustomize patch, copies of a Component that disagree).
 * Nothing is planned; the CLI prints every problem and exits 1.
 */
export class UnsafeMigrationError extends Error {
  readonly problems: readonly RefusalProblem[];

  constructor(summary: string, problems: readonly RefusalProblem[]) {
    super(`${summary}: ${problems.map(formatProblem).join('; ')}`);
    this.name = 'UnsafeMigrationError';
    this.problems = problems;
  }
}

export function formatProblem(problem: RefusalProblem): string {
  const at = problem.line === undefined ? problem.file : `${problem.file}:${String(problem.line)}`;
  return `${at}: ${problem.message}`;
}
