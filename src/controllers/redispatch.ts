// Handing held nudges back to ordinary nudging (ADR 29, docs/decisions.md D2). A Renovate nudge
// PipelineRun runs every config its ConfigMap holds, whatever its nudged-components annotation says,
// so it cannot be trimmed: a copy of it nudges every target again. The targets a partial hold leaves
// uncovered, and a target a ChangeGroup releases, are therefore fired one by one from the run's
// build through the manager's own executors (docs/decisions.md D9), with the dispatcher's idempotency
// key, so that a fire repeated after a crash (before the caller's marker) opens nothing twice.
// Without executors (`--nudge-dispatch=false`) a held run is released whole, as a copy of the whole
// run, and only once no other ChangeGroup holds a target of it (docs/decisions.md N26).
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import { describeTarget, isAlreadyExists, isNotFound, KubeApiError } from '../adapters/kubernetes/errors.ts';
import { PIPELINE_RUNS } from '../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import { nudgingComponentFacts } from '../cluster/nudged-repository.ts';
import { fingerprint } from '../domain/changegroup/fingerprint.ts';
import { REDISPATCHED_FROM_ANNOTATION } from '../domain/changegroup/hold-decision.ts';
import { buildNameProblem, verifyNudgeBuild } from '../domain/changegroup/verify-build.ts';
import { decodePipelineRun } from '../domain/cluster-objects.ts';
import { NUDGE_CONFIG_NAME } from '../domain/model.ts';
import { NUDGING_COMPONENT_ANNOTATION, nudgePipelineRunOf } from '../domain/nudge-pipelinerun.ts';
import type { DispatchExecutor, FireIntent } from '../domain/nudge/dispatch-intents.ts';
import { dispatchKey } from '../domain/nudge/dispatch-held-record.ts';
import { isDispatcherHeldRecord } from '../domain/nudge/dispatch-release.ts';
import type { EventRecorder } from '../runtime/events.ts';
import type { Store } from '../runtime/store.ts';
import { COMPONENT_API_VERSION, COMPONENT_KIND } from '../schema/component.ts';
import type { ClusterNudgeConfig } from '../schema/nudgeconfig.ts';
import type { PipelineRun } from '../schema/pipelinerun.ts';
import { managerExecutors } from './dispatch/default-executors.ts';
import type { ExecutorNotice, NudgeExecutors } from './dispatch/executor.ts';
import type { ControllerSettings } from './settings.ts';
import { executorChoice } from './dispatch/inputs.ts';
import { prepareFire, type RequestSources } from './dispatch/request.ts';

export { REDISPATCHED_FROM_ANNOTATION, REDISPATCHED_TARGETS_ANNOTATION } from '../domain/changegroup/hold-decision.ts';

const FIELD_MANAGER = 'nudger-redispatch';
const NAME_LIMIT = 63;
/** As the dispatcher bounds one fire (docs/decisions.md N22). */
const FIRE_TIMEOUT_MS = 5 * 60_000;

export const REDISPATCH_EVENT_REASONS = {
  /** On the nudging Component: a target fired from a held run's build. */
  fired: 'NudgeRedispatched',
  /** On the nudging Component: a fire failed; retried with backoff unless `permanent`. */
  failed: 'NudgeRedispatchFailed',
  /** On the nudging Component: nothing to fire (the build fails D3, a Component is gone). */
  skipped: 'NudgeRedispatchSkipped',
} as const;

/** What the re-dispatching controllers need to fire one target as the dispatcher would. */
export interface RedispatchOptions extends RequestSources {
  readonly nudgeConfigs: Store<ClusterNudgeConfig>;
  /** The manager's executors: the very instances the dispatcher fires through. */
  readonly executors: NudgeExecutors;
  readonly defaultExecutor: DispatchExecutor;
  readonly events?: Pick<EventRecorder, 'event'>;
  readonly fireTimeoutMs?: number;
}

export type RedispatchOutcome =
  | { readonly kind: 'fired'; readonly executor: DispatchExecutor; readonly detail?: string }
  /** Final: there is nothing to fire (the build is gone or fails D3, a Component is gone). */
  | { readonly kind: 'skipped'; readonly reason: string; readonly message: string }
  /** `permanent`: retrying cannot help, final; else the caller retries with backoff. */
  | { readonly kind: 'failed'; readonly reason: string; readonly message: string; readonly permanent: boolean };

/** A target whose fire failed and will be retried; the reconcile that met it retries with backoff. */
export class RedispatchFailedError extends Error {
  override readonly name = 'RedispatchFailedError';
  readonly pipelineRun: string;
  readonly target: string;
  readonly reason: string;
  constructor(pipelineRun: string, target: string, reason: string, message: string) {
    super(`re-dispatching ${target} from held nudge ${pipelineRun} failed (${reason}): ${message}`);
    this.pipelineRun = pipelineRun;
    this.target = target;
    this.reason = reason;
  }
}

/** Is the outcome final (the caller may write its marker)? A failure that will be retried is not. */
export function isFinalOutcome(outcome: RedispatchOutcome): boolean {
  return outcome.kind !== 'failed' || outcome.permanent;
}

/**
 * Fires single targets of a held Renovate nudge run from the run's build, through the namespace's
 * executor, with the request the dispatcher builds (prepareFire) and its key (dispatchKey).
 */
export class Redispatcher {
  readonly #o: RedispatchOptions;

  constructor(options: RedispatchOptions) {
    this.#o = options;
  }

  /**
   * Fires `target` from `run`'s build and tells the outcome as an Event on the nudging Component,
   * naming the target and the reason. Never throws for what the cluster or the forge can cause.
   */
  async fire(run: PipelineRun, target: string, signal: AbortSignal): Promise<RedispatchOutcome> {
    const outcome = await this.#fire(run, target, signal);
    const namespace = run.metadata?.namespace ?? '';
    const nudging = run.metadata?.annotations?.[NUDGING_COMPONENT_ANNOTATION]?.trim() ?? '';
    const regarding: KubeObject = this.#o.components.get(namespace, nudging) ?? {
      apiVersion: COMPONENT_API_VERSION,
      kind: COMPONENT_KIND,
      metadata: { namespace, name: nudging },
    };
    const from = `the nudge of ${target} held in ${run.metadata?.name ?? ''}`;
    if (outcome.kind === 'fired') {
      const where = outcome.detail === undefined ? '' : `: ${outcome.detail}`;
      this.#o.events?.event(
        regarding,
        'Normal',
        REDISPATCH_EVENT_REASONS.fired,
        `${from} fired by the ${outcome.executor} executor${where}`,
      );
    } else if (outcome.kind === 'skipped') {
      this.#o.events?.event(
        regarding,
        'Warning',
        REDISPATCH_EVENT_REASONS.skipped,
        `${from} not fired (${outcome.reason}): ${outcome.message}`,
      );
    } else {
      const next = outcome.permanent ? 'not retried' : 'retried with backoff';
      this.#o.events?.event(
        regarding,
        'Warning',
        REDISPATCH_EVENT_REASONS.failed,
        `${from} failed (${outcome.reason}), ${next}: ${outcome.message}`,
      );
    }
    return outcome;
  }

  async #fire(run: PipelineRun, target: string, signal: AbortSignal): Promise<RedispatchOutcome> {
    const reading = nudgePipelineRunOf(run);
    if (!reading.ok) return { kind: 'skipped', reason: reading.reason, message: reading.message };
    const nudge = reading.nudge;
    const refused = buildNameProblem(nudge);
    if (refused !== undefined && !refused.ok)
      return { kind: 'skipped', reason: refused.reason, message: refused.message };
    const namespace = nudge.namespace;
    let raw: unknown;
    try {
      raw = await this.#o.client.get(PIPELINE_RUNS, namespace, nudge.nudgingPipeline ?? '', signal);
    } catch (error) {
      if (!(error instanceof KubeApiError)) throw error;
      // A missing build fails D3 below (build-not-found); any other answer is the API server's.
      if (!isNotFound(error)) {
        const permanent = error.statusCode >= 400 && error.statusCode < 500 && error.statusCode !== 429;
        return {
          kind: 'failed',
          reason: 'build-unreadable',
          message: `${describeTarget(error.target)}: ${error.reason}`,
          permanent,
        };
      }
    }
    // D3, as for any held nudge: the build the run names, checked against the nudging Component.
    const facts = nudgingComponentFacts(this.#o.components.get(namespace, nudge.nudgingComponent));
    const verification = verifyNudgeBuild(nudge, raw, facts);
    if (!verification.ok) return { kind: 'skipped', reason: verification.reason, message: verification.message };
    const decoded = decodePipelineRun(raw);
    if (!decoded.ok)
      return { kind: 'skipped', reason: 'build-unreadable', message: 'the build PipelineRun does not decode' };
    const buildRun = decoded.object;
    const { ok: _ok, ...build } = verification;
    const choice = executorChoice(this.#o.nudgeConfigs.get(namespace, NUDGE_CONFIG_NAME), this.#o.defaultExecutor);
    const key = dispatchKey(
      {
        namespace,
        name: build.pipelineRun,
        ...(buildRun.metadata?.uid === undefined ? {} : { uid: buildRun.metadata.uid }),
      },
      target,
    );
    const intent: FireIntent = { kind: 'fire', target, executor: choice.executor, attempt: 1, key, build };
    const prepared = await prepareFire(this.#o, intent, buildRun, signal);
    if (prepared.kind === 'skip') {
      return { kind: 'skipped', reason: prepared.state.reason, message: `the Component it needs is not in the cache` };
    }
    if (prepared.kind === 'fail') {
      return {
        kind: 'failed',
        reason: prepared.result.reason,
        message: prepared.result.message,
        permanent: prepared.result.permanent === true,
      };
    }
    const request = { ...prepared.request, redispatchedFrom: run.metadata?.name ?? '' };
    const executor = this.#o.executors[choice.executor];
    if (executor === undefined) {
      return {
        kind: 'failed',
        reason: 'executor-unavailable',
        message: `this nudger manager runs no ${choice.executor} executor`,
        permanent: true,
      };
    }
    let notices: readonly ExecutorNotice[] = [];
    try {
      const deadline = AbortSignal.timeout(this.#o.fireTimeoutMs ?? FIRE_TIMEOUT_MS);
      const fired = await executor.fire(request, AbortSignal.any([signal, deadline]));
      notices = fired.notices ?? [];
      const result = fired.result;
      if (!result.ok) {
        return { kind: 'failed', reason: result.reason, message: result.message, permanent: result.permanent === true };
      }
      return {
        kind: 'fired',
        executor: choice.executor,
        ...(result.detail === undefined ? {} : { detail: result.detail }),
      };
    } catch (error) {
      // A rejection is a programming error (executor.ts); only its class is told, never its text.
      const kind = error instanceof Error ? error.name : typeof error;
      return {
        kind: 'failed',
        reason: 'executor-error',
        message: `the ${choice.executor} executor failed unexpectedly (${kind})`,
        permanent: false,
      };
    } finally {
      this.#tell(prepared.request.nudging, notices);
    }
  }

  #tell(nudging: KubeObject, notices: readonly ExecutorNotice[]): void {
    for (const notice of notices) this.#o.events?.event(nudging, notice.type, notice.reason, notice.message);
  }
}

/**
 * The manager's re-dispatcher over its shared executors (managerExecutors), or undefined when it
 * runs none (`--nudge-dispatch=false`; docs/decisions.md N26).
 */
export function managerRedispatcher(
  client: ObjectClient,
  settings: ControllerSettings,
  sources: Pick<RedispatchOptions, 'components' | 'nudgeConfigs' | 'releasePlanAdmissions' | 'events'>,
): Redispatcher | undefined {
  const executors = managerExecutors(client, settings);
  const defaultExecutor = settings.dispatch?.defaultExecutor;
  if (executors === undefined || defaultExecutor === undefined) return undefined;
  return new Redispatcher({ client, executors, defaultExecutor, ...sources });
}

/** Deterministic, DNS-1123, at most 63 characters: `<original, shortened>-rd-<hash of targets>`. */
export function redispatchName(original: string, targets: readonly string[]): string {
  const suffix = `-rd-${fingerprint([...targets].sort())}`;
  return `${original.slice(0, NAME_LIMIT - suffix.length).replace(/-+$/, '')}${suffix}`;
}

/** Every key nudger writes on nudge runs shares this prefix; the copy starts with none of them. */
const NUDGER_ANNOTATION_PREFIX = 'nudger.konflux-ci.dev/';

function withoutNudgerAnnotations(annotations: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(annotations).filter(
      ([key]) =>
        !key.startsWith(NUDGER_ANNOTATION_PREFIX) && key !== 'kubectl.kubernetes.io/last-applied-configuration',
    ),
  );
}

/** A copy was asked of a held-nudge record the dispatcher made: a programming error. */
export class NotCopyableError extends Error {
  readonly pipelineRun: string;
  constructor(pipelineRun: string) {
    super(
      `PipelineRun ${pipelineRun} is a held-nudge record of nudger's dispatcher, not a Renovate run: ` +
        'it is released for the dispatcher to fire (docs/decisions.md N19), never copied',
    );
    this.name = 'NotCopyableError';
    this.pipelineRun = pipelineRun;
  }
}

/**
 * The whole run again, uncancelled: same labels, annotations (nudger's left out) and spec. It nudges
 * every target the run's configs name, so it is made only when no target of the run is held any
 * more (docs/decisions.md N26). Named from the original and its nudged components.
 */
export function wholeRunCopy(original: PipelineRun): PipelineRun {
  const metadata = original.metadata ?? {};
  const name = metadata.name ?? '';
  // A record's spec is a stand-in: run as a copy, it would nudge nothing, and its target never.
  if (isDispatcherHeldRecord(original)) throw new NotCopyableError(`${metadata.namespace ?? ''}/${name}`);
  const targets = nudgePipelineRunOf(original);
  // Everything else of the spec is Tekton's and passes through as it came.
  const { status: _status, ...spec } = original.spec ?? {};
  return {
    apiVersion: original.apiVersion ?? `${PIPELINE_RUNS.group}/${PIPELINE_RUNS.version}`,
    kind: PIPELINE_RUNS.kind,
    metadata: {
      name: redispatchName(name, targets.ok ? targets.nudge.nudgedComponents : []),
      ...(metadata.namespace === undefined ? {} : { namespace: metadata.namespace }),
      labels: { ...(metadata.labels ?? {}) },
      annotations: { ...withoutNudgerAnnotations(metadata.annotations ?? {}), [REDISPATCHED_FROM_ANNOTATION]: name },
    },
    spec,
  };
}

/**
 * Creates the whole copy (or finds it already there) and then records `marker` on the original, so
 * the caller stops offering it. `marker` is the annotation key and value to merge onto the original.
 */
export async function releaseWholeRun(
  client: ObjectClient,
  original: PipelineRun,
  marker: { readonly key: string; readonly value: string },
  signal?: AbortSignal,
): Promise<string> {
  const copy = wholeRunCopy(original);
  try {
    await client.create(PIPELINE_RUNS, copy, {
      fieldManager: FIELD_MANAGER,
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
  await markRun(client, original, marker, signal);
  return copy.metadata?.name ?? '';
}

/**
 * Merges `marker` onto a held run: what a release or a re-dispatch records, written after its
 * effect, so that a crash in between repeats the effect (idempotent) rather than losing it.
 */
export async function markRun(
  client: ObjectClient,
  run: PipelineRun,
  marker: { readonly key: string; readonly value: string },
  signal?: AbortSignal,
): Promise<void> {
  await client.patch(
    PIPELINE_RUNS,
    run.metadata?.namespace ?? '',
    run.metadata?.name ?? '',
    'merge',
    { metadata: { annotations: { [marker.key]: marker.value } } },
    { fieldManager: FIELD_MANAGER, ...(signal === undefined ? {} : { signal }) },
  );
}
