// The steps on a human's pull request of a nudging component (docs/sandbox.md "Pre-merge nudges",
// docs/decisions.md D11): open it, push to it, merge it or close it on the scenario's forge, and record
// the builds Pipelines-as-Code and build-service would start for it (its pull-request builds; the
// merge commit's push build goes through the player's build path, like any push build). After each
// step the sandbox waits until nudger's pre-merge reconciler has caught up with it: the record of
// every (PR group, target) pair the PR's component nudges shows the trigger in the PR's state, with
// its newest pull-request build (and, once merged, the merge commit's push build), and no attempt
// under way or due again (the nudge PR was made from that content, or its attempts ran out). What
// the record says then is kept for `nudges[]`.
import { setTimeout as sleep } from 'node:timers/promises';
import type { RepositoryRef } from '../adapters/forges/repository-url.ts';
import type { GitWorkspaces } from '../adapters/git/workspace.ts';
import { CONFIG_MAPS } from '../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import type { DispatchExecutor } from '../domain/nudge/dispatch-intents.ts';
import {
  parsePreMergeRecord,
  PRE_MERGE_RECORD_KEY,
  preMergeRecordName,
  triggerKey,
  type PreMergeRecord,
} from '../domain/nudge/pre-merge-record.ts';
import { preMergeBranch, prGroupOf } from '../domain/nudge/pre-merge-text.ts';
import type { SandboxEnvironment } from './environment.ts';
import { whenNotFound } from './poll-loop.ts';
import { pullRequestByHeadBranch } from './forges/sandbox-forge.ts';
import type { NudgeResult } from './scenario/result.ts';
import { repositoryOwner, type pullRequestStepOf, type ResolvedComponent, type Scenario } from './scenario/schema.ts';

/** A pull-request step as pullRequestStepOf reads it. */
export type PullRequestStepInput = NonNullable<ReturnType<typeof pullRequestStepOf>>;

/** A build the player recorded: its PipelineRun's name and digest. */
export interface RecordedStepBuild {
  readonly name: string;
  readonly digest: string;
}

export interface PullRequestStepsOptions {
  readonly env: SandboxEnvironment;
  readonly scenario: Scenario;
  /** Component → its repository (a monorepo's components share one). */
  readonly repos: ReadonlyMap<string, RepositoryRef>;
  readonly workspaces: GitWorkspaces;
  readonly settleTimeoutMs: number;
  /** The component's immediate targets, when nudger dispatches; [] otherwise. */
  readonly targets: (component: string) => readonly string[];
  /** Records the push build of `commit` (the merge) as a `build` step records one. */
  readonly recordPushBuild: (component: string, commit: string) => Promise<RecordedStepBuild>;
}

/** nudger's pre-merge reconciler did not catch up with a step in time, or left a record it cannot read. */
export class SandboxPreMergeError extends Error {
  override readonly name = 'SandboxPreMergeError';
  readonly namespace: string;
  constructor(namespace: string, detail: string, options?: ErrorOptions) {
    super(`sandbox namespace ${namespace}: pre-merge nudges: ${detail}`, options);
    this.namespace = namespace;
  }
}

type HumanState = 'open' | 'merged' | 'closed';

/** A human's pull request the steps opened, and what the pre-merge record should show for it. */
interface HumanPullRequest {
  readonly component: string;
  readonly repo: RepositoryRef;
  readonly branch: string;
  readonly group: string;
  readonly number: number;
  state: HumanState;
  pullRequestBuild: RecordedStepBuild;
  pushBuild?: RecordedStepBuild;
  pushes: number;
}

const HUMAN = { name: 'A Human', email: 'human@example.com' };
/** Build PipelineRun timestamps have one-second resolution; a PR's next build must sort after its last. */
const TIMESTAMP_RESOLUTION_MS = 1100;

export class PullRequestSteps {
  readonly #o: PullRequestStepsOptions;
  /** By `<repository owner>\0<branch>`: the PR open on it, or the last one. */
  readonly #pullRequests = new Map<string, HumanPullRequest>();
  readonly #lastBuildAt = new Map<string, number>();
  readonly #facts: NudgeResult[] = [];

  constructor(options: PullRequestStepsOptions) {
    this.#o = options;
  }

  get #namespace(): string {
    return this.#o.scenario.namespace;
  }

  /** Head branches of the humans' pull requests, for `pullRequests[].group`. */
  isHumanBranch(branch: string): boolean {
    return [...this.#pullRequests.values()].some((pr) => pr.branch === branch);
  }

  /** What the pre-merge reconciler did after each step, in step order. */
  get nudges(): readonly NudgeResult[] {
    return this.#facts;
  }

  async play(step: PullRequestStepInput): Promise<void> {
    const component = this.#component(step.component);
    const key = `${repositoryOwner(component)}\u0000${step.branch}`;
    let pr = this.#pullRequests.get(key);
    if (step.verb === 'openPullRequest') {
      pr = await this.#open(component, step.branch, step.files);
      this.#pullRequests.set(key, pr);
    } else {
      if (pr?.state !== 'open') {
        // The parser checks the order of steps; this is a step played on its own.
        throw new SandboxPreMergeError(
          this.#namespace,
          `no open pull request from ${step.branch} on the repository of ${component.name} to act on`,
        );
      }
      if (step.verb === 'pushToPullRequest') await this.#push(pr, step.files);
      else if (step.verb === 'mergeNudgingPullRequest') await this.#merge(pr);
      else {
        await this.#o.env.sandboxForge.close(pr.repo, pr.number);
        pr.state = 'closed';
      }
    }
    await this.#awaitReconciled(pr);
  }

  #component(name: string): ResolvedComponent {
    const found = this.#o.scenario.components.find((component) => component.name === name);
    /* node:coverage ignore next */
    if (found === undefined) throw new SandboxPreMergeError(this.#namespace, `component ${name} is not declared`);
    return found;
  }

  #repo(component: ResolvedComponent): RepositoryRef {
    const repo = this.#o.repos.get(component.name);
    /* node:coverage ignore next */
    if (repo === undefined) throw new SandboxPreMergeError(this.#namespace, `no repository for ${component.name}`);
    return repo;
  }

  /** A change of the component's own files: under its directory in a monorepo it does not own. */
  #defaultFiles(component: ResolvedComponent, branch: string, push: number): Record<string, string> {
    const prefix = component.repository === undefined ? '' : `${component.name}/`;
    const name = branch.replaceAll('/', '-');
    return { [`${prefix}CHANGES-${name}.md`]: `A change of ${component.name} on ${branch} (push ${String(push)}).\n` };
  }

  async #commit(
    repo: RepositoryRef,
    from: string,
    branch: string,
    files: Readonly<Record<string, string>>,
    message: string,
  ): Promise<string> {
    const remote = this.#o.env.sandboxForge.humanRemote(repo);
    const checkout = await this.#o.workspaces.prepareBase(remote.url, from, remote.credentials);
    const commit = await checkout.commitOnBase({
      files: Object.entries(files).map(([path, text]) => ({ path, text })),
      message,
      author: HUMAN,
    });
    await checkout.pushWithLease(branch, await checkout.remoteBranchHead(branch), commit);
    return commit;
  }

  async #open(
    component: ResolvedComponent,
    branch: string,
    files: Readonly<Record<string, string>> | undefined,
  ): Promise<HumanPullRequest> {
    const repo = this.#repo(component);
    const group = prGroupOf(branch);
    /* node:coverage ignore next 2 */
    if (group === undefined)
      throw new SandboxPreMergeError(this.#namespace, `branch ${branch} makes no PR group (main, master)`);
    const head = await this.#commit(
      repo,
      component.gitRevision,
      branch,
      files ?? this.#defaultFiles(component, branch, 1),
      `Change ${component.name} (${branch})`,
    );
    const created = await this.#o.env.sandboxForge.openPullRequest({
      repo,
      base: component.gitRevision,
      head: branch,
      title: `Change ${component.name}`,
      body: `A human's change of ${component.name}, in PR group ${group}.`,
    });
    return {
      component: component.name,
      repo,
      branch,
      group,
      number: created.number,
      state: 'open',
      pullRequestBuild: await this.#pullRequestBuild(component, repo, branch, created.number, head),
      pushes: 1,
    };
  }

  async #push(pr: HumanPullRequest, files: Readonly<Record<string, string>> | undefined): Promise<void> {
    const component = this.#component(pr.component);
    pr.pushes += 1;
    const head = await this.#commit(
      pr.repo,
      pr.branch,
      pr.branch,
      files ?? this.#defaultFiles(component, pr.branch, pr.pushes),
      `Change ${component.name} again (${pr.branch})`,
    );
    pr.pullRequestBuild = await this.#pullRequestBuild(component, pr.repo, pr.branch, pr.number, head);
  }

  async #merge(pr: HumanPullRequest): Promise<void> {
    const merged = await this.#o.env.sandboxForge.merge(pr.repo, pr.number);
    pr.state = 'merged';
    const commit = merged.mergeCommitSha ?? merged.headSha;
    pr.pushBuild = await this.#o.recordPushBuild(pr.component, commit);
  }

  /** Pipelines-as-Code's pull_request run of `commit`, succeeded (build-service's PR pipeline). */
  async #pullRequestBuild(
    component: ResolvedComponent,
    repo: RepositoryRef,
    branch: string,
    number: number,
    commit: string,
  ): Promise<RecordedStepBuild> {
    const last = this.#lastBuildAt.get(component.name);
    if (last !== undefined) await sleep(Math.max(0, last + TIMESTAMP_RESOLUTION_MS - Date.now()));
    const recorded = await this.#o.env.konflux.recordBuild({
      namespace: this.#namespace,
      component: component.name,
      nudge: false,
      commit,
      branch: component.gitRevision,
      pullRequest: {
        number,
        sourceBranch: branch,
        repoUrl: this.#o.env.sandboxForge.repositoryUrl(repo.owner, repo.name),
      },
    });
    this.#lastBuildAt.set(component.name, Date.now());
    return { name: recorded.pipelineRun, digest: recorded.digest };
  }

  /** Waits until every pair of the PR's group and component shows the step; keeps what it shows. */
  async #awaitReconciled(pr: HumanPullRequest): Promise<void> {
    const targets = this.#o.targets(pr.component);
    if (targets.length === 0) return;
    const deadline = Date.now() + this.#o.settleTimeoutMs;
    for (;;) {
      const waiting: string[] = [];
      const facts: NudgeResult[] = [];
      for (const target of targets) {
        const record = await this.#record(pr.group, target);
        const fact = record === undefined ? undefined : this.#fact(pr, target, record);
        if (fact === undefined) waiting.push(target);
        else facts.push(fact);
      }
      if (waiting.length === 0) {
        for (const fact of facts) this.#facts.push(await this.#withPullRequestUrl(pr.group, fact));
        return;
      }
      if (Date.now() >= deadline) {
        throw new SandboxPreMergeError(
          this.#namespace,
          `the records of ${waiting.map((target) => preMergeBranch(pr.group, target)).join(', ')} do not show ${pr.component}'s pull request #${String(pr.number)} ${pr.state} with its newest build within ${String(this.#o.settleTimeoutMs / 1000)} s (is the namespace's NudgeConfig opted in, and the dispatcher's pre-merge path running?)`,
        );
      }
      await sleep(this.#o.env.pollIntervalMs);
    }
  }

  /**
   * The nudge PR's URL, looked up on the forge by its branch `<group>@<target>` (the record keeps
   * the executor's detail, which says more than the URL, e.g. `<url> (closed)`).
   */
  async #withPullRequestUrl(group: string, fact: NudgeResult): Promise<NudgeResult> {
    if (fact.outcome !== 'pullRequest') return fact;
    const repo = this.#o.repos.get(fact.to);
    const found =
      repo === undefined
        ? undefined
        : await pullRequestByHeadBranch(this.#o.env.sandboxForge, repo, preMergeBranch(group, fact.to));
    return { ...fact, pullRequest: found?.url ?? null };
  }

  async #record(group: string, target: string): Promise<PreMergeRecord | undefined> {
    const name = preMergeRecordName(group, target);
    const map = await this.#o.env.client
      .get<KubeObject & { data?: Record<string, string> }>(CONFIG_MAPS, this.#namespace, name)
      .catch(whenNotFound(undefined));
    if (map === undefined) return undefined;
    const reading = parsePreMergeRecord(map.data?.[PRE_MERGE_RECORD_KEY], group, target);
    // nudger never rewrites a record it cannot read: waiting is pointless.
    if (!reading.ok) throw new SandboxPreMergeError(this.#namespace, `ConfigMap ${name}: ${reading.problem}`);
    return reading.record;
  }

  /** The nudge the record shows for `pr` once it has caught up with the step; undefined before. */
  #fact(pr: HumanPullRequest, target: string, record: PreMergeRecord): NudgeResult | undefined {
    const trigger = record.triggers[triggerKey(pr.component, pr.number)];
    if (trigger?.state !== pr.state || trigger.pullRequestBuild.name !== pr.pullRequestBuild.name) return undefined;
    if (pr.state === 'merged' && trigger.pushBuild?.name !== pr.pushBuild?.name) return undefined;
    const attempt = record.attempt;
    if (attempt !== undefined && attempt.state !== 'failed') return undefined;
    const failed = attempt?.state === 'failed';
    if (!failed && record.applied === undefined) return undefined;
    const pinned =
      pr.state === 'merged' ? trigger.pushBuild : pr.state === 'open' ? trigger.pullRequestBuild : undefined;
    const executor: DispatchExecutor = 'direct';
    return {
      build: (pinned ?? trigger.pullRequestBuild).name,
      from: pr.component,
      to: target,
      digest: pinned?.digest ?? null,
      executor,
      mode: 'immediate',
      event: pr.state === 'merged' ? 'push' : 'pull_request',
      snapshot: null,
      ...(failed
        ? { outcome: 'failed' as const, reason: attempt.reason ?? 'unknown', pullRequest: null }
        : { outcome: 'pullRequest' as const, pullRequest: null }),
      heldBy: null,
    };
  }
}
