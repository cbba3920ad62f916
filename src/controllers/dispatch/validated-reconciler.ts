// Validated nudges (ADR 67 "Validated Mode", docs/decisions.md D10, N27): for one namespace, each
// (gating group, target) pair of its NudgeConfig's validated entries is decided by the pure
// decideValidated (src/domain/nudge/validated-decision.ts) and its step carried out. The pair's
// record ConfigMap is the only memory; every write of it is a compare-and-swap on the
// resourceVersion read (or the one this reconcile's previous write returned), and a Conflict means
// "decide again from what is observed". The record says a batch is firing before the executor is
// called, so a crash in between fires the same content, with the same key, once the lease is over.
import type { NamespaceWideConfigMaps } from '../../cluster/nudged-repository.ts';
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import { mapWithConcurrency } from '../../domain/concurrency.ts';
import { NUDGE_CONFIG_NAME } from '../../domain/model.ts';
import { heldNudgeRecord } from '../../domain/nudge/dispatch-held-record.ts';
import type { DispatchExecutor } from '../../domain/nudge/dispatch-intents.ts';
import { DEFAULT_DISPATCH_POLICY, type DispatchPolicy } from '../../domain/nudge/dispatch-policy.ts';
import { fileMatchInForce } from '../../domain/nudge/renovate-settings.ts';
import {
  afterFire,
  afterHold,
  decideValidated,
  VALIDATED_REASONS,
  type BatchEntry,
  type ValidatedNotice,
  type ValidatedStep,
} from '../../domain/nudge/validated-decision.ts';
import {
  MAX_RECORD_TEXT_BYTES,
  serializeValidatedRecord,
  validatedRecordBytes,
  validatedRecordName,
  VALIDATED_RECORD_LABEL_VALUE,
  type NudgedDigest,
  type ValidatedRecord,
} from '../../domain/nudge/validated-record.ts';
import type { PassingSnapshot } from '../../domain/nudge/validated-snapshot.ts';
import type { FireResult } from '../../domain/nudge/dispatch.ts';
import type { ObjectKey, ReconcileResult, Reconciler } from '../../runtime/reconciler.ts';
import { silentLogger, type RuntimeLogger } from '../../runtime/runtime-log.ts';
import type { Store } from '../../runtime/store.ts';
import type { ClusterConfigMap } from '../../schema/config-map.ts';
import type { ClusterNudgeConfig } from '../../schema/nudgeconfig.ts';
import type { ReleasePlanAdmission } from '../../schema/release-plan-admission.ts';
import type { BatchNudgeRequest, FireOutcome, NudgeExecutors } from './executor.ts';
import { executorChoice } from './inputs.ts';
import type { DispatchMetrics } from './metrics.ts';
import { OnceEvents, tellOrLog } from './once-events.ts';
import { distributionRepositoriesOf, settingsInForce } from './request.ts';
import { RecordConflict, writeRecordConfigMap } from './record-config-maps.ts';
import { callExecutor, createHeldRecord, DEFAULT_FIRE_TIMEOUT_MS } from './executor-call.ts';
import {
  holderOf,
  namespaceGraphOf,
  passingSnapshotsByGroup,
  readRecord,
  recordObjectOf,
  releasedOf,
  validatedPairs,
  VerifiedBuilds,
  type ValidatedCaches,
  type ValidatedPair,
} from './validated-inputs.ts';

export interface ValidatedReconcilerOptions extends ValidatedCaches {
  readonly client: ObjectClient;
  readonly nudgeConfigs: Store<ClusterNudgeConfig>;
  readonly executors: NudgeExecutors;
  readonly defaultExecutor: DispatchExecutor;
  readonly releasePlanAdmissions?: Store<ReleasePlanAdmission>;
  /**
   * The namespace-wide Renovate ConfigMaps, cached (NAMESPACE_WIDE_RENOVATE_CONFIG_SELECTOR, N49);
   * absent: read by name on each fire.
   */
  readonly renovateConfigs?: NamespaceWideConfigMaps;
  readonly policy?: DispatchPolicy;
  readonly metrics?: DispatchMetrics;
  readonly logger?: RuntimeLogger;
  readonly now?: () => number;
  /** Wait before deciding again after a Conflict; default 1 s. */
  readonly conflictRetryMs?: number;
  /** How long one batch fire may take; a younger `firing` batch is left to its owner. Default 5 min. */
  readonly fireTimeoutMs?: number;
  /** After each reconcile of a namespace that has validated entries (the status writer). */
  readonly afterNamespace?: (context: ValidatedNamespaceView, signal: AbortSignal) => Promise<void>;
}

/** What one reconcile saw of a namespace: enough for the NudgeConfig's status. */
export interface ValidatedNamespaceView {
  readonly nudgeConfig: ClusterNudgeConfig;
  readonly graph: ReturnType<typeof namespaceGraphOf>;
  readonly records: ReadonlyMap<string, ValidatedRecord>;
  readonly newestBuildCreatedAt: (component: string) => number | undefined;
}

const FIELD_MANAGER = 'nudger-dispatch';
const EVENT_COMPONENT = 'nudger-dispatch';
const CLOCK_MARGIN_MS = 5_000;
const DEFAULT_CONFLICT_RETRY_MS = 1000;
/** Pairs carried out at once: their targets are separate repositories. */
const PAIR_CONCURRENCY = 8;
/** Steps per pair and reconcile: a hold, then a fire, then the decision that finds nothing due. */
const MAX_STEPS = 4;

/** The key every change of a namespace maps to: its NudgeConfig. */
export function validatedKeyOf(namespace: string): ObjectKey {
  return { namespace, name: NUDGE_CONFIG_NAME };
}

export class ValidatedReconciler implements Reconciler {
  readonly name = 'validated-nudges';
  readonly #o: ValidatedReconcilerOptions;
  readonly #once: OnceEvents;
  readonly #logger: RuntimeLogger;
  readonly #now: () => number;

  constructor(options: ValidatedReconcilerOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#once = new OnceEvents(options.client, EVENT_COMPONENT, this.#now);
    this.#logger = options.logger ?? silentLogger;
  }

  async reconcile(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const namespace = key.namespace;
    const nudgeConfig = this.#o.nudgeConfigs.get(namespace, NUDGE_CONFIG_NAME);
    if (nudgeConfig === undefined) return undefined;
    const graph = namespaceGraphOf(this.#o.components, namespace, nudgeConfig);
    const pairs = validatedPairs(graph);
    const snapshots = passingSnapshotsByGroup(this.#o.snapshots, namespace);
    const builds = new VerifiedBuilds(this.#o.builds, this.#o.components, namespace);
    const context: PairContext = {
      namespace,
      nudgeConfig,
      executor: executorChoice(nudgeConfig, this.#o.defaultExecutor).executor,
      builds,
    };
    const outcomes = await mapWithConcurrency(pairs, PAIR_CONCURRENCY, (pair) =>
      this.#pair(context, pair, snapshots.get(pair.group) ?? [], signal),
    );
    const records = new Map<string, ValidatedRecord>();
    let wakeAt: number | undefined;
    let conflict = false;
    for (const [index, pair] of pairs.entries()) {
      const outcome = outcomes[index];
      if (outcome === undefined) continue;
      if (outcome.record !== undefined) records.set(`${pair.group}\u0000${pair.target}`, outcome.record);
      if (outcome.wakeAt !== undefined) wakeAt = Math.min(wakeAt ?? Infinity, outcome.wakeAt);
      conflict ||= outcome.conflict;
    }
    // A pair that lost a compare-and-swap is decided again shortly; the status waits for it.
    if (conflict) return { requeueAfterMs: this.#o.conflictRetryMs ?? DEFAULT_CONFLICT_RETRY_MS };
    await this.#o.afterNamespace?.(
      { nudgeConfig, graph, records, newestBuildCreatedAt: (component) => builds.newestCreatedAt(component) },
      signal,
    );
    return wakeAt === undefined ? undefined : { requeueAfterMs: Math.max(1, wakeAt - this.#now()) };
  }

  async #pair(
    context: PairContext,
    pair: ValidatedPair,
    snapshots: readonly PassingSnapshot[],
    signal: AbortSignal,
  ): Promise<PairOutcome> {
    const { namespace } = context;
    let object = recordObjectOf(this.#o.records, namespace, pair);
    let last: ValidatedRecord | undefined;
    try {
      for (let steps = 0; steps < MAX_STEPS; steps += 1) {
        const reading = readRecord(object, pair);
        if (!reading.ok) {
          await this.#tell(context.nudgeConfig, {
            type: 'Warning',
            reason: VALIDATED_REASONS.unreadable,
            message: `ConfigMap ${validatedRecordName(pair.group, pair.target)} (validated nudges of ${pair.target} gated by ${pair.group}): ${reading.problem}; nothing is nudged for this pair until it is repaired (deleting it nudges the newest validated digests again)`,
            fact: ['validated-unreadable', namespace, pair.group, pair.target, object?.metadata?.resourceVersion ?? ''],
          });
          return { conflict: false };
        }
        last = reading.record;
        const now = this.#now();
        const decision = decideValidated({
          namespace,
          group: pair.group,
          target: pair.target,
          froms: pair.froms,
          snapshots,
          record: reading.record,
          verify: (component, image) => context.builds.verify(component, image),
          holder: holderOf(this.#o.changeGroups, namespace, pair.target),
          released: releasedOf(this.#o.nudgeRuns, namespace, pair.target),
          now,
          fireLeaseMs: (this.#o.fireTimeoutMs ?? DEFAULT_FIRE_TIMEOUT_MS) + CLOCK_MARGIN_MS,
          policy: this.#o.policy ?? DEFAULT_DISPATCH_POLICY,
        });
        await this.#tellAll(context.nudgeConfig, decision.notices);
        const step = decision.step;
        if (step.kind === 'idle') {
          if (step.record !== undefined) {
            object = await this.#write(context, pair, object, step.record, signal);
            last = step.record;
          }
          return { record: last, conflict: false, ...(step.wakeAt === undefined ? {} : { wakeAt: step.wakeAt }) };
        }
        const tooLarge = this.#tooLarge(step, now);
        if (tooLarge !== undefined) {
          // Refused before any effect: a record that cannot be written cannot say what was fired.
          await this.#tell(context.nudgeConfig, {
            type: 'Warning',
            reason: VALIDATED_REASONS.tooLarge,
            message: `validated nudges of ${pair.target} gated by ${pair.group}: ${String(step.entries.length)} components at once need a record of ${String(tooLarge)} bytes, more than a ConfigMap holds (${String(MAX_RECORD_TEXT_BYTES)}); nothing is nudged for this pair. Split the group's entries into smaller gating groups`,
            fact: ['validated-too-large', namespace, pair.group, pair.target, String(step.entries.length)],
          });
          return { record: last, conflict: false };
        }
        object = await this.#write(context, pair, object, step.record, signal);
        if (step.kind === 'hold') {
          const holds = await this.#hold(context, pair, step.changeGroup, step.entries, signal);
          const after = afterHold(step.record, holds);
          object = await this.#write(context, pair, object, after.record, signal);
          await this.#tellAll(context.nudgeConfig, after.notices);
          continue;
        }
        const outcome = await this.#fire(context, pair, step, signal);
        const after = afterFire(
          step.record,
          step,
          outcome.result,
          this.#now(),
          this.#o.policy ?? DEFAULT_DISPATCH_POLICY,
        );
        object = await this.#write(context, pair, object, after.record, signal);
        this.#o.metrics?.nudges.inc({
          executor: context.executor,
          outcome: outcome.result.ok ? 'validatedBatch' : 'validatedBatchFailed',
        });
        await this.#tellAll(context.nudgeConfig, after.notices);
        await this.#tellAll(
          context.nudgeConfig,
          (outcome.notices ?? []).map((notice) => ({
            ...notice,
            fact: notice.once === true ? ['executor-notice', notice.reason, notice.message] : [step.key, notice.reason],
          })),
        );
      }
    } catch (error) {
      if (error instanceof RecordConflict) return { conflict: true };
      throw error;
    }
    return { ...(last === undefined ? {} : { record: last }), conflict: false };
  }

  /**
   * The bytes of the larger of the records `step` leads to (the write-ahead one, the one after it
   * succeeds) when that is more than a ConfigMap holds; undefined when both fit.
   */
  #tooLarge(step: Exclude<ValidatedStep, { kind: 'idle' }>, now: number): number | undefined {
    const after =
      step.kind === 'fire'
        ? afterFire(step.record, step, { ok: true }, now, this.#o.policy ?? DEFAULT_DISPATCH_POLICY).record
        : afterHold(
            step.record,
            step.entries.map((entry) => ({
              entry,
              heldBy: {
                changeGroup: step.changeGroup,
                build: entry.build,
                ...(entry.buildUid === undefined ? {} : { buildUid: entry.buildUid }),
              },
            })),
          ).record;
    const bytes = Math.max(validatedRecordBytes(step.record), validatedRecordBytes(after));
    return bytes > MAX_RECORD_TEXT_BYTES ? bytes : undefined;
  }

  /** Creates or replaces the pair's record ConfigMap, guarded by the resourceVersion read. */
  #write(
    context: PairContext,
    pair: ValidatedPair,
    object: ClusterConfigMap | undefined,
    record: ValidatedRecord,
    signal: AbortSignal,
  ): Promise<ClusterConfigMap> {
    return writeRecordConfigMap(
      this.#o.client,
      object,
      {
        nudgeConfig: context.nudgeConfig,
        name: validatedRecordName(pair.group, pair.target),
        kind: VALIDATED_RECORD_LABEL_VALUE,
        group: pair.group,
        target: pair.target,
        text: serializeValidatedRecord(record),
        fieldManager: FIELD_MANAGER,
      },
      signal,
    );
  }

  /** One held-nudge record per entry, as the build dispatcher makes them (D2, N19). */
  async #hold(
    context: PairContext,
    pair: ValidatedPair,
    changeGroup: string,
    entries: readonly BatchEntry[],
    signal: AbortSignal,
  ): Promise<{ entry: BatchEntry; heldBy: NonNullable<NudgedDigest['heldBy']> }[]> {
    const holds: { entry: BatchEntry; heldBy: NonNullable<NudgedDigest['heldBy']> }[] = [];
    for (const entry of entries) {
      const build = {
        namespace: context.namespace,
        name: entry.build,
        ...(entry.buildUid === undefined ? {} : { uid: entry.buildUid }),
      };
      const imageUrl = context.builds.named(entry.component, entry.build)?.build.imageUrl;
      const record = heldNudgeRecord(build, entry.component, pair.target, changeGroup, imageUrl);
      await createHeldRecord(this.#o.client, record, FIELD_MANAGER, signal);
      holds.push({
        entry,
        heldBy: {
          changeGroup,
          build: entry.build,
          ...(entry.buildUid === undefined ? {} : { buildUid: entry.buildUid }),
        },
      });
    }
    return holds;
  }

  async #fire(context: PairContext, pair: ValidatedPair, step: FireStep, signal: AbortSignal): Promise<FireOutcome> {
    const prepared = await this.#request(context, pair, step, signal);
    if (!('entries' in prepared)) return { result: prepared };
    const call = {
      executors: this.#o.executors,
      executor: context.executor,
      ...(this.#o.fireTimeoutMs === undefined ? {} : { fireTimeoutMs: this.#o.fireTimeoutMs }),
      ...(this.#o.metrics === undefined ? {} : { metrics: this.#o.metrics }),
      logger: this.#logger,
      controller: this.name,
      key: step.key,
    };
    return callExecutor(call, (executor, bounded) => executor.fireBatch(prepared, bounded), signal);
  }

  /** The batch as the executor needs it, or the failure that ends the attempt instead. */
  async #request(
    context: PairContext,
    pair: ValidatedPair,
    step: FireStep,
    signal: AbortSignal,
  ): Promise<BatchNudgeRequest | Extract<FireResult, { ok: false }>> {
    const { namespace } = context;
    const nudged = this.#o.components.get(namespace, pair.target);
    if (nudged === undefined) {
      return { ok: false, reason: 'target-not-found', message: `Component ${pair.target} is gone`, permanent: true };
    }
    const settings = await settingsInForce(this.#o, namespace, nudged, signal);
    if (settings.kind === 'fail') return settings.result;
    const entries: BatchNudgeRequest['entries'][number][] = [];
    for (const entry of step.entries) {
      const found = context.builds.named(entry.component, entry.build);
      const nudging = this.#o.components.get(namespace, entry.component);
      if (found === undefined || nudging === undefined) {
        const missing = found === undefined ? `its build PipelineRun ${entry.build}` : `Component ${entry.component}`;
        return {
          ok: false,
          reason: 'build-not-found',
          message: `the validated digest of ${entry.component} cannot be nudged: ${missing} is gone or no longer verifies; a newer pass replaces this batch`,
          permanent: true,
        };
      }
      const previous = step.record.nudged.get(entry.component)?.digest;
      entries.push({
        snapshot: entry.snapshot,
        build: found.build,
        buildRun: found.run,
        nudging,
        fileMatch: fileMatchInForce(settings.reading.settings, found.build.nudgeFiles),
        distributionRepositories: distributionRepositoriesOf(this.#o, namespace, entry.component),
        ...(previous === undefined ? {} : { previousDigest: previous }),
      });
    }
    return {
      key: step.key,
      attempt: step.attempt,
      namespace,
      gatingGroup: pair.group,
      nudged,
      settings: settings.reading.settings,
      settingProblems: settings.reading.problems,
      entries,
    };
  }

  async #tellAll(
    nudgeConfig: ClusterNudgeConfig,
    notices: readonly (Omit<ValidatedNotice, 'fact'> & { fact: readonly string[] })[],
  ): Promise<void> {
    for (const notice of notices) await this.#tell(nudgeConfig, notice);
  }

  /** Telling is not an effect: a failure is logged and the steps carry on. */
  #tell(object: KubeObject, notice: ValidatedNotice): Promise<void> {
    return tellOrLog(this.#once, this.#logger, this.name, object, notice.fact, notice);
  }
}

type FireStep = Extract<ValidatedStep, { kind: 'fire' }>;

interface PairContext {
  readonly namespace: string;
  readonly nudgeConfig: ClusterNudgeConfig;
  readonly executor: DispatchExecutor;
  readonly builds: VerifiedBuilds;
}

interface PairOutcome {
  readonly record?: ValidatedRecord;
  readonly wakeAt?: number;
  readonly conflict: boolean;
}
