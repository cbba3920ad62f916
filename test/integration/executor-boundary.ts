// The executor boundary the dispatcher's integration tests count at (src/controllers/dispatch/executor.ts):
// effects by idempotency key, across managers (the "forge"), as the contract demands; calls count
// every fire. `hangNext` makes the next fire record its effect and then wait for the manager to be
// stopped under it: the process dies after the effect, before its result is recorded.
import type {
  BatchNudgeRequest,
  FireOutcome,
  NudgeExecutor,
  NudgeRequest,
} from '../../src/controllers/dispatch/executor.ts';

export class ExecutorBoundary {
  /** Immediate nudges, by key. */
  readonly effects = new Map<string, NudgeRequest>();
  readonly calls: NudgeRequest[] = [];
  /** Validated batches, by key. */
  readonly batchEffects = new Map<string, BatchNudgeRequest>();
  readonly batchCalls: BatchNudgeRequest[] = [];
  hangNext = false;
  effectRecorded: (() => void) | undefined;

  executor(): NudgeExecutor {
    return {
      kind: 'direct',
      fire: (request, signal) => this.#effect(this.effects, this.calls, request, signal),
      fireBatch: (request, signal) => this.#effect(this.batchEffects, this.batchCalls, request, signal),
    };
  }

  /** The distinct batches of a namespace, in the order they first happened. */
  batches(namespace: string): BatchNudgeRequest[] {
    return [...this.batchEffects.values()].filter((request) => request.namespace === namespace);
  }

  #effect<R extends { readonly key: string }>(
    effects: Map<string, R>,
    calls: R[],
    request: R,
    signal: AbortSignal | undefined,
  ): Promise<FireOutcome> {
    calls.push(request);
    if (!effects.has(request.key)) effects.set(request.key, request);
    if (!this.hangNext) return Promise.resolve({ result: { ok: true, detail: `pr-${request.key}` } });
    this.hangNext = false;
    this.effectRecorded?.();
    return new Promise((_resolve, reject) => {
      signal?.addEventListener('abort', () => {
        reject(new Error('stopped'));
      });
    });
  }
}
