// Pre-merge nudges (ADR 29 "PR Groups", docs/decisions.md D11, N35): for one namespace that opted in,
// each (PR group, target) pair is decided by the pure decidePreMerge
// (src/domain/nudge/pre-merge-decision.ts) from its pull-request builds, what the forge says of each
// triggering PR and the pair's record, and its step carried out by the `direct` executor's
// firePreMerge: the record says the attempt is under way before the executor is called (a
// compare-and-swap on the record ConfigMap), and what it did after. Pre-merge nudges are never
// held by a ChangeGroup: a ChangeGroup collects what merged, and a merged trigger's push build
// reaches it as any push build does.
import type { NamespaceWideConfigMaps } from '../../cluster/nudged-repository.ts';
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { mapWithConcurrency } from '../../domain/concurrency.ts';
import { NUDGE_CONFIG_NAME } from '../../domain/model.ts';
import { DEFAULT_DISPATCH_POLICY, type DispatchPolicy } from '../../domain/nudge/dispatch-policy.ts';
import type { FireResult } from '../../domain/nudge/dispatch.ts';
import {
  afterPreMergeFire,
  decidePreMerge,
  type ForgeReading,
  type PreMergeContent,
} from '../../domain/nudge/pre-merge-decision.ts';
import {
  preMergeRecordName,
  PRE_MERGE_RECORD_LABEL_VALUE,
  serializePreMergeRecord,
  triggerKey,
  type PreMergeRecord,
  type TriggerRecord,
} from '../../domain/nudge/pre-merge-record.ts';
import { fileMatchInForce } from '../../domain/nudge/renovate-settings.ts';
import type { ObjectKey, ReconcileResult, Reconciler } from '../../runtime/reconciler.ts';
import { describeError, silentLogger, type RuntimeLogger } from '../../runtime/runtime-log.ts';
import type { Store } from '../../runtime/store.ts';
import type { ClusterComponent } from '../../schema/component.ts';
import type { ClusterConfigMap } from '../../schema/config-map.ts';
import type { ClusterNudgeConfig } from '../../schema/nudgeconfig.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import type { ReleasePlanAdmission } from '../../schema/release-plan-admission.ts';
import { callExecutor, DEFAULT_FIRE_TIMEOUT_MS } from './executor-call.ts';
import type { FireOutcome, NudgeExecutors, PreMergeNudgeRequest, PreMergeTrigger } from './executor.ts';
import type { DispatchMetrics } from './metrics.ts';
import { OnceEvents, tellOrLog } from './once-events.ts';
import {
  PreMergeBuilds,
  preMergeEnabled,
  preMergePairs,
  preMergeRecordObject,
  readPreMergeRecord,
  type PreMergePair,
} from './pre-merge-inputs.ts';
import type { TriggerReader } from './pre-merge-triggers.ts';
import { RecordConflict, writeRecordConfigMap } from './record-config-maps.ts';
import { distributionRepositoriesOf, settingsInForce, type RequestSources } from './request.ts';
import { namespaceGraphOf } from './validated-inputs.ts';

export interface PreMergeReconcilerOptions {
  readonly client: ObjectClient;
  readonly components: Store<ClusterComponent>;
  readonly nudgeConfigs: Store<ClusterNudgeConfig>;
  /** Push builds (the dispatcher's cache): a merge commit's build replaces the pull-request build. */
  readonly builds: Store<PipelineRun>;
  readonly pullRequestBuilds: Store<PipelineRun>;
  readonly records: Store<ClusterConfigMap>;
  readonly releasePlanAdmissions?: Store<ReleasePlanAdmission>;
  /**
   * The namespace-wide Renovate ConfigMaps, cached (NAMESPACE_WIDE_RENOVATE_CONFIG_SELECTOR, N49);
   * absent: read by name on each fire.
   */
  readonly renovateConfigs?: NamespaceWideConfigMaps;
  readonly executors: NudgeExecutors;
  readonly triggers: TriggerReader;
  readonly policy?: DispatchPolicy;
  readonly metrics?: DispatchMetrics;
  readonly logger?: RuntimeLogger;
  readonly now?: () => number;
  readonly fireTimeoutMs?: number;
  /** How often the forge is asked again while a trigger may change; default 60 s. */
  readonly pollMs?: number;
  readonly conflictRetryMs?: number;
}

const FIELD_MANAGER = 'nudger-dispatch';
const EVENT_COMPONENT = 'nudger-dispatch';
const CLOCK_MARGIN_MS = 5_000;
const DEFAULT_POLL_MS = 60_000;
const DEFAULT_CONFLICT_RETRY_MS = 1000;
const PAIR_CONCURRENCY = 8;
/** Pre-merge nudges make draft PRs and manage their description: only `direct` can (D11). */
const PRE_MERGE_EXECUTOR = 'direct';

export const PRE_MERGE_REASONS = {
  fired: 'PreMergeNudgeFired',
  failed: 'PreMergeNudgeFailed',
  unreadable: 'PreMergeRecordUnreadable',
} as const;

/** The key every change of a namespace maps to: its NudgeConfig. */
export function preMergeKeyOf(namespace: string): ObjectKey {
  return { namespace, name: NUDGE_CONFIG_NAME };
}

interface PairOutcome {
  readonly wakeAt?: number;
  readonly conflict: boolean;
}

export class PreMergeReconciler implements Reconciler {
  readonly name = 'pre-merge-nudges';
  readonly #o: PreMergeReconcilerOptions;
  readonly #once: OnceEvents;
  readonly #logger: RuntimeLogger;
  readonly #now: () => number;
  readonly #sources: RequestSources;

  constructor(options: PreMergeReconcilerOptions) {
    this.#o = options;
    this.#sources = {
      client: options.client,
      components: options.components,
      ...(options.releasePlanAdmissions === undefined ? {} : { releasePlanAdmissions: options.releasePlanAdmissions }),
      ...(options.renovateConfigs === undefined ? {} : { renovateConfigs: options.renovateConfigs }),
    };
    this.#now = options.now ?? Date.now;
    this.#once = new OnceEvents(options.client, EVENT_COMPONENT, this.#now);
    this.#logger = options.logger ?? silentLogger;
  }

  async reconcile(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const namespace = key.namespace;
    const nudgeConfig = this.#o.nudgeConfigs.get(namespace, NUDGE_CONFIG_NAME);
    if (nudgeConfig === undefined || !preMergeEnabled(nudgeConfig)) return undefined;
    const graph = namespaceGraphOf(this.#o.components, namespace, nudgeConfig);
    const builds = new PreMergeBuilds(this.#o.pullRequestBuilds, this.#o.builds, this.#o.components, namespace);
    const pairs = preMergePairs(graph, builds, this.#o.records.list(namespace));
    const outcomes = await mapWithConcurrency(pairs, PAIR_CONCURRENCY, (pair) =>
      this.#pair(nudgeConfig, pair, builds, signal),
    );
    if (outcomes.some((outcome) => outcome.conflict)) {
      return { requeueAfterMs: this.#o.conflictRetryMs ?? DEFAULT_CONFLICT_RETRY_MS };
    }
    const wakeAt = Math.min(...outcomes.map((outcome) => outcome.wakeAt ?? Infinity));
    return Number.isFinite(wakeAt) ? { requeueAfterMs: Math.max(1, wakeAt - this.#now()) } : undefined;
  }

  async #pair(
    nudgeConfig: ClusterNudgeConfig,
    pair: PreMergePair,
    builds: PreMergeBuilds,
    signal: AbortSignal,
  ): Promise<PairOutcome> {
    const namespace = nudgeConfig.metadata?.namespace ?? '';
    let object = preMergeRecordObject(this.#o.records, namespace, pair);
    const reading = readPreMergeRecord(object, pair);
    if (!reading.ok) {
      await this.#tell(nudgeConfig, {
        type: 'Warning',
        reason: PRE_MERGE_REASONS.unreadable,
        message: `ConfigMap ${preMergeRecordName(pair.group, pair.target)} (pre-merge nudges of ${pair.target} for ${pair.group}): ${reading.problem}; nothing is nudged for this pair until it is repaired`,
        fact: ['pre-merge-unreadable', namespace, pair.group, pair.target, object?.metadata?.resourceVersion ?? ''],
      });
      return { conflict: false };
    }
    const policy = this.#o.policy ?? DEFAULT_DISPATCH_POLICY;
    try {
      const forge = await this.#readTriggers(namespace, reading.record, pair, signal);
      const decision = decidePreMerge({
        namespace,
        group: pair.group,
        target: pair.target,
        record: reading.record,
        builds: pair.builds,
        forge,
        pushBuild: (component, sha) => builds.push(component, sha),
        now: this.#now(),
        fireLeaseMs: (this.#o.fireTimeoutMs ?? DEFAULT_FIRE_TIMEOUT_MS) + CLOCK_MARGIN_MS,
        pollMs: this.#o.pollMs ?? DEFAULT_POLL_MS,
        policy,
      });
      object = await this.#write(nudgeConfig, pair, object, decision.record, signal);
      if (decision.step.kind === 'idle')
        return { conflict: false, ...(decision.step.wakeAt === undefined ? {} : { wakeAt: decision.step.wakeAt }) };
      const { content, attempt } = decision.step;
      const outcome = await this.#fire(nudgeConfig, pair, content, attempt, builds, signal);
      const after = afterPreMergeFire(decision.record, content, attempt, outcome.result, this.#now(), policy);
      await this.#write(nudgeConfig, pair, object, after, signal);
      this.#o.metrics?.nudges.inc({
        executor: PRE_MERGE_EXECUTOR,
        outcome: outcome.result.ok ? 'preMerge' : 'preMergeFailed',
      });
      await this.#report(nudgeConfig, pair, content, attempt, outcome);
      // The record's write wakes the namespace again (its cache event): the poll goes on from there.
      return { conflict: false };
    } catch (error) {
      if (error instanceof RecordConflict) return { conflict: true };
      throw error;
    }
  }

  /** What the forge says of each trigger now; a trigger it cannot tell about keeps its state. */
  async #readTriggers(
    namespace: string,
    record: PreMergeRecord,
    pair: PreMergePair,
    signal: AbortSignal,
  ): Promise<Map<string, ForgeReading>> {
    const known = new Map<string, { component: string; number: number; repoUrl: string }>();
    for (const trigger of Object.values(record.triggers))
      known.set(triggerKey(trigger.component, trigger.number), trigger);
    for (const build of pair.builds) known.set(triggerKey(build.component, build.number), build);
    const readings = new Map<string, ForgeReading>();
    for (const [key, trigger] of known) {
      const recorded = record.triggers[key];
      // Final states stay final: a closed PR reopened is a new build's business, which reopens it.
      if (recorded !== undefined && isSettled(recorded) && !rebuiltSince(pair, key, recorded)) continue;
      try {
        readings.set(key, await this.#o.triggers.read(namespace, trigger.repoUrl, trigger.number, signal));
      } catch (error) {
        this.#logger.warn(
          {
            controller: this.name,
            namespace,
            group: pair.group,
            pullRequest: trigger.number,
            error: describeError(error),
          },
          'could not read a triggering pull request; its last known state is kept',
        );
      }
    }
    return readings;
  }

  #write(
    nudgeConfig: ClusterNudgeConfig,
    pair: PreMergePair,
    object: ClusterConfigMap | undefined,
    record: PreMergeRecord,
    signal: AbortSignal,
  ): Promise<ClusterConfigMap> {
    return writeRecordConfigMap(
      this.#o.client,
      object,
      {
        nudgeConfig,
        name: preMergeRecordName(pair.group, pair.target),
        kind: PRE_MERGE_RECORD_LABEL_VALUE,
        group: pair.group,
        target: pair.target,
        text: serializePreMergeRecord(record),
        fieldManager: FIELD_MANAGER,
      },
      signal,
    );
  }

  async #fire(
    nudgeConfig: ClusterNudgeConfig,
    pair: PreMergePair,
    content: PreMergeContent,
    attempt: number,
    builds: PreMergeBuilds,
    signal: AbortSignal,
  ): Promise<FireOutcome> {
    const prepared = await this.#request(nudgeConfig, pair, content, attempt, builds, signal);
    if (!('triggers' in prepared)) return { result: prepared };
    const call = {
      executors: this.#o.executors,
      executor: PRE_MERGE_EXECUTOR,
      ...(this.#o.fireTimeoutMs === undefined ? {} : { fireTimeoutMs: this.#o.fireTimeoutMs }),
      ...(this.#o.metrics === undefined ? {} : { metrics: this.#o.metrics }),
      logger: this.#logger,
      controller: this.name,
      key: content.key,
    } as const;
    return callExecutor(
      call,
      (executor, bounded) =>
        executor.firePreMerge === undefined
          ? Promise.resolve({
              result: {
                ok: false,
                reason: 'executor-unavailable',
                message: `the ${executor.kind} executor makes no pre-merge nudges`,
                permanent: true,
              },
            })
          : executor.firePreMerge(prepared, bounded),
      signal,
    );
  }

  /** The nudge as the executor needs it, or the failure that ends the attempt instead. */
  async #request(
    nudgeConfig: ClusterNudgeConfig,
    pair: PreMergePair,
    content: PreMergeContent,
    attempt: number,
    builds: PreMergeBuilds,
    signal: AbortSignal,
  ): Promise<PreMergeNudgeRequest | Extract<FireResult, { ok: false }>> {
    const namespace = nudgeConfig.metadata?.namespace ?? '';
    const nudged = this.#o.components.get(namespace, pair.target);
    if (nudged === undefined) {
      return { ok: false, reason: 'target-not-found', message: `Component ${pair.target} is gone`, permanent: true };
    }
    const settings = await settingsInForce(this.#sources, namespace, nudged, signal);
    if (settings.kind === 'fail') return settings.result;
    const triggers: PreMergeTrigger[] = [];
    for (const { trigger, pin } of content.parts) {
      let image: PreMergeTrigger['image'];
      if (pin !== undefined) {
        const found = builds.named(pin.build.name);
        const nudging = this.#o.components.get(namespace, trigger.component);
        if (found === undefined || nudging === undefined) {
          return {
            ok: false,
            reason: 'build-not-found',
            message: `the ${pin.event} build ${pin.build.name} of ${trigger.component} (PR #${String(trigger.number)}) is gone or no longer verifies; a newer build replaces it`,
            permanent: true,
          };
        }
        image = {
          event: pin.event,
          build: found.build,
          buildRun: found.run,
          nudging,
          fileMatch: fileMatchInForce(settings.reading.settings, found.build.nudgeFiles),
          distributionRepositories: distributionRepositoriesOf(this.#sources, namespace, trigger.component),
        };
      }
      triggers.push({
        component: trigger.component,
        url: trigger.url ?? trigger.repoUrl,
        number: trigger.number,
        state: trigger.state,
        repoUrl: trigger.repoUrl,
        ...(trigger.sourceBranch === undefined && trigger.headSha === undefined
          ? {}
          : {
              head: {
                ...(trigger.sourceBranch === undefined ? {} : { branch: trigger.sourceBranch }),
                ...(trigger.headSha === undefined ? {} : { sha: trigger.headSha }),
              },
            }),
        ...(image === undefined ? {} : { image }),
      });
    }
    return {
      key: content.key,
      attempt,
      namespace,
      group: pair.group,
      nudged,
      settings: settings.reading.settings,
      settingProblems: settings.reading.problems,
      triggers,
      draft: content.draft,
      ...(content.close ? { close: { comment: closingComment(pair, content) } } : {}),
    };
  }

  async #report(
    nudgeConfig: ClusterNudgeConfig,
    pair: PreMergePair,
    content: PreMergeContent,
    attempt: number,
    outcome: FireOutcome,
  ): Promise<void> {
    const prs = content.parts
      .map(({ trigger }) => `${trigger.component}#${String(trigger.number)} (${trigger.state})`)
      .join(', ');
    const { result } = outcome;
    await this.#tell(
      nudgeConfig,
      result.ok
        ? {
            type: 'Normal',
            reason: PRE_MERGE_REASONS.fired,
            message: `pre-merge nudge of ${pair.target} for ${pair.group} ${content.close ? 'closed' : content.draft ? 'updated (draft)' : 'updated, ready for review'}: ${prs} (${result.detail ?? 'done'})`,
            fact: ['pre-merge-fired', pair.group, pair.target, content.key],
          }
        : {
            type: 'Warning',
            reason: PRE_MERGE_REASONS.failed,
            message: `pre-merge nudge of ${pair.target} for ${pair.group} (attempt ${String(attempt)}) failed: ${result.reason}: ${result.message}`,
            fact: ['pre-merge-failed', pair.group, pair.target, content.key, String(attempt)],
          },
    );
    for (const notice of outcome.notices ?? []) {
      await this.#tell(nudgeConfig, {
        ...notice,
        fact: ['pre-merge-notice', content.key, notice.reason, notice.message],
      });
    }
  }

  /** Telling is not an effect: a failure is logged and the steps carry on. */
  #tell(
    nudgeConfig: ClusterNudgeConfig,
    notice: { type: 'Normal' | 'Warning'; reason: string; message: string; fact: readonly string[] },
  ): Promise<void> {
    return tellOrLog(this.#once, this.#logger, this.name, nudgeConfig, notice.fact, notice);
  }
}

/** A newer pull-request build of the PR than the record's: it was pushed to (so reopened) since. */
function rebuiltSince(pair: PreMergePair, key: string, recorded: TriggerRecord): boolean {
  return pair.builds.some(
    (build) =>
      triggerKey(build.component, build.number) === key && build.build.createdAt > recorded.pullRequestBuild.createdAt,
  );
}

/** Merged and built, or closed: nothing more can change on the forge for this trigger. */
function isSettled(trigger: TriggerRecord): boolean {
  return trigger.state === 'closed' || (trigger.state === 'merged' && trigger.pushBuild !== undefined);
}

function closingComment(pair: PreMergePair, content: PreMergeContent): string {
  const prs = content.parts.map(({ trigger }) => `${trigger.component} #${String(trigger.number)}`).join(', ');
  return `Every pull request of group \`${pair.group}\` that nudged ${pair.target} was closed without being merged (${prs}), so there is nothing left to test here: nudger closes this pull request.`;
}
