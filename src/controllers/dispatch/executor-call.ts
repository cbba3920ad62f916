// What both dispatch reconcilers do around an executor (docs/decisions.md D9, N18, N27): pick the
// namespace's executor, bound the call by the fire timeout (so no fire outlives the lease other
// replicas grant a `firing` entry), time it, and turn a rejection, which the contract reserves for
// programming errors, into a failed attempt whose Event names only the error's class; its text,
// which could quote a response or a URL with credentials, goes to the manager's log alone,
// redacted by shape (describeError). Also the held-nudge record both create for a ChangeGroup (D2).
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { isAlreadyExists } from '../../adapters/kubernetes/errors.ts';
import { PIPELINE_RUNS } from '../../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import type { HeldNudgeRecord } from '../../domain/nudge/dispatch-held-record.ts';
import type { DispatchExecutor } from '../../domain/nudge/dispatch-intents.ts';
import { describeError, type RuntimeLogger } from '../../runtime/runtime-log.ts';
import type { FireOutcome, NudgeExecutor, NudgeExecutors } from './executor.ts';
import { EXECUTOR_ANNOTATION } from './inputs.ts';
import type { DispatchMetrics } from './metrics.ts';

export const DEFAULT_FIRE_TIMEOUT_MS = 5 * 60_000;

export interface ExecutorCall {
  readonly executors: NudgeExecutors;
  readonly executor: DispatchExecutor;
  readonly fireTimeoutMs?: number;
  readonly metrics?: DispatchMetrics;
  readonly logger: RuntimeLogger;
  /** For the log line of a rejection. */
  readonly controller: string;
  readonly key: string;
}

export async function callExecutor(
  call: ExecutorCall,
  fire: (executor: NudgeExecutor, signal: AbortSignal) => Promise<FireOutcome>,
  signal: AbortSignal,
): Promise<FireOutcome> {
  const executor = call.executors[call.executor];
  if (executor === undefined) {
    // Never silent: the record says failed:executor-unavailable and the Event says why.
    return {
      result: {
        ok: false,
        reason: 'executor-unavailable',
        message: `this nudger manager runs no ${call.executor} executor (see --nudge-executor and the NudgeConfig annotation ${EXECUTOR_ANNOTATION})`,
        permanent: true,
      },
    };
  }
  const stopTimer = call.metrics?.fireDuration.startTimer({ executor: call.executor });
  try {
    const deadline = AbortSignal.timeout(call.fireTimeoutMs ?? DEFAULT_FIRE_TIMEOUT_MS);
    return await fire(executor, AbortSignal.any([signal, deadline]));
  } catch (error) {
    call.logger.error(
      { controller: call.controller, executor: call.executor, key: call.key, error: describeError(error) },
      'executor rejected instead of classifying its failure',
    );
    const kind = error instanceof Error ? error.name : typeof error;
    return {
      result: {
        ok: false,
        reason: 'executor-error',
        message: `the ${call.executor} executor failed unexpectedly (${kind}); the manager's log has the details`,
      },
    };
  } finally {
    stopTimer?.();
  }
}

/**
 * Creates a held-nudge record: a PipelineRun cancelled at creation, so Tekton never runs it (the
 * Pipeline reference only satisfies Tekton's validation). Named from the build and the target, so
 * AlreadyExists means an earlier attempt made it.
 */
export async function createHeldRecord(
  client: ObjectClient,
  record: HeldNudgeRecord,
  fieldManager: string,
  signal: AbortSignal,
): Promise<void> {
  const run: KubeObject & { spec: Record<string, unknown> } = {
    apiVersion: `${PIPELINE_RUNS.group}/${PIPELINE_RUNS.version}`,
    kind: PIPELINE_RUNS.kind,
    metadata: {
      namespace: record.namespace,
      name: record.name,
      labels: { ...record.labels },
      annotations: { ...record.annotations },
    },
    spec: { status: 'Cancelled', pipelineRef: { name: 'nudger-held-nudge' } },
  };
  try {
    await client.create(PIPELINE_RUNS, run, { fieldManager, signal });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}
