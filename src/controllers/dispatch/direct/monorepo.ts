// The `direct` executor in a monorepo (docs/decisions.md D11, N33, N36): the synthetic commit a
// pre-merge nudge PR starts with, copying what a triggering PR changed that the nudged component
// builds from, and the nudge-loop warning (an Event and one PR comment) when the files a nudge
// changes start the nudging component's own push build. The decisions are pure
// (src/domain/monorepo/monorepo-nudge.ts); this reads git and says what it found.
import { parseRepositoryUrl, type RepositoryRef } from '../../../adapters/forges/repository-url.ts';
import { GitCommandError } from '../../../adapters/git/errors.ts';
import type { BaseCheckout } from '../../../adapters/git/workspace.ts';
import {
  nudgeLoopStampsOf,
  nudgeLoopWarnings,
  syntheticCommitMessage,
  syntheticCopy,
  withNudgeLoopStamps,
  type NudgeLoopWarning,
} from '../../../domain/monorepo/monorepo-nudge.ts';
import {
  componentPipelineRuns,
  readTektonDirectory,
  type TektonDirectory,
} from '../../../domain/monorepo/tekton-pipelineruns.ts';
import { validatedCommitDate } from '../../../domain/nudge/validated-pull-request.ts';
import type { ExecutorNotice, PreMergeTrigger } from '../executor.ts';
import type { DirectTarget } from './flow.ts';

export const MONOREPO_NOTICE_REASONS = {
  nudgeLoop: 'NudgeLoop',
  pathChangedNotUnderstood: 'MonorepoPathChangedNotUnderstood',
  headUnavailable: 'MonorepoPullRequestHeadUnavailable',
} as const;

/** git's word for a branch or commit the remote does not have (or will not serve). */
const HEAD_NOT_SERVED = /couldn't find remote ref|not our ref|no such remote ref/i;

const TEKTON_DIRECTORY = '.tekton/';

/**
 * Whether `url` names `repo`: host, owner and name as parseRepositoryUrl reads them (any of the
 * forms a Component or Pipelines-as-Code writes), owner and name without regard to case as the
 * forges treat them. A URL that does not parse names no repository.
 */
export function sameRepository(url: string | undefined, repo: RepositoryRef): boolean {
  if (url === undefined) return false;
  try {
    const other = parseRepositoryUrl(url);
    return (
      other.host === repo.host &&
      other.owner.toLowerCase() === repo.owner.toLowerCase() &&
      other.name.toLowerCase() === repo.name.toLowerCase()
    );
  } catch {
    return false;
  }
}

async function tektonAt(checkout: BaseCheckout, commit: string): Promise<TektonDirectory> {
  const files = await checkout.readFiles((path) => path.startsWith(TEKTON_DIRECTORY), commit);
  return readTektonDirectory(new Map(files.map((file) => [file.path, file.text])));
}

/**
 * One synthetic commit per open trigger of the nudged repository whose PR changed files the nudged
 * component's pull-request PipelineRun (read at the PR's head) reacts to, in the triggers' order,
 * each on the one before and the first on the base; each dated by its trigger's build, so a repeat
 * makes the same commits. The last one's sha, or undefined when none was made.
 */
export async function syntheticCommits(
  checkout: BaseCheckout,
  target: DirectTarget,
  triggers: readonly PreMergeTrigger[],
  createdAtOf: (trigger: PreMergeTrigger) => string | undefined,
): Promise<string | undefined> {
  let tip: string | undefined;
  for (const trigger of triggers) {
    // A merged PR's changes are on the base already; a closed one's are not wanted.
    if (trigger.state !== 'open' || trigger.head === undefined) continue;
    if (!sameRepository(trigger.repoUrl, target.forge.repo)) continue;
    const head = await fetchHead(checkout, target, trigger);
    if (head === undefined) continue;
    const changed = await checkout.changedPaths(head.mergeBase, head.sha);
    if (changed.length === 0) continue;
    const runs = componentPipelineRuns(await tektonAt(checkout, head.sha), target.nudged, 'pull_request');
    const copy = syntheticCopy(changed, runs.pipelineRuns);
    for (const run of copy.notUnderstood) {
      target.notices.push({
        type: 'Warning',
        reason: MONOREPO_NOTICE_REASONS.pathChangedNotUnderstood,
        message: `${target.nudged}'s pull-request PipelineRun ${run.file}: ${run.pathChanged.reason ?? 'not understood'}; read as matching every file, so every file ${trigger.component} #${String(trigger.number)} changed is copied into the nudge pull request`,
        once: true,
      });
    }
    if (copy.files.length === 0) continue;
    const message = syntheticCommitMessage({
      component: trigger.component,
      number: trigger.number,
      url: trigger.url,
      headSha: head.sha,
      nudged: target.nudged,
      files: copy.files,
      gitAuthor: target.gitAuthor,
    });
    const date = validatedCommitDate([createdAtOf(trigger)]);
    tip = await checkout.copyCommit({
      from: head.sha,
      paths: copy.files.map((file) => file.path),
      message,
      author: target.identity,
      ...(tip === undefined ? {} : { parent: tip }),
      ...(date === undefined ? {} : { date }),
    });
  }
  return tip;
}

/**
 * The trigger's head and merge base; undefined, said as a notice, when the remote serves neither
 * its branch nor its commit (a fork's PR whose commit is not fetchable): that PR gets no copy, the
 * nudge goes on. Any other git failure fails the fire, to be retried, so that a passing outage
 * does not leave a PR without its copy.
 */
async function fetchHead(
  checkout: BaseCheckout,
  target: DirectTarget,
  trigger: PreMergeTrigger,
): Promise<{ readonly sha: string; readonly mergeBase: string } | undefined> {
  try {
    return await checkout.fetchPullRequestHead(trigger.head ?? {});
  } catch (error) {
    if (!(error instanceof GitCommandError) || !HEAD_NOT_SERVED.test(error.details)) throw error;
    target.notices.push({
      type: 'Warning',
      reason: MONOREPO_NOTICE_REASONS.headUnavailable,
      message: `${trigger.url}: the repository serves neither the pull request's branch nor the commit its build built (${error.reason}), so the nudge pull request of ${target.nudged} has no copy of its changes`,
      once: true,
    });
    return undefined;
  }
}

/** A nudging component and the repository it is built from. */
export interface NudgingSource {
  readonly component: string;
  readonly repoUrl: string | undefined;
}

/**
 * The nudge-loop warnings of a commit (on `commit`, default the base tip) changing `changedPaths`:
 * for each nudging component built from the nudged repository, its push PipelineRuns there that
 * the paths start. A component built from another repository cannot be started by this one's
 * changes.
 */
export async function nudgeLoopsOf(
  checkout: BaseCheckout,
  target: DirectTarget,
  nudging: readonly NudgingSource[],
  changedPaths: readonly string[],
  commit: string = checkout.baseSha,
): Promise<NudgeLoopWarning[]> {
  const components = [
    ...new Set(nudging.filter((n) => sameRepository(n.repoUrl, target.forge.repo)).map((n) => n.component)),
  ].sort();
  if (components.length === 0 || changedPaths.length === 0) return [];
  const tekton = await tektonAt(checkout, commit);
  return components.flatMap((component) =>
    nudgeLoopWarnings(
      component,
      target.nudged,
      componentPipelineRuns(tekton, component, 'push').pipelineRuns,
      changedPaths,
    ),
  );
}

/**
 * The warnings told: each as a Warning notice (once per fact), and as a comment on the PR unless
 * `previousBody` (the open PR's) says it was commented already. Returns `body` with a stamp for
 * every warning commented, now or before, and the comments to make.
 */
export function toldNudgeLoops(
  target: DirectTarget,
  warnings: readonly NudgeLoopWarning[],
  previousBody: string | undefined,
  body: string,
): { readonly body: string; readonly comments: readonly string[] } {
  for (const warning of warnings) {
    target.notices.push({
      type: 'Warning',
      reason: MONOREPO_NOTICE_REASONS.nudgeLoop,
      message: warning.message,
      once: true,
    } satisfies ExecutorNotice);
  }
  const said = nudgeLoopStampsOf(previousBody);
  const comments = warnings.filter((warning) => !said.has(warning.fingerprint)).map((warning) => warning.comment);
  const stamped = withNudgeLoopStamps(body, [...said, ...warnings.map((warning) => warning.fingerprint)]);
  return { body: stamped, comments };
}
