// The dispatcher (ADR 67 "Nudging Flow", docs/decisions.md D9, N18, N22): for one build PipelineRun, read
// the caches, ask the pure decision (src/domain/nudge/dispatch.ts) and carry out its intents in
// order, stopping at the first that fails. Level-triggered: the marker on the build is the only
// memory, every marker write is a compare-and-swap on the resourceVersion the decision read (or
// the one this reconcile's previous write returned), and a Conflict means "decide again from what
// is observed", never "write anyway". So two replicas, or a stale cache, can decide the same
// thing twice, but only one of them gets its write-ahead entry in, and only that one fires.
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { isConflict, isNotFound } from '../../adapters/kubernetes/errors.ts';
import { PIPELINE_RUNS } from '../../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import { decodePipelineRun } from '../../domain/cluster-objects.ts';
import { NUDGE_CONFIG_NAME } from '../../domain/model.ts';
import { pipelineRunView } from '../../domain/nudge-pipelinerun.ts';
import {
  DISPATCH_EVENT_REASONS,
  type DispatchExecutor,
  type DispatchIntent,
  type EventIntent,
  type FireIntent,
  type HoldIntent,
  type ReportIntent,
} from '../../domain/nudge/dispatch-intents.ts';
import {
  DISPATCH_FINALIZER,
  DISPATCH_MARKER_ANNOTATION,
  isFinal,
  parseMarker,
  serializeMarker,
  stateOf,
  withEntries,
  type DispatchMarker,
  type MarkerEntry,
  type MarkerProblem,
} from '../../domain/nudge/dispatch-marker.ts';
import { skippedMessage } from '../../domain/nudge/dispatch-messages.ts';
import type { DispatchPolicy } from '../../domain/nudge/dispatch-policy.ts';
import { decideDispatch, releasesFinalizer, settleFire } from '../../domain/nudge/dispatch.ts';
import { mapWithConcurrency } from '../../domain/concurrency.ts';
import type { EventRecorder } from '../../runtime/events.ts';
import type { ObjectKey, ReconcileResult, Reconciler } from '../../runtime/reconciler.ts';
import { silentLogger, type RuntimeLogger } from '../../runtime/runtime-log.ts';
import { addFinalizer, removeFinalizer } from '../../runtime/status.ts';
import type { Store } from '../../runtime/store.ts';
import { COMPONENT_API_VERSION, COMPONENT_KIND } from '../../schema/component.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import type { ReleasePlanAdmission } from '../../schema/release-plan-admission.ts';
import type { FireOutcome, NudgeExecutors, NudgeRequest } from './executor.ts';
import type { NamespaceWideConfigMaps } from '../../cluster/nudged-repository.ts';
import { dispatchInputOf, executorChoice, EXECUTOR_ANNOTATION, type DispatchCaches } from './inputs.ts';
import type { DispatchMetrics } from './metrics.ts';
import { OnceEvents, tellOrLog } from './once-events.ts';
import { prepareFire } from './request.ts';
import { callExecutor, createHeldRecord, DEFAULT_FIRE_TIMEOUT_MS } from './executor-call.ts';

export { DEFAULT_FIRE_TIMEOUT_MS } from './executor-call.ts';

export interface DispatchReconcilerOptions extends DispatchCaches {
  readonly client: ObjectClient;
  /** The executors this manager runs; a namespace choosing one that is missing fails its fires. */
  readonly executors: NudgeExecutors;
  /** Used where the NudgeConfig has no `nudger.konflux-ci.dev/executor` annotation. */
  readonly defaultExecutor: DispatchExecutor;
  readonly releasePlanAdmissions?: Store<ReleasePlanAdmission>;
  /**
   * The namespace-wide Renovate ConfigMaps, cached (NAMESPACE_WIDE_RENOVATE_CONFIG_SELECTOR, N49);
   * absent: read by name on each fire.
   */
  readonly renovateConfigs?: NamespaceWideConfigMaps;
  readonly policy?: DispatchPolicy;
  readonly events?: Pick<EventRecorder, 'event'>;
  readonly metrics?: DispatchMetrics;
  readonly logger?: RuntimeLogger;
  /** Milliseconds since the epoch. */
  readonly now?: () => number;
  /** Wait before deciding again after a Conflict (the cache catches up meanwhile); default 1 s. */
  readonly conflictRetryMs?: number;
  /**
   * How long one fire may take before its signal aborts; a `firing` entry younger than this (plus
   * a margin for clocks) is another replica's fire in progress and is left alone. Default 5 min.
   */
  readonly fireTimeoutMs?: number;
}

const FIELD_MANAGER = 'nudger-dispatch';
const EVENT_COMPONENT = 'nudger-dispatch';
const DEFAULT_CONFLICT_RETRY_MS = 1000;
/** Replicas' clocks may disagree by this much; the marker's times are whole seconds besides. */
const CLOCK_MARGIN_MS = 5_000;
/** Fires of one build in flight at once: its targets are separate repositories. */
const FIRE_CONCURRENCY = 8;
/** Decisions per reconcile: the one made from the cache, and those made after fires settled. */
const MAX_DECISIONS = 4;

export const DISPATCH_NOTICE_REASONS = {
  duplicateEdge: 'DuplicateNudgeEdge',
  unreadableMarker: 'NudgeMarkerUnreadable',
  settingIgnored: 'NudgeSettingIgnored',
  unknownExecutor: 'UnknownNudgeExecutor',
} as const;

/**
 * A finalizer change carried by a marker write (docs/decisions.md N49): one compare-and-swap
 * instead of two, so the finalizer and the marker change together or not at all.
 */
type FinalizerChange = 'add' | 'remove' | undefined;

/** The whole finalizer list after `change`, or undefined when it stays as it is. */
function finalizersAfter(build: PipelineRun, change: FinalizerChange): string[] | undefined {
  if (change === undefined) return undefined;
  const finalizers = build.metadata?.finalizers ?? [];
  const has = finalizers.includes(DISPATCH_FINALIZER);
  if (change === 'add') return has ? undefined : [...finalizers, DISPATCH_FINALIZER];
  return has ? finalizers.filter((name) => name !== DISPATCH_FINALIZER) : undefined;
}

/** Ends the carrying out of a decision: the build is gone, or a compare-and-swap lost. */
class Stop extends Error {
  readonly requeue: boolean;
  constructor(requeue: boolean) {
    super(requeue ? 'compare-and-swap lost' : 'build gone');
    this.requeue = requeue;
  }
}

function markerOf(build: PipelineRun): DispatchMarker | undefined {
  const text = build.metadata?.annotations?.[DISPATCH_MARKER_ANNOTATION];
  if (text === undefined) return undefined;
  const reading = parseMarker(text);
  // Decisions never write over an unreadable marker (decideDispatch returns no write then).
  if (!reading.ok) throw new Error(`marker of ${build.metadata?.name ?? ''} unreadable: ${reading.problem.message}`);
  return reading.marker;
}

/** The API server's answer, read as the informer reads it. */
function decoded(object: unknown, fallback: PipelineRun): PipelineRun {
  const reading = decodePipelineRun(object);
  return reading.ok ? reading.object : fallback;
}

export class DispatchReconciler implements Reconciler {
  readonly name = 'dispatch';
  readonly #o: DispatchReconcilerOptions;
  readonly #once: OnceEvents;
  readonly #logger: RuntimeLogger;
  readonly #now: () => number;

  constructor(options: DispatchReconcilerOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#once = new OnceEvents(options.client, EVENT_COMPONENT, this.#now);
    this.#logger = options.logger ?? silentLogger;
  }

  async reconcile(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    let build = this.#o.builds.get(key.namespace, key.name);
    if (build === undefined) return undefined;
    const nudgeConfig = this.#o.nudgeConfigs.get(key.namespace, NUDGE_CONFIG_NAME);
    const choice = executorChoice(nudgeConfig, this.#o.defaultExecutor);
    let requeueAfterMs: number | undefined;
    try {
      for (let decisions = 0; decisions < MAX_DECISIONS; decisions += 1) {
        const now = this.#now();
        const leased = this.#fireInProgress(build, now);
        if (leased !== undefined) return { requeueAfterMs: leased };
        const decision = decideDispatch(dispatchInputOf(this.#o, build, choice.executor, now, this.#o.policy));
        if (decision.problem !== undefined) await this.#reportUnreadable(build, decision.problem);
        if (choice.unknown !== undefined && nudgeConfig !== undefined && decision.intents.some(isFire)) {
          await this.#tell(nudgeConfig, ['executor', nudgeConfig.metadata?.uid ?? '', choice.unknown], {
            type: 'Warning',
            reason: DISPATCH_NOTICE_REASONS.unknownExecutor,
            message: `annotation ${EXECUTOR_ANNOTATION} ${JSON.stringify(choice.unknown.slice(0, 64))} names no executor (direct, renovate); nudges of this namespace are fired by the ${choice.executor} executor`,
          });
        }
        if (decision.intents.length > 0) {
          // Names and kinds only: the intents' texts are for Events.
          this.#logger.debug(
            { controller: this.name, key, executor: choice.executor, intents: decision.intents.map((i) => i.kind) },
            'dispatch decision',
          );
        }
        const carried = await this.#carryOut(build, decision.intents, choice.executor, signal);
        build = carried.build;
        if (carried.requeueAfterMs !== undefined) requeueAfterMs = carried.requeueAfterMs;
        // After fires settle, decide again from the build as written (fresher than the cache):
        // that releases the finalizer once every target is final.
        if (!carried.fired) break;
      }
    } catch (error) {
      if (error instanceof Stop) return error.requeue ? { requeueAfterMs: this.#conflictRetryMs() } : undefined;
      throw error;
    }
    return requeueAfterMs === undefined ? undefined : { requeueAfterMs };
  }

  /**
   * How long until the youngest `firing` entry of `build` may be judged interrupted, or undefined
   * when there is none that young. This process never sees its own fire in progress (the work
   * queue hands a key to one worker at a time, and the result is written before the key is let
   * go), so a young `firing` entry is another replica's: a leader whose lease lapsed, or one
   * just elected while the old one finishes. Judging it interrupted at once would fire the
   * target again (idempotent by key, but an attempt lost) and make the two replicas take each
   * other's attempts until none are left. After a crash, the interrupted attempt is retried once
   * the timeout has passed instead of at once.
   */
  #fireInProgress(build: PipelineRun, now: number): number | undefined {
    const text = build.metadata?.annotations?.[DISPATCH_MARKER_ANNOTATION];
    const reading = text === undefined ? undefined : parseMarker(text);
    if (reading?.ok !== true) return undefined;
    const lease = (this.#o.fireTimeoutMs ?? DEFAULT_FIRE_TIMEOUT_MS) + CLOCK_MARGIN_MS;
    let wait: number | undefined;
    for (const { state } of reading.marker.entries) {
      if (state.kind !== 'firing') continue;
      const left = state.startedAt + lease - now;
      if (left > 0) wait = Math.max(wait ?? 0, left);
    }
    return wait;
  }

  #conflictRetryMs(): number {
    return this.#o.conflictRetryMs ?? DEFAULT_CONFLICT_RETRY_MS;
  }

  async #carryOut(
    start: PipelineRun,
    intents: readonly DispatchIntent[],
    executor: DispatchExecutor,
    signal: AbortSignal,
  ): Promise<{ build: PipelineRun; fired: boolean; requeueAfterMs?: number }> {
    let build = start;
    let fired = false;
    let requeueAfterMs: number | undefined;
    for (let index = 0; index < intents.length; index += 1) {
      const intent = intents[index];
      if (intent === undefined) break;
      switch (intent.kind) {
        case 'addFinalizer': {
          // The finalizer and the first marker entries in one write (N49): the effects after
          // them still wait for both.
          const next = intents[index + 1];
          if (next?.kind === 'recordOutcomes') {
            build = await this.#record(build, next.entries, executor, signal, 'add');
            index += 1;
          } else build = await this.#finalizer(build, intent.kind, signal);
          break;
        }
        case 'removeFinalizer':
          build = await this.#finalizer(build, intent.kind, signal);
          break;
        case 'recordOutcomes': {
          // The write that makes every entry final takes the finalizer off too (N49) when the
          // decision removes it next, with only notices in between: they are told after it.
          let release = index + 1;
          while (intents[release]?.kind === 'event' || intents[release]?.kind === 'report') release += 1;
          if (intents[release]?.kind === 'removeFinalizer') {
            build = await this.#record(build, intent.entries, executor, signal, 'remove');
            const notices = intents.slice(index + 1, release);
            for (const notice of notices) {
              if (notice.kind === 'event') this.#event(build, notice);
              else if (notice.kind === 'report') await this.#report(build, notice);
            }
            index = release;
          } else build = await this.#record(build, intent.entries, executor, signal);
          break;
        }
        case 'hold':
          await this.#hold(intent, signal);
          break;
        case 'fire': {
          // A build's targets are separate repositories: their fires run side by side (the
          // marker already says each is firing), and their results are written one after another
          // on the build as each write left it, so no write races another.
          const fires = [intent];
          for (let next = intents[index + 1]; next?.kind === 'fire'; next = intents[index + 1]) {
            fires.push(next);
            index += 1;
          }
          build = await this.#fireAll(build, fires, signal);
          fired = true;
          break;
        }
        case 'event':
          this.#event(build, intent);
          break;
        case 'report':
          await this.#report(build, intent);
          break;
        case 'scheduleRetry':
          requeueAfterMs = Math.min(requeueAfterMs ?? Infinity, Math.max(1, intent.afterMs));
          break;
      }
    }
    return { build, fired, ...(requeueAfterMs === undefined ? {} : { requeueAfterMs }) };
  }

  /** A compare-and-swap on `build`'s resourceVersion: one attempt, a Conflict stops the decision. */
  async #finalizer(
    build: PipelineRun,
    kind: 'addFinalizer' | 'removeFinalizer',
    signal: AbortSignal,
  ): Promise<PipelineRun> {
    const change = kind === 'addFinalizer' ? addFinalizer : removeFinalizer;
    const options = { maxAttempts: 1, signal, fieldManager: FIELD_MANAGER };
    const written = await change(this.#o.client, PIPELINE_RUNS, build, DISPATCH_FINALIZER, options).catch(
      (error: unknown) => {
        if (isConflict(error)) throw new Stop(true);
        throw error;
      },
    );
    if (written === undefined) throw new Stop(false);
    return decoded(written, build);
  }

  /**
   * Puts `entries` into the marker of `build` and writes it, guarded by `build`'s resourceVersion
   * (a merge patch carrying metadata.resourceVersion is a compare-and-swap: 409 if it moved).
   */
  async #writeMarker(
    build: PipelineRun,
    entries: readonly MarkerEntry[],
    executor: DispatchExecutor,
    signal: AbortSignal,
    finalizer?: FinalizerChange,
  ): Promise<PipelineRun> {
    const metadata = build.metadata ?? {};
    const before = markerOf(build);
    const after = withEntries(before, entries);
    // A merge patch replaces the whole list; the resourceVersion guard makes it exactly the list
    // it was computed from, so another controller's finalizer is never dropped.
    const finalizers = finalizersAfter(build, finalizer);
    const patch = {
      metadata: {
        resourceVersion: metadata.resourceVersion,
        annotations: { [DISPATCH_MARKER_ANNOTATION]: serializeMarker(after) },
        ...(finalizers === undefined ? {} : { finalizers }),
      },
    };
    let written: unknown;
    try {
      written = await this.#o.client.patch(
        PIPELINE_RUNS,
        metadata.namespace ?? '',
        metadata.name ?? '',
        'merge',
        patch,
        {
          fieldManager: FIELD_MANAGER,
          signal,
        },
      );
    } catch (error) {
      if (isNotFound(error)) throw new Stop(false);
      throw error;
    }
    this.#count(before, entries, executor);
    return decoded(written, build);
  }

  async #record(
    build: PipelineRun,
    entries: readonly MarkerEntry[],
    executor: DispatchExecutor,
    signal: AbortSignal,
    finalizer?: FinalizerChange,
  ): Promise<PipelineRun> {
    try {
      return await this.#writeMarker(build, entries, executor, signal, finalizer);
    } catch (error) {
      if (isConflict(error)) throw new Stop(true);
      throw error;
    }
  }

  /** Final outcomes and failed attempts, counted once the write that records them succeeded. */
  #count(before: DispatchMarker | undefined, entries: readonly MarkerEntry[], executor: DispatchExecutor): void {
    const metrics = this.#o.metrics;
    if (metrics === undefined) return;
    for (const { name, state } of entries) {
      const previous = stateOf(before, name);
      if (previous?.kind === 'firing' && (state.kind === 'retry' || state.kind === 'failed')) {
        metrics.failedAttempts.inc({ executor, reason: state.reason });
      }
      if (isFinal(state) && (previous === undefined || !isFinal(previous))) {
        metrics.nudges.inc({ executor, outcome: state.kind });
      }
    }
  }

  async #hold(intent: HoldIntent, signal: AbortSignal): Promise<void> {
    await createHeldRecord(this.#o.client, intent.record, FIELD_MANAGER, signal);
  }

  /**
   * Fires `fires` at most FIRE_CONCURRENCY at a time, then records every result that came back, in
   * intent order, before rethrowing the first failure of the controller's own (a Conflict, the API
   * server down): a result not written is found `firing` later and fired again with the same key,
   * which the executors make harmless, but each one written saves that wait.
   */
  async #fireAll(build: PipelineRun, fires: readonly FireIntent[], signal: AbortSignal): Promise<PipelineRun> {
    const done = await mapWithConcurrency(fires, FIRE_CONCURRENCY, (intent) =>
      this.#fire(build, intent, signal).then(
        (settled) => ({ ok: true as const, settled }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
    );
    let written = build;
    let failure: { error: unknown } | undefined;
    for (const [index, intent] of fires.entries()) {
      const outcome = done[index];
      if (outcome === undefined) continue;
      if (!outcome.ok) {
        failure ??= { error: outcome.error };
        continue;
      }
      written = await this.#recordFire(written, intent, outcome.settled, signal, index === fires.length - 1);
    }
    if (failure !== undefined) throw failure.error;
    return written;
  }

  /** What one fire did, as the intents that record it and the executor's notices; writes nothing. */
  async #fire(
    build: PipelineRun,
    intent: FireIntent,
    signal: AbortSignal,
  ): Promise<{ readonly settled: readonly DispatchIntent[]; readonly notices: FireOutcome['notices'] }> {
    const prepared = await prepareFire(this.#o, intent, build, signal);
    let settled: readonly DispatchIntent[];
    let notices: FireOutcome['notices'] = [];
    if (prepared.kind === 'skip') {
      const message = skippedMessage(
        { build: intent.build.pipelineRun, component: intent.build.component },
        intent.target,
        prepared.state.reason,
      );
      settled = [
        { kind: 'recordOutcomes', entries: [{ name: intent.target, state: prepared.state }] },
        this.#componentEvent(intent.build.component, 'Normal', DISPATCH_EVENT_REASONS.skipped, message),
      ];
    } else {
      let outcome: FireOutcome;
      if (prepared.kind === 'fail') outcome = { result: prepared.result };
      else {
        await this.#reportSettingProblems(prepared.request.nudged, prepared.request.settingProblems);
        outcome = await this.#callExecutor(intent, prepared.request, signal);
      }
      notices = outcome.notices ?? [];
      settled = settleFire(intent, outcome.result, this.#now(), this.#o.policy);
    }
    return { settled, notices };
  }

  /**
   * `last`: the last result of the decision's fires, whose write may also take the finalizer off
   * (releasesFinalizer, N49) instead of a decision after it doing so in a write of its own.
   */
  async #recordFire(
    build: PipelineRun,
    intent: FireIntent,
    { settled, notices }: { readonly settled: readonly DispatchIntent[]; readonly notices: FireOutcome['notices'] },
    signal: AbortSignal,
    last: boolean,
  ): Promise<PipelineRun> {
    let written = build;
    for (const next of settled) {
      if (next.kind === 'recordOutcomes') written = await this.#settle(written, intent, next.entries, signal, last);
      else if (next.kind === 'event') this.#event(written, next);
    }
    // The executor's own reports (a branch edited by a human, a setting its forge cannot honour).
    const nudging = this.#regarding(written, { kind: 'Component', name: intent.build.component });
    for (const notice of notices ?? []) {
      if (notice.once !== true) this.#o.events?.event(nudging, notice.type, notice.reason, notice.message);
      else await this.#tell(nudging, ['executor-notice', notice.reason, notice.message], notice);
    }
    return written;
  }

  #callExecutor(intent: FireIntent, request: NudgeRequest, signal: AbortSignal): Promise<FireOutcome> {
    const call = {
      executors: this.#o.executors,
      executor: intent.executor,
      ...(this.#o.fireTimeoutMs === undefined ? {} : { fireTimeoutMs: this.#o.fireTimeoutMs }),
      ...(this.#o.metrics === undefined ? {} : { metrics: this.#o.metrics }),
      logger: this.#logger,
      controller: this.name,
      key: intent.key,
    };
    return callExecutor(call, (executor, bounded) => executor.fire(request, bounded), signal);
  }

  /**
   * The write that records a fire's result. It is guarded like every marker write, but a Conflict
   * here is usually someone else's annotation (Tekton Chains signs finished runs): the build is
   * read again and, if the entry is still the `firing` this reconcile wrote, the result is written
   * on top of what it reads. If the entry moved on, another decision owns it; deciding again
   * counts this attempt as interrupted, and the fire is retried with the same idempotency key.
   */
  async #settle(
    build: PipelineRun,
    intent: FireIntent,
    entries: readonly MarkerEntry[],
    signal: AbortSignal,
    mayRelease: boolean,
  ): Promise<PipelineRun> {
    const release = (on: PipelineRun): FinalizerChange =>
      mayRelease && releasesFinalizer(withEntries(markerOf(on), entries)) ? 'remove' : undefined;
    try {
      return await this.#writeMarker(build, entries, intent.executor, signal, release(build));
    } catch (error) {
      if (!isConflict(error)) throw error;
    }
    const metadata = build.metadata ?? {};
    let fresh: PipelineRun;
    try {
      fresh = decoded(
        await this.#o.client.get<KubeObject>(PIPELINE_RUNS, metadata.namespace ?? '', metadata.name ?? '', signal),
        build,
      );
    } catch (error) {
      if (isNotFound(error)) throw new Stop(false);
      throw error;
    }
    const ours = stateOf(markerOf(build), intent.target);
    const reading = parseMarker(fresh.metadata?.annotations?.[DISPATCH_MARKER_ANNOTATION] ?? '');
    const theirs = reading.ok ? stateOf(reading.marker, intent.target) : undefined;
    if (ours === undefined || JSON.stringify(ours) !== JSON.stringify(theirs)) throw new Stop(true);
    return this.#record(fresh, entries, intent.executor, signal, release(fresh));
  }

  #componentEvent(
    name: string,
    type: EventIntent['type'],
    reason: EventIntent['reason'],
    message: string,
  ): EventIntent {
    return { kind: 'event', regarding: { kind: 'Component', name }, type, reason, message };
  }

  /** The object an Event is about: from the cache, else a reference the API server accepts. */
  #regarding(build: PipelineRun, regarding: EventIntent['regarding']): KubeObject {
    const namespace = build.metadata?.namespace ?? '';
    if (regarding.kind === 'PipelineRun') {
      if (regarding.name === build.metadata?.name) return build;
      return { apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', metadata: { namespace, name: regarding.name } };
    }
    return (
      this.#o.components.get(namespace, regarding.name) ?? {
        apiVersion: COMPONENT_API_VERSION,
        kind: COMPONENT_KIND,
        metadata: { namespace, name: regarding.name },
      }
    );
  }

  #event(build: PipelineRun, intent: EventIntent): void {
    this.#o.events?.event(this.#regarding(build, intent.regarding), intent.type, intent.reason, intent.message);
  }

  /** Told once per edge (src/controllers/dispatch/once-events.ts), on the NudgeConfig. */
  async #report(build: PipelineRun, intent: ReportIntent): Promise<void> {
    const namespace = build.metadata?.namespace ?? '';
    const nudgeConfig = this.#o.nudgeConfigs.get(namespace, NUDGE_CONFIG_NAME);
    if (nudgeConfig === undefined) return;
    await this.#tell(nudgeConfig, [intent.finding, namespace, intent.from, intent.to], {
      type: 'Warning',
      reason: DISPATCH_NOTICE_REASONS.duplicateEdge,
      message:
        `the immediate entry ${intent.from} -> ${intent.to} is also declared in ${intent.declaredAt}: ` +
        `build-service nudges it too, so ${intent.to} may get two pull requests; remove it from build-nudges-ref`,
    });
  }

  /** Once per build resourceVersion: a repaired or edited marker is judged (and told) anew. */
  async #reportUnreadable(build: PipelineRun, problem: MarkerProblem): Promise<void> {
    const view = pipelineRunView(build);
    await this.#tell(build, ['unreadable-marker', view.uid ?? view.name, build.metadata?.resourceVersion ?? ''], {
      type: 'Warning',
      reason: DISPATCH_NOTICE_REASONS.unreadableMarker,
      message:
        `annotation ${problem.annotation}: ${problem.message}; nothing is nudged from this build until it is ` +
        'repaired (removing the annotation nudges every target again)',
    });
  }

  /**
   * Each ConfigMap value ignored (docs/decisions.md N15), told once on the nudged Component. Keyed
   * by the ConfigMap, the key and the message (which quotes the value), not by resourceVersion:
   * an edit that leaves the value as it was is not a new problem, and a new value is.
   */
  async #reportSettingProblems(
    nudged: KubeObject,
    problems: readonly { readonly configMap: string; readonly key: string; readonly message: string }[],
  ): Promise<void> {
    const namespace = nudged.metadata?.namespace ?? '';
    for (const problem of problems) {
      await this.#tell(nudged, ['renovate-setting', namespace, problem.configMap, problem.key, problem.message], {
        type: 'Warning',
        reason: DISPATCH_NOTICE_REASONS.settingIgnored,
        message: problem.message,
      });
    }
  }

  /** Telling is not an effect: a failure is logged and the decision carries on. */
  #tell(object: KubeObject, fact: readonly string[], event: Parameters<OnceEvents['tell']>[2]): Promise<void> {
    return tellOrLog(this.#once, this.#logger, this.name, object, fact, event);
  }
}

function isFire(intent: DispatchIntent): boolean {
  return intent.kind === 'fire';
}
