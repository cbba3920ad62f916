// The files one nudge changes (docs/decisions.md D6): every file of the base that the fileMatch in
// force selects (anchored patterns, compiled as the ChangeGroup compiles them), with each digest
// reference to the build's repository or one of its distribution repositories pointed at the
// build's digest. Tag-only references are never touched; a repository that never matches inside a
// longer name is the rewriter's anchoring.
import type { BaseCheckout, FileText } from '../../../adapters/git/workspace.ts';
import {
  compileFileMatch,
  imageRepository,
  pathMatches,
  rewriteDigests,
} from '../../../domain/digest-rewrite/index.ts';
import type { NudgeRequest } from '../executor.ts';

export interface NudgeChanges {
  /** New texts of the changed files, in path order. */
  readonly files: readonly FileText[];
  /** The digest the first rewritten reference pinned before: the "Change" column's from. */
  readonly currentDigest: string | undefined;
  /** Some selected file references one of the repositories by digest (current or not). */
  readonly referenced: boolean;
}

/** The build repository first, then the distribution repositories, each once. */
export function nudgedRepositories(request: Pick<NudgeRequest, 'build' | 'distributionRepositories'>): string[] {
  return [...new Set([imageRepository(request.build.pullSpec), ...request.distributionRepositories])];
}

export async function nudgeChanges(
  checkout: Pick<BaseCheckout, 'readFiles'>,
  request: Pick<NudgeRequest, 'build' | 'distributionRepositories' | 'fileMatch'>,
): Promise<NudgeChanges> {
  const matchers = compileFileMatch(request.fileMatch);
  const files = await checkout.readFiles((path) => pathMatches(path, matchers));
  const repositories = nudgedRepositories(request);
  const result = rewriteDigests(
    files,
    repositories.map((repository) => ({ repository, digest: request.build.digest })),
    request.fileMatch,
  );
  const first = result.changes[0]?.replacements[0]?.from;
  return {
    files: result.changes.map((change) => ({ path: change.path, text: change.after })),
    currentDigest: first === undefined ? undefined : first.slice(first.lastIndexOf('@') + 1),
    referenced: result.unreferenced.length < repositories.length,
  };
}
