// The ChangeGroup controller (ADR 59, docs/decisions.md D2-D5). Each reconcile reads the ChangeGroup, the
// graph, the held nudges (their builds verified live, D3) and the pull request as the forge shows
// it, asks the pure state machine for the next status and intents, carries the intents out
// idempotently, and writes the status that records only what was confirmed. Nothing is counted
// between reconciles: a restart at any point recomputes the same intents and finds them done (D5).
import { isDeepStrictEqual } from 'node:util';
import type { ForgeResolver, ResolvedForge } from '../../adapters/forges/resolver.ts';
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { KubeApiError, isConflict } from '../../adapters/kubernetes/errors.ts';
import { CHANGE_GROUPS } from '../../adapters/kubernetes/resources.ts';
import type { GitIdentity, GitWorkspaces } from '../../adapters/git/workspace.ts';
import { parseTimeout } from '../../domain/changegroup/duration.ts';
import { isTerminalPhase } from '../../domain/changegroup/model.ts';
import type { ChangeGroupDocument } from '../../domain/changegroup/pull-request-content.ts';
import {
  reconcileChangeGroup,
  recordDescriptionUpdate,
  recordForgeAvailability,
  recordPullRequestPush,
  recordReadyForReview,
  type ChangeGroupIntent,
  type CollectedBuild,
  type PullRequestBuild,
} from '../../domain/changegroup/state.ts';
import type { NudgingComponentFacts } from '../../domain/changegroup/verify-build.ts';
import {
  distributionRepositories,
  resolveFileMatch,
  type FileMatchSources,
} from '../../domain/digest-rewrite/index.ts';
import type { ChangeGroupLink } from '../../domain/pr-description/index.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import type { ObjectKey, ReconcileResult, Reconciler } from '../../runtime/reconciler.ts';
import { TerminalError } from '../../runtime/reconciler.ts';
import { addFinalizer, hasFinalizer, removeFinalizer, updateStatus } from '../../runtime/status.ts';
import type { Store } from '../../runtime/store.ts';
import type { ChangeGroupSpec, ChangeGroupStatus, ClusterChangeGroup } from '../../schema/changegroup.ts';
import type { ClusterComponent } from '../../schema/component.ts';
import type { ClusterNudgeConfig } from '../../schema/nudgeconfig.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import type { ReleasePlanAdmission } from '../../schema/release-plan-admission.ts';
import { gitSourceOf, renovateConfigMapSources } from '../../cluster/nudged-repository.ts';
import { HELD_TARGETS_ANNOTATION, targetPairsOf } from '../../domain/changegroup/hold-decision.ts';
import { isFinalOutcome, markRun, RedispatchFailedError, releaseWholeRun, type Redispatcher } from '../redispatch.ts';
import { isDispatcherHeldRecord } from '../../domain/nudge/dispatch-release.ts';
import type { BuildVerifier } from './build-verifier.ts';
import { nudgingComponentFacts } from '../../cluster/nudged-repository.ts';
import { forgeFailureOf, forgeHostOf } from './forge-availability.ts';
import type { ChangeGroupMetrics } from './metrics.ts';
import { heldNudges, nudgingComponentsOf, promotedDigests, RELEASED_TARGETS_ANNOTATION } from './inputs.ts';
import {
  ensurePullRequest,
  markReadyForReview,
  observePullRequest,
  refreshDescription,
  type ObservedPullRequest,
} from './pull-request.ts';
import { formatObjectKey } from '../../domain/object-key.ts';

export interface ChangeGroupReconcilerOptions {
  readonly client: ObjectClient;
  readonly changeGroups: Store<ClusterChangeGroup>;
  readonly components: Store<ClusterComponent>;
  readonly nudgeConfigs: Store<ClusterNudgeConfig>;
  /** Nudge PipelineRuns (label-filtered informer). */
  readonly nudgeRuns: Store<PipelineRun>;
  /**
   * ReleasePlanAdmissions of the whole cluster (D6 distribution repositories); empty or absent
   * when their CRD is not installed, and then only build repositories are rewritten.
   */
  readonly releasePlanAdmissions?: Store<ReleasePlanAdmission>;
  readonly builds: BuildVerifier;
  readonly forges: ForgeResolver;
  readonly workspaces: GitWorkspaces;
  readonly bot: GitIdentity;
  readonly link: ChangeGroupLink;
  /** How often an open pull request is re-read for human actions (ticks, merges, commits). */
  readonly pollIntervalMs: number;
  readonly events?: Pick<EventRecorder, 'event'>;
  readonly metrics?: ChangeGroupMetrics;
  readonly clock?: () => Date;
  /**
   * The manager's executors, as the dispatcher fires through them: a released target of a
   * build-service or integration-service run is fired from its build (docs/decisions.md D2).
   * Absent (`--nudge-dispatch=false`): the run is released whole (docs/decisions.md N26).
   */
  readonly redispatcher?: Pick<Redispatcher, 'fire'>;
}

const FIELD_MANAGER = 'nudger-changegroup';
/** Held nudges are handed back before a ChangeGroup may disappear; see #finalize. */
export const RELEASE_HELD_NUDGES_FINALIZER = 'nudger.konflux-ci.dev/release-held-nudges';

/** Why a reconcile stopped short; reported on the ChangeGroup as a Warning event. */
export class ChangeGroupError extends Error {
  override readonly name = 'ChangeGroupError';
  readonly changeGroup: string;
  readonly reason: string;
  constructor(changeGroup: string, reason: string, message: string) {
    super(`ChangeGroup ${changeGroup}: ${message}`);
    this.changeGroup = changeGroup;
    this.reason = reason;
  }
}

export class ChangeGroupReconciler implements Reconciler {
  readonly name = 'changegroup';
  readonly #options: ChangeGroupReconcilerOptions;

  constructor(options: ChangeGroupReconcilerOptions) {
    this.#options = options;
  }

  async reconcile(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    // Decoded as it entered the cache: one that does not match its schema is not in it (the
    // informer reported it), so there is nothing to reconcile until it is fixed.
    const changeGroup = this.#options.changeGroups.get(key.namespace, key.name);
    if (changeGroup === undefined) return undefined;
    try {
      if (changeGroup.metadata?.deletionTimestamp !== undefined) {
        await this.#finalize(changeGroup, signal);
        return;
      }
      if (!hasFinalizer(changeGroup, RELEASE_HELD_NUDGES_FINALIZER)) {
        await addFinalizer(this.#options.client, CHANGE_GROUPS, changeGroup, RELEASE_HELD_NUDGES_FINALIZER, { signal });
      }
      return await this.#reconcile(changeGroup, key, signal);
    } catch (error) {
      if (!(error instanceof TerminalError) && !signal.aborted) {
        const message = error instanceof Error ? error.message : String(error);
        this.#options.events?.event(changeGroup, 'Warning', reasonOf(error), message);
        this.#options.metrics?.errors.inc({ reason: reasonOf(error) });
      }
      throw error;
    }
  }

  async #reconcile(
    changeGroup: ClusterChangeGroup,
    key: ObjectKey,
    signal: AbortSignal,
  ): Promise<ReconcileResult | undefined> {
    const o = this.#options;
    const now = o.clock?.() ?? new Date();
    const { spec } = changeGroup;
    const document: ChangeGroupDocument = {
      metadata: { name: key.name, namespace: key.namespace },
      spec,
      ...(changeGroup.status === undefined ? {} : { status: changeGroup.status }),
    };
    const nudged = o.components.get(key.namespace, spec.nudgedComponent);
    const phase = changeGroup.status?.phase;
    if (nudged === undefined && (phase === undefined || !isTerminalPhase(phase))) {
      throw new ChangeGroupError(
        formatObjectKey(key),
        'NudgedComponentNotFound',
        `spec.nudgedComponent: Component ${spec.nudgedComponent} does not exist`,
      );
    }
    const graph = nudgingComponentsOf(key.namespace, spec.nudgedComponent, o.nudgeConfigs, o.components);
    const listed = (spec.nudgingComponents ?? []).map((c) => c.name);
    const names = listed.length > 0 ? listed : graph;
    const nudges = heldNudges(o.nudgeRuns, {
      name: key.name,
      namespace: key.namespace,
      nudgedComponent: spec.nudgedComponent,
    });
    const verified = await o.builds.verifyAll(nudges, this.#componentOf, signal);
    const host = forgeHostOf(nudged === undefined ? undefined : gitSourceOf(nudged).url);
    const generation = changeGroup.metadata?.generation;
    let forge: ResolvedForge | undefined;
    let observed: ObservedPullRequest;
    try {
      forge = nudged === undefined ? undefined : await this.#forgeFor(nudged, key, signal);
      observed =
        forge === undefined
          ? { observation: { state: 'none' }, pullRequest: undefined, parsed: undefined }
          : await observePullRequest(forge, document, o.bot);
    } catch (error) {
      // Known weakness: without an observation the state machine cannot run (it would take "no
      // pull request" for the truth), so the rest of the status waits for the forge; this
      // condition at least says why.
      const failure = forgeFailureOf(error, host);
      if (failure !== undefined && !signal.aborted) {
        const noted = recordForgeAvailability(changeGroup.status ?? {}, failure, now, generation);
        await this.#writeStatus(changeGroup, noted, signal).catch((writeError: unknown) => {
          this.#options.events?.event(changeGroup, 'Warning', 'StatusWriteFailed', describe(writeError));
        });
      }
      throw error;
    }

    const result = reconcileChangeGroup({
      changeGroup: {
        metadata: {
          name: key.name,
          namespace: key.namespace,
          ...(changeGroup.metadata?.generation === undefined ? {} : { generation: changeGroup.metadata.generation }),
        },
        spec,
        ...(changeGroup.status === undefined ? {} : { status: changeGroup.status }),
      },
      now,
      graphNudgingComponents: graph,
      originalBuilds: promotedDigests(key.namespace, names, o.components),
      builds: verified.builds,
      rejectedBuilds: verified.rejected,
      pullRequest: observed.observation,
    });

    let status =
      forge === undefined ? result.status : recordForgeAvailability(result.status, { ok: true, host }, now, generation);
    let current = observed;
    try {
      for (const intent of result.intents) {
        if (intent.kind === 'fillNudgingComponents') {
          await this.#fillNudgingComponents(changeGroup, intent.names, signal);
          continue;
        }
        if (intent.kind === 'redispatchNudge') {
          await this.#release(changeGroup, intent, signal);
          continue;
        }
        if (forge === undefined || nudged === undefined) continue;
        const next = { ...document, status };
        if (intent.kind === 'markReadyForReview') {
          const pullRequest = await markReadyForReview(forge, current);
          if (pullRequest !== undefined) current = { ...current, pullRequest };
          status = recordReadyForReview(status);
        } else if (intent.kind === 'updateDescription') {
          await refreshDescription(next, current, { forge, link: o.link });
          status = recordDescriptionUpdate(status, intent.descriptionFingerprint);
        } else {
          const outcome = await ensurePullRequest(next, intent, current, {
            forge,
            workspaces: o.workspaces,
            bot: o.bot,
            link: o.link,
            baseBranch: gitSourceOf(nudged).revision,
            fileMatchOf: fileMatchOf(
              await renovateConfigMapSources(o.client, key.namespace, nudged, signal),
              verified.builds,
            ),
            distributionRepositoriesOf: (component) =>
              distributionRepositories(o.releasePlanAdmissions?.list() ?? [], key.namespace, component).repositories,
          });
          status = recordPullRequestPush(status, intent, outcome);
          if (outcome.pushed) {
            o.metrics?.pushes.inc({ final: String(intent.final) });
            o.events?.event(
              changeGroup,
              'Normal',
              intent.final ? 'FinalPush' : 'Pushed',
              `pushed ${String(intent.builds.length)} digest(s) to ${outcome.headBranch} for pull request ${outcome.url}`,
            );
          }
          if (outcome.unreferenced.length > 0) {
            o.events?.event(
              changeGroup,
              'Warning',
              'DigestNotReferenced',
              `the repository of ${spec.nudgedComponent} references no digest of ${outcome.unreferenced.join(', ')} (neither its build repository nor any distribution repository)`,
            );
          }
        }
      }
    } catch (error) {
      const failure = forgeFailureOf(error, host);
      if (failure !== undefined) status = recordForgeAvailability(status, failure, now, generation);
      throw error;
    } finally {
      // What was done is recorded even when a later intent failed, so the retry starts from there.
      await this.#writeStatus(changeGroup, status, signal);
    }
    return this.#requeue(status, spec, now);
  }

  /**
   * A ChangeGroup deleted while it holds nudges would otherwise take their builds with it: the
   * nudge PipelineRuns stay cancelled and nothing else would ever update the nudged repository.
   * Every held build that did not reach the pull request is handed back to ordinary nudging before
   * the finalizer lets the deletion finish. The pull request itself is left to humans.
   */
  async #finalize(changeGroup: ClusterChangeGroup, signal: AbortSignal): Promise<undefined> {
    if (!hasFinalizer(changeGroup, RELEASE_HELD_NUDGES_FINALIZER)) return undefined;
    const namespace = changeGroup.metadata?.namespace ?? '';
    const nudges = heldNudges(this.#options.nudgeRuns, {
      name: changeGroup.metadata?.name ?? '',
      namespace,
      nudgedComponent: changeGroup.spec.nudgedComponent,
    });
    const pushed = new Set((changeGroup.status?.pullRequest?.pushedBuilds ?? []).map((b) => `${b.name}@${b.digest}`));
    const { builds } = await this.#options.builds.verifyAll(nudges, this.#componentOf, signal);
    for (const build of builds) {
      if (pushed.has(`${build.component}@${build.digest}`)) continue;
      await this.#release(
        changeGroup,
        {
          kind: 'redispatchNudge',
          component: build.component,
          pipelineRun: build.nudgePipelineRun ?? build.pipelineRun,
        },
        signal,
      );
    }
    await removeFinalizer(this.#options.client, CHANGE_GROUPS, changeGroup, RELEASE_HELD_NUDGES_FINALIZER, { signal });
    return undefined;
  }

  readonly #componentOf = (namespace: string, name: string): NudgingComponentFacts | undefined =>
    nudgingComponentFacts(this.#options.components.get(namespace, name));

  async #forgeFor(nudged: ClusterComponent, key: ObjectKey, signal: AbortSignal): Promise<ResolvedForge> {
    const url = gitSourceOf(nudged).url;
    if (url === undefined) {
      throw new ChangeGroupError(
        formatObjectKey(key),
        'NoRepository',
        `Component ${nudged.metadata?.name ?? ''} has no spec.source.git.url`,
      );
    }
    return this.#options.forges.resolve(url, key.namespace, signal);
  }

  async #fillNudgingComponents(
    changeGroup: ClusterChangeGroup,
    names: readonly string[],
    signal: AbortSignal,
  ): Promise<void> {
    const metadata = changeGroup.metadata ?? {};
    // The resourceVersion makes this a compare-and-swap: a human edit in between wins.
    await this.#options.client
      .patch(
        CHANGE_GROUPS,
        metadata.namespace ?? '',
        metadata.name ?? '',
        'merge',
        {
          metadata: { resourceVersion: metadata.resourceVersion },
          spec: { nudgingComponents: names.map((name) => ({ name })) },
        },
        { fieldManager: FIELD_MANAGER, signal },
      )
      .catch((error: unknown) => {
        // 422: the `test` failed, the spec moved on; the next reconcile sees the new one.
        if (!isConflict(error) && !(error instanceof KubeApiError && error.statusCode === 422)) throw error;
      });
  }

  async #release(
    changeGroup: ClusterChangeGroup,
    intent: Extract<ChangeGroupIntent, { kind: 'redispatchNudge' }>,
    signal: AbortSignal,
  ): Promise<void> {
    const namespace = changeGroup.metadata?.namespace ?? '';
    const run = this.#options.nudgeRuns.get(namespace, intent.pipelineRun);
    if (run === undefined) {
      // Deleted meanwhile (or not yet in the cache): nothing left to copy. Said out loud, because
      // the digest of that build then reaches the nudged repository only with its next build.
      this.#options.events?.event(
        changeGroup,
        'Warning',
        'NudgeNotFound',
        `the held nudge ${intent.pipelineRun} of ${intent.component} could not be re-dispatched: it no longer exists`,
      );
      return;
    }
    const pair = `${changeGroup.spec.nudgedComponent}=${changeGroup.metadata?.name ?? ''}`;
    const released = (run.metadata?.annotations?.[RELEASED_TARGETS_ANNOTATION] ?? '')
      .split(/\s+/)
      .filter((p) => p !== '');
    const marker = { key: RELEASED_TARGETS_ANNOTATION, value: [...new Set([...released, pair])].sort().join(' ') };
    const what = `the nudge of ${changeGroup.spec.nudgedComponent} from ${intent.component} (${intent.pipelineRun}) is no longer collected`;
    const o = this.#options;
    if (isDispatcherHeldRecord(run)) {
      // nudger's dispatcher held it: the record has no Renovate run to copy; the dispatcher sees
      // the released pair and fires the target from its build, once (docs/decisions.md N19).
      await markRun(o.client, run, marker, signal);
      o.metrics?.nudgesReleased.inc();
      o.events?.event(changeGroup, 'Normal', 'NudgeReleased', `${what}; handed back to nudger's dispatcher`);
      return;
    }
    const target = changeGroup.spec.nudgedComponent;
    if (o.redispatcher !== undefined) {
      // The run cannot be trimmed to one target (docs/decisions.md D2): the target is fired from
      // its build with the dispatcher's key, and the released pair is written only after, so a
      // crash in between fires again with the same key instead of losing the nudge.
      const outcome = await o.redispatcher.fire(run, target, signal);
      if (!isFinalOutcome(outcome)) {
        throw new RedispatchFailedError(
          intent.pipelineRun,
          target,
          outcome.kind === 'failed' ? outcome.reason : '',
          what,
        );
      }
      await markRun(o.client, run, marker, signal);
      o.metrics?.nudgesReleased.inc();
      o.events?.event(changeGroup, 'Normal', 'NudgeReleased', `${what}; fired from its build (${outcome.kind})`);
      return;
    }
    // No executors: only the whole run can nudge, so it is released whole once no other
    // ChangeGroup holds a target of it, else it would bypass their holds (docs/decisions.md N26).
    const releasedNow = targetPairsOf(marker.value);
    const stillHeld = [...targetPairsOf(run.metadata?.annotations?.[HELD_TARGETS_ANNOTATION])].filter(
      (p) => !releasedNow.has(p),
    );
    if (stillHeld.length > 0) {
      await markRun(o.client, run, marker, signal);
      o.metrics?.nudgesReleased.inc();
      o.events?.event(
        changeGroup,
        'Warning',
        'NudgeReleaseWaiting',
        `${what}; nudger runs no executor (--nudge-dispatch=false), so the whole run is released once ${stillHeld.join(', ')} release it too`,
      );
      return;
    }
    const copy = await releaseWholeRun(o.client, run, marker, signal);
    o.metrics?.nudgesReleased.inc();
    o.events?.event(changeGroup, 'Normal', 'NudgeReleased', `${what}; re-dispatched whole as ${copy}`);
  }

  async #writeStatus(changeGroup: ClusterChangeGroup, status: ChangeGroupStatus, signal: AbortSignal): Promise<void> {
    if (isDeepStrictEqual(changeGroup.status ?? {}, status)) return;
    // Read-modify-write rather than a compare-and-swap on the cached version: this controller is
    // the only writer of status and never reconciles one key twice at once, while the cached
    // version may be stale from our own spec patch (fillNudgingComponents). Losing this write would
    // lose what was confirmed, such as the time each build was first seen.
    await updateStatus<ClusterChangeGroup>(
      this.#options.client,
      CHANGE_GROUPS,
      { namespace: changeGroup.metadata?.namespace ?? '', name: changeGroup.metadata?.name ?? '' },
      (current) => ({ ...current, status }),
      { fieldManager: FIELD_MANAGER, signal },
    );
    const phase = status.phase;
    if (phase !== undefined && phase !== changeGroup.status?.phase)
      this.#options.metrics?.phaseTransitions.inc({ phase });
  }

  #requeue(status: ChangeGroupStatus, spec: ChangeGroupSpec, now: Date): ReconcileResult | undefined {
    const phase = status.phase ?? 'Initialized';
    if (isTerminalPhase(phase)) return undefined;
    let after = this.#options.pollIntervalMs;
    const timeout = spec.timeout === undefined ? undefined : parseTimeout(spec.timeout);
    if (timeout?.ok === true && status.startTime !== undefined && phase !== 'Ready') {
      const remaining = Date.parse(status.startTime) + timeout.milliseconds - now.getTime();
      after = Math.max(0, Math.min(after, remaining + 1000));
    }
    return { requeueAfterMs: after };
  }
}

/**
 * D6 per build: the ConfigMap in force applies to every digest; without one, each build's own
 * `build-nudge-files` annotation (read when its nudge was verified), else the default.
 */
function fileMatchOf(
  sources: FileMatchSources,
  builds: readonly CollectedBuild[],
): (build: PullRequestBuild) => readonly string[] {
  const annotations = new Map(builds.map((b) => [`${b.component}@${b.digest}`, b.nudgeFiles]));
  return (build) => {
    const nudgeFiles = annotations.get(`${build.name}@${build.digest}`);
    return resolveFileMatch({
      ...sources,
      ...(nudgeFiles === undefined ? {} : { buildNudgeFilesAnnotation: nudgeFiles }),
    });
  };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function reasonOf(error: unknown): string {
  if (error instanceof ChangeGroupError) return error.reason;
  if (error instanceof Error) {
    if (error.name === 'ForgeError') return 'ForgeError';
    if (error.name === 'ForgeResolutionError') return 'NoForge';
    if (error.name === 'GitCommandError' || error.name === 'LeaseRejectedError') return 'GitError';
    if (error.name === 'BranchMovedError') return 'BranchMoved';
  }
  return 'ReconcileError';
}
