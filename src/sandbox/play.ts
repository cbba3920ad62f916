// Plays one scenario in a sandbox environment: creates its repositories and objects in their own
// namespace, plays the steps (builds as build-service and integration-service would record them,
// human actions on the pull requests), lets the system settle, and reads back what happened.
// Builds are played back to back, as real builds arrive; the system settles before each human
// action and at the end, so those act on a pull request that reflects every build before them.
// When nudger dispatches (nudgedBy: nudger), each build waits until the dispatcher has settled it
// (its done-marker final for every target) before the next step: the dispatcher is the system
// under test, so what it did with one build is never blurred by the next. A `snapshot` step
// likewise waits until the dispatcher has moved every validated entry the passing Snapshot makes
// due (docs/decisions.md D10), and reads what it did from the records of validated nudges then.
import { stat } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import type { RepositoryRef } from '../adapters/forges/repository-url.ts';
import { GitWorkspaces } from '../adapters/git/workspace.ts';
import { localGitRun } from '../adapters/git/plumbing.ts';
import {
  CHANGE_GROUPS,
  COMPONENTS,
  CONFIG_MAPS,
  NAMESPACES,
  NUDGE_CONFIGS,
  PIPELINE_RUNS,
  SECRETS,
} from '../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import { parseTimeout } from '../domain/changegroup/duration.ts';
import { isTerminalPhase } from '../domain/changegroup/model.ts';
import { compareStrings } from '../domain/compare.ts';
import type { DispatchExecutor } from '../domain/nudge/dispatch-intents.ts';
import { DISPATCH_MARKER_ANNOTATION } from '../domain/nudge/dispatch-marker.ts';
import { nudgeBranch } from '../domain/nudge/pull-request-text.ts';
import { validatedBranch } from '../domain/nudge/validated-text.ts';
import {
  parseValidatedRecord,
  RECORD_GROUP_ANNOTATION,
  RECORD_TARGET_ANNOTATION,
  VALIDATED_RECORD_KEY,
  VALIDATED_RECORD_LABEL,
  VALIDATED_RECORD_LABEL_VALUE,
  validatedRecordName,
  type ValidatedRecord,
} from '../domain/nudge/validated-record.ts';
import { BUILD_NOW_LABEL, REBASE_LABEL } from '../domain/pr-description/index.ts';
import type { ChangeGroupStatus } from '../schema/changegroup.ts';
import type { SandboxEnvironment } from './environment.ts';
import { COMPONENT_GROUPS } from './integration.ts';
import { whenNotFound } from './poll-loop.ts';
import { dispatchSettled, MarkerReadError, nudgesOfBuild, type ObservedBuild } from './scenario/nudges.ts';
import { scenarioObjects, type ScenarioObjects } from './scenario/objects.ts';
import type { ChangeGroupResult, NudgeResult, RepositoryPullRequestResult, SandboxResult } from './scenario/result.ts';
import {
  immediateNudges,
  pullRequestStepOf,
  repositoryOwner,
  type BuildStep,
  type Scenario,
  type ScenarioStep,
  type SnapshotStep,
} from './scenario/schema.ts';
import { PullRequestSteps, type RecordedStepBuild } from './pull-request-steps.ts';
import { prGroupOf } from '../domain/nudge/pre-merge-text.ts';
import {
  dueEntries,
  entryOutcome,
  readRecord,
  RecordReadError,
  validatedNudgeResult,
  validatedPairs,
  type DueEntry,
  type PlayedSnapshot,
  type ValidatedNudgeFact,
  type ValidatedPair,
} from './scenario/validated-nudges.ts';
import { NAMESPACE_NAME_LABEL } from './webhooks.ts';
import { pullRequestByHeadBranch, pullRequestByNumber } from './forges/sandbox-forge.ts';

export interface PlayOptions {
  /** The longest the system may take to settle after a step; default 120 s. */
  readonly settleTimeoutMs?: number;
  /** Called after each step has been played (and, for human steps, settled): for tests and benchmarks. */
  readonly afterStep?: (step: ScenarioStep, index: number) => Promise<void>;
}

export class SandboxSettleError extends Error {
  override readonly name = 'SandboxSettleError';
  readonly namespace: string;
  constructor(namespace: string, timeoutMs: number, detail: string) {
    super(`sandbox namespace ${namespace} did not settle within ${String(timeoutMs / 1000)} s: ${detail}`);
    this.namespace = namespace;
  }
}

/** nudger's dispatcher did not settle a build in time, or left a marker it cannot read itself. */
export class SandboxDispatchError extends Error {
  override readonly name = 'SandboxDispatchError';
  readonly namespace: string;
  /** The build PipelineRun's name. */
  readonly build: string;
  constructor(namespace: string, build: string, detail: string, options?: ErrorOptions) {
    super(`nudger's dispatcher did not settle build PipelineRun ${namespace}/${build}: ${detail}`, options);
    this.namespace = namespace;
    this.build = build;
  }
}

/** Whether a record ConfigMap holds a batch firing or waiting for its retry; an unreadable one does not. */
function batchUnderWay(map: KubeObject & { data?: Record<string, string> }): boolean {
  const annotations = map.metadata?.annotations ?? {};
  const group = annotations[RECORD_GROUP_ANNOTATION];
  const target = annotations[RECORD_TARGET_ANNOTATION];
  if (group === undefined || target === undefined) return false;
  const reading = parseValidatedRecord(map.data?.[VALIDATED_RECORD_KEY], group, target);
  const state = reading.ok ? reading.record.batch?.state : undefined;
  return state === 'firing' || state === 'retry';
}

/** nudger's dispatcher did not act on a passing Snapshot in time, or left a record it cannot read itself. */
export class SandboxSnapshotError extends Error {
  override readonly name = 'SandboxSnapshotError';
  readonly namespace: string;
  readonly snapshot: string;
  readonly group: string;
  constructor(namespace: string, snapshot: string, group: string, detail: string, options?: ErrorOptions) {
    super(
      `nudger's dispatcher did not settle Snapshot ${namespace}/${snapshot} of ComponentGroup ${group}: ${detail}`,
      options,
    );
    this.namespace = namespace;
    this.snapshot = snapshot;
    this.group = group;
  }
}

/** A step cannot be played as written: what it acts on is not there. */
export class SandboxStepError extends Error {
  override readonly name = 'SandboxStepError';
  readonly namespace: string;
  constructor(namespace: string, reason: string) {
    super(`sandbox namespace ${namespace}: ${reason}`);
    this.namespace = namespace;
  }
}

/**
 * nudger (or the sandbox's human side) sent the emulator a request outside the forge's official
 * API description, or the emulator answered outside it (docs/decisions.md N37): the run proves
 * nothing about the real forge then, so it fails, naming each finding.
 */
export class SandboxContractError extends Error {
  override readonly name = 'SandboxContractError';
  readonly namespace: string;
  readonly violations: readonly string[];
  constructor(namespace: string, forge: string, violations: readonly string[]) {
    super(
      `sandbox namespace ${namespace}: the ${forge} emulator found ${String(violations.length)} request(s) or answer(s) outside the official API description: ${violations.join('; ')}`,
    );
    this.namespace = namespace;
    this.violations = violations;
  }
}

/** One build this player recorded. */
interface PlayedBuild {
  readonly name: string;
  readonly component: string;
  readonly digest: string;
  readonly succeeded: boolean;
}

const HUMAN = { name: 'A Human', email: 'human@example.com' };
const QUIET_POLLS = 5;
/** Build PipelineRun timestamps have one-second resolution; a rebuild must sort after its predecessor. */
const TIMESTAMP_RESOLUTION_MS = 1100;

interface ChangeGroupObject extends KubeObject {
  spec?: { nudgedComponent?: string; nudgingComponents?: { name: string }[] };
  status?: ChangeGroupStatus;
}

export class ScenarioPlayer {
  readonly #env: SandboxEnvironment;
  readonly #scenario: Scenario;
  readonly #objects: ScenarioObjects;
  readonly #options: PlayOptions;
  readonly #repos = new Map<string, RepositoryRef>();
  readonly #lastBuildAt = new Map<string, number>();
  readonly #workspaces: GitWorkspaces;
  readonly #nudgedComponents: readonly string[];
  readonly #builds: PlayedBuild[] = [];
  readonly #validatedPairs: readonly ValidatedPair[];
  /** What each passing Snapshot moved, in step order. */
  readonly #validatedFacts: ValidatedNudgeFact[] = [];
  /** The steps on humans' pull requests, and the pre-merge nudges they made (D11). */
  readonly #pullRequestSteps: PullRequestSteps;

  constructor(env: SandboxEnvironment, scenario: Scenario, options: PlayOptions = {}) {
    this.#env = env;
    this.#scenario = scenario;
    this.#options = options;
    this.#objects = scenarioObjects(scenario, {
      repoUrl: (component) => env.sandboxForge.repositoryUrl(scenario.namespace, component),
    });
    this.#nudgedComponents = [...new Set(scenario.components.flatMap((c) => c.nudges))].sort();
    this.#validatedPairs = validatedPairs(scenario);
    this.#workspaces = new GitWorkspaces({ cacheDir: `${env.directory}/human-git-${scenario.namespace}` });
    this.#pullRequestSteps = new PullRequestSteps({
      env,
      scenario,
      repos: this.#repos,
      workspaces: this.#workspaces,
      settleTimeoutMs: options.settleTimeoutMs ?? 120_000,
      targets: (component) => this.#dispatchTargets(component),
      recordPushBuild: (component, commit) => this.#recordBuild({ build: component }, commit),
    });
  }

  get namespace(): string {
    return this.#scenario.namespace;
  }

  /** Creates the namespace, repositories, Components, ComponentGroups, NudgeConfig and ChangeGroups. */
  async setUp(): Promise<void> {
    const { client, sandboxForge: forge, pac } = this.#env;
    const namespace = this.namespace;
    await client.create(NAMESPACES, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name: namespace, labels: { [NAMESPACE_NAME_LABEL]: namespace } },
    });
    // An emulator's SCM Secret: the manager finds the forge's token as on a cluster (N37).
    for (const secret of forge.tenantObjects(namespace)) await client.create(SECRETS, secret);
    for (const seed of this.#objects.repositories) {
      const repo = await forge.createRepository(namespace, seed.component, seed.files, seed.branch);
      for (const component of seed.components) {
        this.#repos.set(component, repo);
        pac.watch(repo, component, this.#scenario.components.find((c) => c.name === component)?.pathChanged);
      }
    }
    for (const configMap of this.#objects.configMaps) await client.create(CONFIG_MAPS, configMap);
    for (const component of this.#objects.components) await client.create(COMPONENTS, component);
    for (const group of this.#objects.componentGroups) await client.create(COMPONENT_GROUPS, group);
    if ((this.#objects.nudgeConfig.spec?.nudges ?? []).length > 0) {
      await client.create(NUDGE_CONFIGS, this.#objects.nudgeConfig);
    }
    for (const changeGroup of this.#objects.changeGroups) {
      await client.create(CHANGE_GROUPS, changeGroup);
    }
    await this.#awaitChangeGroupsObserved();
  }

  /**
   * Until the manager has written every ChangeGroup's status: then its caches, which the webhook
   * and the dispatcher ask for the hold decision too, hold them, and the first build cannot slip
   * past a ChangeGroup that is only on its way (seen on a loaded machine).
   */
  async #awaitChangeGroupsObserved(): Promise<void> {
    if (this.#objects.changeGroups.length === 0) return;
    const timeoutMs = this.#options.settleTimeoutMs ?? 120_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const listed = (await this.#env.client.list<ChangeGroupObject>(CHANGE_GROUPS, { namespace: this.namespace }))
        .items;
      const waiting = this.#objects.changeGroups.find(({ metadata }) => {
        const object = listed.find((cg) => cg.metadata?.name === metadata.name);
        return object?.status?.observedGeneration === undefined;
      });
      if (waiting === undefined) return;
      if (Date.now() >= deadline) {
        throw new SandboxSettleError(
          this.namespace,
          timeoutMs,
          `ChangeGroup ${waiting.metadata.name} has no status yet (is the manager running?)`,
        );
      }
      await sleep(this.#env.pollIntervalMs);
    }
  }

  async play(): Promise<void> {
    const violationsBefore = this.#env.sandboxForge.contractViolations.length;
    for (const [index, step] of this.#scenario.steps.entries()) {
      if (!('build' in step)) await this.settle();
      await this.#playStep(step);
      if (!('build' in step) && !('wait' in step)) await this.settle();
      await this.#options.afterStep?.(step, index);
    }
    await this.settle();
    const forge = this.#env.sandboxForge;
    const violations = forge.contractViolations.slice(violationsBefore);
    if (violations.length > 0) throw new SandboxContractError(this.namespace, forge.kind, violations);
  }

  async #playStep(step: ScenarioStep): Promise<void> {
    const pullRequestStep = pullRequestStepOf(step);
    if ('build' in step) {
      await this.#recordBuild(step);
    } else if (pullRequestStep !== undefined) {
      await this.#pullRequestSteps.play(pullRequestStep);
    } else if ('snapshot' in step) {
      await this.#snapshotStep(step.snapshot);
    } else if ('wait' in step) {
      const parsed = parseTimeout(step.wait);
      await sleep(parsed.ok ? parsed.milliseconds : 0);
    } else if ('closePullRequest' in step) {
      const { repo, number } = await this.#pullRequestOf(step.closePullRequest);
      await this.#env.sandboxForge.close(repo, number);
    } else if ('mergePullRequest' in step) {
      const { repo, number } = await this.#pullRequestOf(step.mergePullRequest);
      await this.#env.sandboxForge.merge(repo, number);
    } else if ('tickRebase' in step) {
      await this.#tick(step.tickRebase, REBASE_LABEL);
    } else if ('tickBuildNow' in step) {
      await this.#tick(step.tickBuildNow, BUILD_NOW_LABEL);
    } else if ('humanCommit' in step) {
      const { repo, headBranch } = await this.#pullRequestOf(step.humanCommit);
      await this.#humanCommit(repo, headBranch, step.files, step.message);
    } else if ('mergeNudgePullRequest' in step) {
      const { from, to } = step.mergeNudgePullRequest;
      const { repo, number } = await this.#nudgePullRequest(from, to);
      await this.#env.sandboxForge.merge(repo, number);
    } else if ('humanCommitOnNudge' in step) {
      const { from, to } = step.humanCommitOnNudge;
      const { repo, headBranch } = await this.#nudgePullRequest(from, to);
      await this.#humanCommit(repo, headBranch, step.files, step.message);
    } else if ('removeNudgingComponent' in step) {
      await this.#removeNudgingComponent(
        step.removeNudgingComponent.changeGroup,
        step.removeNudgingComponent.component,
      );
    }
  }

  /**
   * A push build of the step's component (of `commit`, when given: a merge commit), waited for
   * until the dispatcher has settled it.
   */
  async #recordBuild(step: BuildStep, commit?: string): Promise<RecordedStepBuild> {
    const last = this.#lastBuildAt.get(step.build);
    if (last !== undefined) await sleep(Math.max(0, last + TIMESTAMP_RESOLUTION_MS - Date.now()));
    const recorded = await this.#env.konflux.recordBuild({
      namespace: this.namespace,
      component: step.build,
      nudge: this.#scenario.nudgedBy === 'build-service',
      ...(commit === undefined ? {} : { commit }),
      ...(step.digest === undefined ? {} : { digest: step.digest }),
      ...(step.nudgeFiles === undefined ? {} : { nudgeFiles: step.nudgeFiles }),
      ...(step.succeeded === undefined ? {} : { succeeded: step.succeeded }),
    });
    this.#lastBuildAt.set(step.build, Date.now());
    const played = {
      name: recorded.pipelineRun,
      component: step.build,
      digest: recorded.digest,
      succeeded: recorded.succeeded,
    };
    this.#builds.push(played);
    await this.#awaitDispatch(played);
    return { name: played.name, digest: played.digest };
  }

  /**
   * The scenario's targets of `component` a build of it nudges when nudger dispatches: its
   * immediate ones (validated ones wait for a Snapshot); [] when nudger does not dispatch.
   */
  #dispatchTargets(component: string): readonly string[] {
    if (this.#scenario.nudgedBy !== 'nudger') return [];
    const declared = this.#scenario.components.find((c) => c.name === component);
    return declared === undefined ? [] : immediateNudges(declared);
  }

  /**
   * integration-service's stand-in makes the Snapshot; then, for each (group, target) pair of
   * validated entries, the sandbox waits until the dispatcher has moved every entry the Snapshot
   * made due (fired, held by a ChangeGroup, or failed), and keeps what it did for the result.
   */
  async #snapshotStep(step: SnapshotStep['snapshot']): Promise<void> {
    const pairs = this.#validatedPairs.filter((pair) => pair.group === step.group);
    const before = new Map<ValidatedPair, ValidatedRecord | undefined>();
    for (const pair of pairs) before.set(pair, await this.#record(pair));
    const recorded = await this.#env.integration.recordSnapshot({
      namespace: this.namespace,
      group: step.group,
      application: this.#scenario.application,
      passed: step.passed,
      ...(step.components === undefined ? {} : { components: step.components }),
      builds: this.#builds.map((build) => ({ name: build.name, component: build.component })),
    });
    const snapshot: PlayedSnapshot = recorded;
    if (this.#scenario.nudgedBy !== 'nudger') return;
    for (const pair of pairs) {
      const due = dueEntries(pair, snapshot, before.get(pair));
      if (due.length > 0) await this.#awaitValidated(pair, snapshot.name, due);
    }
  }

  /** The record of `pair` as it is now; undefined before the dispatcher made one. */
  async #record(pair: ValidatedPair, snapshot?: string): Promise<ValidatedRecord | undefined> {
    const map = await this.#env.client
      .get<KubeObject & { data?: Record<string, string> }>(
        CONFIG_MAPS,
        this.namespace,
        validatedRecordName(pair.group, pair.target),
      )
      .catch(whenNotFound(undefined));
    try {
      return readRecord(pair, map?.data?.[VALIDATED_RECORD_KEY]);
    } catch (error) {
      if (!(error instanceof RecordReadError)) throw error;
      // nudger never rewrites a record it cannot read: waiting is pointless.
      throw new SandboxSnapshotError(this.namespace, snapshot ?? '(none yet)', pair.group, error.message, {
        cause: error,
      });
    }
  }

  async #awaitValidated(pair: ValidatedPair, snapshot: string, due: readonly DueEntry[]): Promise<void> {
    const timeoutMs = this.#options.settleTimeoutMs ?? 120_000;
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const record = await this.#record(pair, snapshot);
      const outcomes = due.map((entry) => ({ entry, outcome: entryOutcome(entry, snapshot, record) }));
      const waiting = outcomes.filter((o) => o.outcome === undefined).map((o) => o.entry.from);
      if (waiting.length === 0) {
        for (const { entry, outcome } of outcomes)
          if (outcome !== undefined) this.#validatedFacts.push({ pair, snapshot, entry, outcome });
        return;
      }
      if (Date.now() >= deadline) {
        throw new SandboxSnapshotError(
          this.namespace,
          snapshot,
          pair.group,
          `the validated entries ${waiting.map((from) => `${from} -> ${pair.target}`).join(', ')} (gatingGroup ${pair.group}) were not nudged within ${String(timeoutMs / 1000)} s (is the dispatcher's validated path running?)`,
        );
      }
      await sleep(this.#env.pollIntervalMs);
    }
  }

  /** dispatchSettled for `build` with `marker`; an unreadable marker is a SandboxDispatchError. */
  #settled(build: PlayedBuild, marker: string | undefined): boolean {
    try {
      return dispatchSettled(build.name, this.#dispatchTargets(build.component), marker);
    } catch (error) {
      if (!(error instanceof MarkerReadError)) throw error;
      // The dispatcher never rewrites a marker it cannot read (docs/decisions.md N18): waiting is pointless.
      throw new SandboxDispatchError(this.namespace, build.name, error.message, { cause: error });
    }
  }

  /** Whether the dispatcher has settled `build`; its marker text (or undefined) for messages. */
  async #dispatchState(build: PlayedBuild): Promise<{ settled: boolean; marker: string | undefined }> {
    const run = await this.#env.client.get(PIPELINE_RUNS, this.namespace, build.name);
    const marker = run.metadata?.annotations?.[DISPATCH_MARKER_ANNOTATION];
    return { settled: this.#settled(build, marker), marker };
  }

  /** Waits until the dispatcher has settled `build` (when nudger dispatches and it has targets). */
  async #awaitDispatch(build: PlayedBuild): Promise<void> {
    if (this.#dispatchTargets(build.component).length === 0) return;
    const timeoutMs = this.#options.settleTimeoutMs ?? 120_000;
    const deadline = Date.now() + timeoutMs;
    let state = await this.#dispatchState(build);
    while (!state.settled) {
      if (Date.now() >= deadline) {
        const seconds = String(timeoutMs / 1000);
        throw new SandboxDispatchError(
          this.namespace,
          build.name,
          state.marker === undefined
            ? `no ${DISPATCH_MARKER_ANNOTATION} annotation within ${seconds} s (is the dispatch controller running, and the namespace's NudgeConfig there?)`
            : `${DISPATCH_MARKER_ANNOTATION} is still ${JSON.stringify(state.marker)} after ${seconds} s`,
        );
      }
      await sleep(this.#env.pollIntervalMs);
      state = await this.#dispatchState(build);
    }
  }

  async #changeGroup(name: string): Promise<ChangeGroupObject> {
    return this.#env.client.get<ChangeGroupObject>(CHANGE_GROUPS, this.namespace, name);
  }

  async #pullRequestOf(changeGroup: string): Promise<{ repo: RepositoryRef; number: number; headBranch: string }> {
    const object = await this.#changeGroup(changeGroup);
    const recorded = object.status?.pullRequest;
    const repo = this.#repos.get(object.spec?.nudgedComponent ?? '');
    if (recorded === undefined || repo === undefined) {
      throw new Error(`ChangeGroup ${this.namespace}/${changeGroup} has no pull request yet to act on`);
    }
    return { repo, number: recorded.number, headBranch: recorded.headBranch };
  }

  async #tick(changeGroup: string, label: string): Promise<void> {
    const { repo, number } = await this.#pullRequestOf(changeGroup);
    const pullRequest = await pullRequestByNumber(this.#env.sandboxForge, repo, number);
    const body = pullRequest.body.replace(`- [ ] ${label}`, `- [x] ${label}`);
    await this.#env.sandboxForge.editBody(repo, number, body);
  }

  /**
   * The nudge branch of the edge: build-service's name, which both executors use (D9); for a
   * validated entry, the branch of its group's batch into `to` (D10).
   */
  #nudgeBranch(from: string, to: string): string {
    const declared = this.#scenario.components.find((c) => c.name === from);
    const gatingGroup = declared?.validated?.[to];
    if (gatingGroup !== undefined) return validatedBranch(to, gatingGroup);
    return nudgeBranch(to, from, declared?.simpleBranch ?? false);
  }

  /** The open nudge pull request `from` opened on `to`'s repository. */
  async #nudgePullRequest(
    from: string,
    to: string,
  ): Promise<{ repo: RepositoryRef; number: number; headBranch: string }> {
    const repo = this.#repos.get(to);
    const branch = this.#nudgeBranch(from, to);
    const pr = repo === undefined ? undefined : await pullRequestByHeadBranch(this.#env.sandboxForge, repo, branch);
    if (repo === undefined || pr?.state !== 'open') {
      throw new SandboxStepError(
        this.namespace,
        `no open nudge pull request from ${from} on ${to} (branch ${branch}) to act on` +
          (pr === undefined ? '' : `: #${String(pr.number)} is ${pr.state}`),
      );
    }
    return { repo, number: pr.number, headBranch: pr.headBranch };
  }

  async #humanCommit(
    repo: RepositoryRef,
    headBranch: string,
    files: Readonly<Record<string, string>> | undefined,
    message?: string,
  ): Promise<void> {
    const remote = this.#env.sandboxForge.humanRemote(repo);
    const checkout = await this.#workspaces.prepareBase(remote.url, headBranch, remote.credentials);
    const commit = await checkout.commitOnBase({
      files: Object.entries(files ?? { 'HUMAN.md': 'A change made by hand.\n' }).map(([path, text]) => ({
        path,
        text,
      })),
      message: message ?? 'A change made by hand',
      author: HUMAN,
    });
    await checkout.pushWithLease(headBranch, checkout.baseSha, commit);
  }

  async #removeNudgingComponent(changeGroup: string, component: string): Promise<void> {
    const object = await this.#changeGroup(changeGroup);
    const listed = (object.spec?.nudgingComponents ?? []).map((c) => c.name).filter((n) => n !== component);
    await this.#env.client.patch(CHANGE_GROUPS, this.namespace, changeGroup, 'merge', {
      metadata: { resourceVersion: object.metadata?.resourceVersion },
      spec: { nudgingComponents: listed.map((name) => ({ name })) },
    });
  }

  /**
   * Waits until every nudge has been executed or held, every ChangeGroup has caught up with its
   * spec and its pull request, and nothing has changed for a few polls in a row.
   */
  async settle(): Promise<void> {
    const timeoutMs = this.#options.settleTimeoutMs ?? 120_000;
    const deadline = Date.now() + timeoutMs;
    let previous = '';
    let quiet = 0;
    let detail = 'starting';
    while (Date.now() < deadline) {
      await this.#env.tekton.poll();
      await this.#env.pac.poll();
      const { signature, pending } = await this.#snapshot();
      detail = pending ?? 'still changing';
      quiet = signature === previous && pending === undefined ? quiet + 1 : 0;
      previous = signature;
      if (quiet >= QUIET_POLLS) return;
      await sleep(this.#env.pollIntervalMs);
    }
    throw new SandboxSettleError(this.namespace, timeoutMs, detail);
  }

  async #snapshot(): Promise<{ signature: string; pending: string | undefined }> {
    const { client, sandboxForge: forge } = this.#env;
    const runs = (
      await client.list<KubeObject & { status?: { conditions?: { type: string }[] } }>(PIPELINE_RUNS, {
        namespace: this.namespace,
      })
    ).items;
    const changeGroups = (await client.list<ChangeGroupObject>(CHANGE_GROUPS, { namespace: this.namespace })).items;
    const records =
      this.#validatedPairs.length === 0
        ? []
        : (
            await client.list<KubeObject & { data?: Record<string, string> }>(CONFIG_MAPS, {
              namespace: this.namespace,
              labelSelector: `${VALIDATED_RECORD_LABEL}=${VALIDATED_RECORD_LABEL_VALUE}`,
            })
          ).items;
    // Every pull request change and every push appends to the repository's event log, so its size
    // is the whole signature; only nudged repositories get pull requests.
    const heads: string[] = [];
    for (const component of this.#nudgedComponents) {
      const repo = this.#repos.get(component);
      if (repo === undefined) continue;
      const size = await stat(forge.eventLogPath(repo)).then(
        (info) => info.size,
        () => 0,
      );
      heads.push(`${component}:${String(size)}`);
    }
    const unfinished = runs.find((run) => !(run.status?.conditions ?? []).some((c) => c.type === 'Succeeded'));
    const lagging = changeGroups.find(
      (cg) =>
        cg.status?.observedGeneration !== cg.metadata?.generation &&
        !isTerminalPhase(cg.status?.phase ?? 'Initialized'),
    );
    const undispatched = this.#builds.find((build) => {
      if (this.#dispatchTargets(build.component).length === 0) return false;
      const run = runs.find((r) => r.metadata?.name === build.name);
      return !this.#settled(build, run?.metadata?.annotations?.[DISPATCH_MARKER_ANNOTATION]);
    });
    // A batch firing or waiting for its retry is under way (a failed or held one has ended for now).
    const firing = records.find((map) => batchUnderWay(map));
    const pending =
      firing !== undefined
        ? `the validated batch of ${firing.metadata?.name ?? ''} is under way`
        : unfinished !== undefined
          ? `PipelineRun ${unfinished.metadata?.name ?? ''} has not finished`
          : lagging !== undefined
            ? `ChangeGroup ${lagging.metadata?.name ?? ''} has not caught up with its spec`
            : undispatched !== undefined
              ? `build PipelineRun ${undispatched.name} has not been settled by nudger's dispatcher`
              : undefined;
    const signature = JSON.stringify([
      runs.map((r) => r.metadata?.resourceVersion),
      changeGroups.map((c) => c.metadata?.resourceVersion),
      records.map((r) => r.metadata?.resourceVersion),
      heads,
      this.#env.pac.buildCount(),
    ]);
    return { signature, pending };
  }

  /** What happened, in the shape of `--output json` (without the comparison). */
  async result(): Promise<SandboxResult> {
    const { sandboxForge: forge } = this.#env;
    const changeGroups: ChangeGroupResult[] = [];
    const heads = new Map<string, string>();
    for (const declared of this.#scenario.changeGroups) {
      const object = await this.#changeGroup(declared.name);
      const recorded = object.status?.pullRequest;
      const repo = this.#repos.get(object.spec?.nudgedComponent ?? '');
      let pullRequest: ChangeGroupResult['pullRequest'] = null;
      if (recorded !== undefined && repo !== undefined) {
        const pr = await pullRequestByNumber(forge, repo, recorded.number);
        pullRequest = {
          url: pr.url,
          state: pr.state,
          draft: pr.draft,
          headCommitMessage: await this.#commitMessage(repo, pr.headSha),
        };
        if (pr.state === 'open') heads.set(declared.nudgedComponent, pr.headSha);
      }
      changeGroups.push({
        name: declared.name,
        phase: object.status?.phase ?? null,
        pullRequest,
        components: (object.status?.components ?? []).map((c) => ({
          name: c.name,
          state: c.state,
          newBuild: c.newBuild ?? null,
        })),
      });
    }
    const builds: Record<string, number> = {};
    // Counted by repository: two scenarios in one sandbox may share component names.
    for (const component of this.#scenario.components) {
      builds[component.name] = this.#env.pac.builds.filter(
        (b) => b.repository === `${this.namespace}/${repositoryOwner(component)}` && b.component === component.name,
      ).length;
    }
    const files: Record<string, Record<string, string>> = {};
    const nudged = new Set(this.#scenario.components.flatMap((c) => c.nudges));
    for (const name of [...nudged].sort()) {
      const repo = this.#repos.get(name);
      if (repo === undefined) continue;
      const revision =
        heads.get(name) ??
        (await forge.branchHead(repo, this.#scenario.components.find((c) => c.name === name)?.gitRevision ?? 'main'));
      if (revision !== undefined) files[name] = await this.#files(repo, revision);
    }
    return { changeGroups, builds, files, pullRequests: await this.#pullRequests(), nudges: await this.#nudges() };
  }

  /** Every pull request on every repository of the scenario, by component in scenario order. */
  async #pullRequests(): Promise<RepositoryPullRequestResult[]> {
    const { sandboxForge: forge } = this.#env;
    const out: RepositoryPullRequestResult[] = [];
    // A monorepo's components share one repository: listed once, under the component owning it.
    for (const component of this.#scenario.components.filter((c) => c.repository === undefined)) {
      const repo = this.#repos.get(component.name);
      if (repo === undefined) continue;
      for (const pr of await forge.listPullRequests(repo)) {
        out.push({
          repository: component.name,
          url: pr.url,
          branch: pr.headBranch,
          group: this.#groupOf(pr.headBranch),
          title: pr.title,
          state: pr.state,
          draft: pr.draft,
          labels: [...pr.labels],
          headCommitMessage: await this.#commitMessage(repo, pr.headSha),
          commits: await forge.commitCount(repo, pr),
        });
      }
    }
    return out;
  }

  /** What nudger's dispatcher recorded on each build of this scenario, in build order. */
  async #nudges(): Promise<NudgeResult[]> {
    if (this.#scenario.nudgedBy !== 'nudger') return [];
    const urls = new Map<string, string | null>();
    for (const component of this.#scenario.components) {
      for (const to of immediateNudges(component)) {
        const repo = this.#repos.get(to);
        const pr =
          repo === undefined
            ? undefined
            : await pullRequestByHeadBranch(this.#env.sandboxForge, repo, this.#nudgeBranch(component.name, to));
        urls.set(`${component.name} ${to}`, pr?.url ?? null);
      }
    }
    const runs = (await this.#env.client.list(PIPELINE_RUNS, { namespace: this.namespace })).items;
    const executor = this.#scenario.executor ?? 'direct';
    const immediate = this.#builds.flatMap((build) => {
      const observed: ObservedBuild = {
        build: build.name,
        component: build.component,
        digest: build.succeeded ? build.digest : null,
        targets: this.#dispatchTargets(build.component),
        marker: runs.find((run) => run.metadata?.name === build.name)?.metadata?.annotations?.[
          DISPATCH_MARKER_ANNOTATION
        ],
      };
      return nudgesOfBuild(observed, executor, (from, to) => urls.get(`${from} ${to}`) ?? null);
    });
    return [...immediate, ...(await this.#validatedNudges(executor)), ...this.#pullRequestSteps.nudges];
  }

  /** `pullRequests[].group`: a `<group>@<target>` nudge branch's group, or a human PR branch's. */
  #groupOf(branch: string): string | null {
    const at = branch.indexOf('@');
    if (at > 0) return prGroupOf(branch) ?? null;
    return this.#pullRequestSteps.isHumanBranch(branch) ? (prGroupOf(branch) ?? null) : null;
  }

  /** What each passing Snapshot moved, in step order, then by target and scenario order. */
  async #validatedNudges(executor: DispatchExecutor): Promise<NudgeResult[]> {
    const urls = new Map<string, string | null>();
    for (const pair of this.#validatedPairs) {
      const repo = this.#repos.get(pair.target);
      const branch = validatedBranch(pair.target, pair.group);
      const pr = repo === undefined ? undefined : await pullRequestByHeadBranch(this.#env.sandboxForge, repo, branch);
      urls.set(branch, pr?.url ?? null);
    }
    const bySnapshot = new Map<string, ValidatedNudgeFact[]>();
    for (const fact of this.#validatedFacts)
      bySnapshot.set(fact.snapshot, [...(bySnapshot.get(fact.snapshot) ?? []), fact]);
    return [...bySnapshot.values()].flatMap((facts) =>
      facts
        .sort((a, b) => compareStrings(a.pair.target, b.pair.target))
        .map((fact) => {
          // The build that made the digest: the newest of its component with that digest.
          const build = this.#builds.findLast(
            (b) => b.component === fact.entry.from && b.succeeded && b.digest === fact.entry.digest,
          );
          const url = urls.get(validatedBranch(fact.pair.target, fact.pair.group)) ?? null;
          return validatedNudgeResult(fact, build?.name ?? fact.snapshot, executor, url);
        }),
    );
  }

  async #commitMessage(repo: RepositoryRef, sha: string): Promise<string> {
    const run = localGitRun(this.#env.sandboxForge.gitDirectory(repo));
    return (await run('log', ['log', '-1', '--format=%B', sha])).replace(/\n+$/, '');
  }

  async #files(repo: RepositoryRef, revision: string): Promise<Record<string, string>> {
    const run = localGitRun(this.#env.sandboxForge.gitDirectory(repo));
    const paths = (await run('ls-tree', ['ls-tree', '-r', '-z', '--name-only', revision]))
      .split('\0')
      .filter((p) => p !== '');
    const files: Record<string, string> = {};
    for (const path of paths) files[path] = await run('show', ['show', `${revision}:${path}`]);
    return files;
  }
}
