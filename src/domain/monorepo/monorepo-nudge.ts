// What a `direct` nudge does in a monorepo at run time (docs/decisions.md D11, N33, N36). Pure: the
// executor reads the `.tekton/` files and the pull request's changed paths, and writes what this
// module decides.
//
// - The synthetic commit: the files a triggering pull request changed that the nudged
//   component's pull-request PipelineRun reacts to (its `"<glob>".pathChanged()`; no PipelineRun
//   or no expression: every file; not understood: every file, and said so) are copied into the
//   nudge PR as its first commit, so the nudged component is built with them.
// - Nudge loops: the files the digest commit changes that match the nudging component's own push
//   `pathChanged()` (or all of them when its expression is not understood) are a warning, told as
//   an Event and once per PR as a comment. The PR body carries a hidden stamp per warning
//   commented, so a later fire finds it was said.
import { fingerprint } from '../changegroup/fingerprint.ts';
import { NudgeInputError } from '../nudge/errors.ts';
import { checkGitAuthor } from '../nudge/pull-request-text.ts';
import { checkName } from '../nudge/validated-pull-request.ts';
import { describeNudgeLoop, detectNudgeLoop } from './nudge-loop.ts';
import { pathChangedMatches } from './path-changed.ts';
import type { TektonPipelineRun } from './tekton-pipelineruns.ts';

/** A path a pull request changed since its merge base. */
export interface ChangedFile {
  readonly path: string;
  readonly deleted: boolean;
}

export interface SyntheticCopy {
  /** The changed paths to copy (deleted ones are deleted), in path order. */
  readonly files: readonly ChangedFile[];
  /** The nudged component's pull-request PipelineRuns whose expression was not understood. */
  readonly notUnderstood: readonly TektonPipelineRun[];
}

/**
 * Which of `changed` the nudged component's pull-request PipelineRuns react to: any of them
 * matching is enough, as any one of them would build the component. None found reads as a missing
 * expression, `"*".pathChanged()`.
 */
export function syntheticCopy(
  changed: readonly ChangedFile[],
  pullRequestRuns: readonly TektonPipelineRun[],
): SyntheticCopy {
  const notUnderstood = pullRequestRuns.filter((run) => !run.pathChanged.understood);
  const files = changed.filter(
    (file) =>
      pullRequestRuns.length === 0 || pullRequestRuns.some((run) => pathChangedMatches(run.pathChanged, file.path)),
  );
  return { files: [...files].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)), notUnderstood };
}

const FULL_SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
// A pull request's web page, as the pre-merge block accepts it.
const PULL_REQUEST_URL = /^(?:https?|file):\/\/[^\s<>()[\]`'"\\]+$/;
/** A commit message lists at most this many paths; the commit itself holds them all. */
const LISTED_PATHS = 100;

export interface SyntheticCommitInput {
  /** The nudging component whose pull request is copied. */
  readonly component: string;
  readonly number: number;
  readonly url: string;
  /** The head commit copied from. */
  readonly headSha: string;
  readonly nudged: string;
  readonly files: readonly ChangedFile[];
  /** githubAppGitAuthor or scmTokenGitAuthor. */
  readonly gitAuthor: string;
}

/** The synthetic commit's message: what it copies, from where, and why. */
export function syntheticCommitMessage(input: SyntheticCommitInput): string {
  checkName('component', input.component, true);
  checkName('nudged', input.nudged, true);
  checkGitAuthor(input.gitAuthor);
  if (!Number.isSafeInteger(input.number) || input.number <= 0) {
    throw new NudgeInputError('number', 'is not a pull request number');
  }
  if (!PULL_REQUEST_URL.test(input.url)) throw new NudgeInputError('url', 'is not a quotable web address');
  if (!FULL_SHA.test(input.headSha)) throw new NudgeInputError('headSha', 'is not a full commit sha');
  if (input.files.length === 0) throw new NudgeInputError('files', 'is empty');
  const listed = input.files.slice(0, LISTED_PATHS).map((file) => {
    if (/[\n\r]/.test(file.path)) throw new NudgeInputError('files', 'has a path with a line break');
    return `- ${file.path}${file.deleted ? ' (deleted)' : ''}`;
  });
  const more = input.files.length - listed.length;
  return [
    `Copy the changes of ${input.component} #${String(input.number)} that ${input.nudged} builds from`,
    '',
    `${input.url} at ${input.headSha} changed these files, which the pathChanged() of ${input.nudged}'s pull-request PipelineRun selects; the nudge pull request carries them so that ${input.nudged} is built with them:`,
    ...listed,
    ...(more > 0 ? [`- and ${String(more)} more`] : []),
    '',
    `Signed-off-by: ${input.gitAuthor}`,
  ].join('\n');
}

/** One nudge-loop warning: the Event's message, the PR comment, and the stamp that says it was commented. */
export interface NudgeLoopWarning {
  readonly fingerprint: string;
  readonly message: string;
  readonly comment: string;
}

/**
 * The warnings for a nudge PR changing `changedPaths` in the repository the nudging component
 * `component` is built from, one per push PipelineRun of it that the paths start.
 */
export function nudgeLoopWarnings(
  component: string,
  nudged: string,
  pushRuns: readonly TektonPipelineRun[],
  changedPaths: readonly string[],
): NudgeLoopWarning[] {
  return pushRuns.flatMap((run) => {
    const verdict = detectNudgeLoop(changedPaths, run.pathChanged);
    if (verdict.kind === 'none') return [];
    const pipelineRun = `${component}'s push PipelineRun ${run.file}${run.name === '' ? '' : ` (${run.name})`}`;
    const message = `${component} nudges ${nudged} in the same repository: ${describeNudgeLoop(verdict, pipelineRun)}`;
    const comment = [
      `**Nudge loop.** Merging this pull request ${verdict.kind === 'loop' ? 'rebuilds' : 'may rebuild'} \`${component}\`, which nudges \`${nudged}\` again:`,
      '',
      `> ${message}`,
      '',
      `Narrow the \`pathChanged()\` expressions in \`${run.file}\` (pipelinesascode.tekton.dev/on-cel-expression) so that the files nudges change do not start ${component}'s push build.`,
    ].join('\n');
    return [{ fingerprint: fingerprint(['nudge-loop', component, run.file, verdict]), message, comment }];
  });
}

const STAMP = /<!-- nudger-nudge-loop warned=([0-9a-f]{16}) -->/g;
const FINGERPRINT = /^[0-9a-f]{16}$/;

/** The fingerprints of the nudge-loop warnings a PR body says were commented. */
export function nudgeLoopStampsOf(body: string | undefined): Set<string> {
  return new Set([...(body ?? '').matchAll(STAMP)].map((match) => match[1] ?? ''));
}

/** The body with a hidden stamp for each fingerprint it does not carry yet, at its end. */
export function withNudgeLoopStamps(body: string, fingerprints: readonly string[]): string {
  const carried = nudgeLoopStampsOf(body);
  const fresh = [...new Set(fingerprints)].filter((fp) => !carried.has(fp));
  for (const fp of fresh) if (!FINGERPRINT.test(fp)) throw new NudgeInputError('fingerprint', 'is not 16 hex digits');
  return fresh.length === 0
    ? body
    : `${body}\n\n${fresh.map((fp) => `<!-- nudger-nudge-loop warned=${fp} -->`).join('\n')}`;
}
