// Shared by the ChangeGroup end-to-end tests: one sandbox environment per file (real control plane,
// in-process manager with its webhooks, local forge, stand-ins), small scenario builders, and
// readers for what the tests assert on (ChangeGroup status, pull requests, commits, files, builds).
import type { RepositoryRef } from '../../src/adapters/forges/repository-url.ts';
import type { PullRequest } from '../../src/adapters/forges/types.ts';
import { localGitRun } from '../../src/adapters/git/plumbing.ts';
import { CHANGE_GROUPS, PIPELINE_RUNS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { changeGroupBranch } from '../../src/domain/changegroup/model.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import type { Condition } from '../../src/schema/common.ts';
import type { ChangeGroupSpec, ChangeGroupStatus } from '../../src/schema/changegroup.ts';
import { startSandboxEnvironment, type SandboxEnvironment } from '../../src/sandbox/environment.ts';
import type { PacBuild } from '../../src/sandbox/pac.ts';
import { ScenarioPlayer } from '../../src/sandbox/play.ts';
import { initialDigest, syntheticDigest } from '../../src/sandbox/scenario/objects.ts';
import { checkScenarioDocument } from '../../src/sandbox/scenario/parse.ts';
import type { Scenario, ScenarioChangeGroup, ScenarioStep } from '../../src/sandbox/scenario/schema.ts';
import { renovateBranch } from '../../src/sandbox/tekton.ts';

export const SKIP_CI = '[skip ci]';

export async function startEnvironment(): Promise<SandboxEnvironment> {
  return startSandboxEnvironment({ logger: createLogger({ level: 'silent' }) });
}

export interface ChangeGroupObject extends KubeObject {
  spec: ChangeGroupSpec;
  status?: ChangeGroupStatus;
}

export async function readChangeGroup(
  env: SandboxEnvironment,
  namespace: string,
  name: string,
): Promise<ChangeGroupObject> {
  return env.client.get<ChangeGroupObject>(CHANGE_GROUPS, namespace, name);
}

export function conditionOf(changeGroup: ChangeGroupObject, type: string): Condition | undefined {
  return changeGroup.status?.conditions?.find((c) => c.type === type);
}

export function repoOf(env: SandboxEnvironment, namespace: string, component: string): RepositoryRef {
  return env.forge.repository(namespace, component);
}

/** The ChangeGroup's pull request, found by its branch (D5), whatever status says. */
export async function changeGroupPullRequests(
  env: SandboxEnvironment,
  repo: RepositoryRef,
  changeGroup: string,
): Promise<PullRequest[]> {
  const branch = changeGroupBranch(changeGroup);
  return (await env.forge.listPullRequests(repo)).filter((pr) => pr.headBranch === branch);
}

/** The one pull request of the ChangeGroup; throws when there is none or more than one. */
export async function onlyPullRequest(
  env: SandboxEnvironment,
  repo: RepositoryRef,
  changeGroup: string,
): Promise<PullRequest> {
  const prs = await changeGroupPullRequests(env, repo, changeGroup);
  if (prs.length !== 1 || prs[0] === undefined) {
    throw new Error(`expected one pull request of ChangeGroup ${changeGroup}, found ${String(prs.length)}`);
  }
  return prs[0];
}

export async function renovatePullRequest(
  env: SandboxEnvironment,
  repo: RepositoryRef,
  nudged: string,
  nudging: string,
): Promise<PullRequest | undefined> {
  return env.forge.findPullRequestByHeadBranch(repo, renovateBranch(nudged, nudging));
}

function git(env: SandboxEnvironment, repo: RepositoryRef): ReturnType<typeof localGitRun> {
  return localGitRun(env.forge.gitDirectory(repo));
}

export async function commitMessageOf(env: SandboxEnvironment, repo: RepositoryRef, sha: string): Promise<string> {
  return (await git(env, repo)('log', ['log', '-1', '--format=%B', sha])).replace(/\n+$/, '');
}

export async function authorEmailOf(env: SandboxEnvironment, repo: RepositoryRef, sha: string): Promise<string> {
  return (await git(env, repo)('log', ['log', '-1', '--format=%ae', sha])).trim();
}

/** The parents of a commit. */
export async function parentsOf(env: SandboxEnvironment, repo: RepositoryRef, sha: string): Promise<string[]> {
  const line = (await git(env, repo)('rev-list', ['rev-list', '--parents', '-n', '1', sha])).trim();
  return line.split(' ').slice(1);
}

/** Every file at `revision`, path → text. */
export async function filesAt(
  env: SandboxEnvironment,
  repo: RepositoryRef,
  revision: string,
): Promise<Record<string, string>> {
  const run = git(env, repo);
  const paths = (await run('ls-tree', ['ls-tree', '-r', '-z', '--name-only', revision]))
    .split('\0')
    .filter((p) => p !== '');
  const files: Record<string, string> = {};
  for (const path of paths) files[path] = await run('show', ['show', `${revision}:${path}`]);
  return files;
}

/** Every digest `image` is pinned at in `files` (`<image>[:tag]@sha256:…`). */
export function pinnedDigests(files: Readonly<Record<string, string>>, image: string): string[] {
  const escaped = image.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const pattern = new RegExp(`${escaped}(?::[A-Za-z0-9_.-]+)?@(sha256:[0-9a-f]{64})`, 'g');
  return Object.values(files).flatMap((text) => [...text.matchAll(pattern)].map((m) => m[1] ?? ''));
}

/** The digest of the last build step of each component. */
export function latestDigests(steps: readonly ScenarioStep[]): Map<string, string> {
  const latest = new Map<string, string>();
  for (const step of steps) if ('build' in step && step.digest !== undefined) latest.set(step.build, step.digest);
  return latest;
}

/** Builds the PaC stand-in counted for `component` of repository `namespace/component`. */
export function pacBuilds(env: SandboxEnvironment, namespace: string, component: string): PacBuild[] {
  const repository = `${namespace}/${component}`;
  return env.pac.builds.filter((b) => b.repository === repository && b.component === component);
}

export interface NudgePipelineRunObject extends KubeObject {
  spec?: { status?: string } & Record<string, unknown>;
  status?: Record<string, unknown>;
}

export async function listPipelineRuns(env: SandboxEnvironment, namespace: string): Promise<NudgePipelineRunObject[]> {
  return [...(await env.client.list<NudgePipelineRunObject>(PIPELINE_RUNS, { namespace })).items];
}

export { eventually } from '../integration/wait.ts';

export const OPERANDS = ['operand-a', 'operand-b', 'operand-c'] as const;
export const BUNDLE = 'bundle-x';
export const CHANGE_GROUP = 'bundle-x-update';

export function imageOf(component: string): string {
  return `quay.io/nudger-e2e/${component}`;
}

/** A digest for the `n`th build of `component` in `namespace`, known to the test in advance. */
export function digestOf(namespace: string, component: string, n = 1): string {
  return syntheticDigest(`e2e ${namespace} ${component} #${String(n)}`);
}

export function build(namespace: string, component: string, n = 1): ScenarioStep {
  return { build: component, digest: digestOf(namespace, component, n) };
}

/** The generated bundle repository pins each operand at this digest before any build. */
export function originalDigestOf(component: string): string {
  return initialDigest(imageOf(component));
}

/**
 * Three operands (and `extra` more) nudging `bundle-x`, whose generated Dockerfile pins each of
 * them; one ChangeGroup `bundle-x-update` on the bundle, collecting the three operands.
 */
export function smallScenario(
  namespace: string,
  steps: readonly ScenarioStep[],
  changeGroup: Partial<ScenarioChangeGroup> = {},
): Scenario {
  return checkScenarioDocument(
    {
      namespace,
      // These tests are of ChangeGroups with build-service nudging, as before nudger dispatched.
      nudgedBy: 'build-service',
      components: [
        ...OPERANDS.map((name) => ({ name, image: imageOf(name), nudges: [BUNDLE] })),
        { name: BUNDLE, image: imageOf(BUNDLE) },
      ],
      changeGroups: [{ name: CHANGE_GROUP, nudgedComponent: BUNDLE, nudgingComponents: [...OPERANDS], ...changeGroup }],
      steps,
    },
    `e2e ${namespace}`,
  );
}

/**
 * Sets the scenario up and plays it; after step `i` (settled first, builds included), `checks[i]`
 * runs with the player, so a test can assert on every intermediate state.
 */
export async function playWithChecks(
  env: SandboxEnvironment,
  scenario: Scenario,
  checks: Readonly<Record<number, (player: ScenarioPlayer) => Promise<void>>> = {},
): Promise<ScenarioPlayer> {
  const holder: { player?: ScenarioPlayer } = {};
  const player = new ScenarioPlayer(env, scenario, {
    afterStep: async (_step, index) => {
      const check = checks[index];
      if (check === undefined || holder.player === undefined) return;
      await holder.player.settle();
      await check(holder.player);
    },
  });
  holder.player = player;
  await player.setUp();
  await player.play();
  return player;
}
