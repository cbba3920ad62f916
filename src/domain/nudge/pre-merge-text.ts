// The names a pre-merge nudge goes by (docs/decisions.md D11): the PR group of a pull-request build,
// and the nudge PR's branch, which puts the nudge PR into that same group.
import { fingerprint } from '../changegroup/fingerprint.ts';
import { buildPipelineRunOf, PAC_PULL_REQUEST_KEY, PAC_SOURCE_BRANCH_KEY } from '../nudge-pipelinerun.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';

/** Source branches that never start a pre-merge nudge: they are where PRs merge, not PR groups. */
export const UNGROUPED_BRANCHES: ReadonlySet<string> = new Set(['main', 'master']);

/**
 * The PR group of a pull-request build's source branch: the branch up to its first `@`, as
 * integration-service groups PRs; undefined for `main` and `master` (and an empty name).
 */
export function prGroupOf(sourceBranch: string): string | undefined {
  const group = sourceBranch.split('@', 1)[0]?.trim() ?? '';
  if (group === '' || UNGROUPED_BRANCHES.has(group)) return undefined;
  return group;
}

/** `<group>@<nudged>`: one nudge PR per (group, target), in the triggering PRs' group. */
export function preMergeBranch(group: string, nudged: string): string {
  return `${group}@${nudged}`;
}

/** One trigger's share of a pre-merge nudge's content. */
export interface PreMergeContentPart {
  readonly component: string;
  readonly number: number;
  readonly state: string;
  /** The digest pinned for it, if any (none once closed). */
  readonly digest?: string;
}

/** 16 hex characters naming a pre-merge nudge's content; stable across replicas and restarts. */
export function preMergeKey(
  namespace: string,
  group: string,
  target: string,
  parts: readonly PreMergeContentPart[],
  draft: boolean,
  closing: boolean,
): string {
  const sorted = [...parts]
    .sort((a, b) => (a.component === b.component ? a.number - b.number : a.component < b.component ? -1 : 1))
    .map((part) => `${part.component}#${String(part.number)}:${part.state}:${part.digest ?? '-'}`);
  return fingerprint(['pre-merge', namespace, group, target, draft, closing, ...sorted]);
}

/** Set by Pipelines-as-Code on every run it starts (annotation, sometimes also a label). */
export const PAC_REPO_URL_KEY = 'pipelinesascode.tekton.dev/repo-url';
export const PAC_SHA_KEY = 'pipelinesascode.tekton.dev/sha';

/** A pull-request build as a trigger of a pre-merge nudge. */
export interface PullRequestBuildIdentity {
  readonly component: string;
  readonly group: string;
  readonly sourceBranch: string;
  readonly number: number;
  readonly repoUrl: string;
  /** The commit the build built (Pipelines-as-Code's `sha`), lower-cased. */
  readonly headSha?: string;
}

function pacValue(run: PipelineRun, key: string): string | undefined {
  const value = (run.metadata?.annotations?.[key] ?? run.metadata?.labels?.[key])?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/**
 * The PR a pull-request build was for, from Pipelines-as-Code's annotations (`source-branch`,
 * `pull-request`, `repo-url`); undefined when one is missing, the number is not one, or the source
 * branch makes no PR group (main, master). The caller has verified the build (D3).
 */
export function pullRequestBuildIdentity(run: PipelineRun): PullRequestBuildIdentity | undefined {
  const view = buildPipelineRunOf(run);
  if (view.component === undefined || view.eventType !== 'pull-request') return undefined;
  const sourceBranch = pacValue(run, PAC_SOURCE_BRANCH_KEY);
  const number = Number(pacValue(run, PAC_PULL_REQUEST_KEY));
  const repoUrl = pacValue(run, PAC_REPO_URL_KEY);
  if (sourceBranch === undefined || repoUrl === undefined || !Number.isSafeInteger(number) || number < 1) {
    return undefined;
  }
  const group = prGroupOf(sourceBranch);
  if (group === undefined) return undefined;
  const headSha = pushCommitOf(run);
  return {
    component: view.component,
    group,
    sourceBranch,
    number,
    repoUrl,
    ...(headSha === undefined ? {} : { headSha }),
  };
}

/** The commit a push build built (Pipelines-as-Code's `sha`), lower-cased. */
export function pushCommitOf(run: PipelineRun): string | undefined {
  return pacValue(run, PAC_SHA_KEY)?.toLowerCase();
}
