// The contract every nudger controller implements. Reconcilers are level-triggered: they get a key,
// not an event, read everything they need (from informer caches), make the world match, and are
// safe to run any number of times for the same key.
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import type { ObjectKey } from '../domain/object-key.ts';

/** `namespace` is `''` for cluster-scoped objects. */
export type { ObjectKey } from '../domain/object-key.ts';

export interface ReconcileResult {
  /** Reconcile this key again after this many ms, even if nothing changes (e.g. to poll). */
  readonly requeueAfterMs?: number;
}

export interface Reconciler {
  /** Controller name: metric label, log field and work-queue name. */
  readonly name: string;
  /**
   * Throw to retry with per-key backoff; throw a `TerminalError` for failures a retry cannot fix.
   * `signal` aborts on shutdown, loss of leadership, or the controller's reconcile timeout; the
   * key stays locked until the returned promise settles, so honour it.
   */
  reconcile(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult | undefined>;
}

/** A failure retrying cannot fix (bad user input, say): logged and counted, not requeued. */
export class TerminalError extends Error {
  override readonly name: string = 'TerminalError';
}

export function objectKeyOf(object: KubeObject): ObjectKey {
  return { namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '' };
}
