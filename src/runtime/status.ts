// Writes that race with other writers: status updates and finalizers. Each is read-fresh →
// change → compare-and-swap on resourceVersion, retried on 409 Conflict with a short backoff.
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import { isConflict, isNotFound } from '../adapters/kubernetes/errors.ts';
import type { KubeObject, ResourceRef } from '../adapters/kubernetes/types.ts';
import { sleep, systemClock, type Clock } from './clock.ts';
import type { ObjectKey } from './reconciler.ts';

export interface ConflictRetryOptions {
  /** Attempts in total, including the first. */
  readonly maxAttempts?: number;
  /** Delay before the second attempt; doubles after each conflict. */
  readonly initialDelayMs?: number;
  readonly signal?: AbortSignal;
  readonly clock?: Clock;
  readonly fieldManager?: string;
}

/** Runs `attempt` until it does not throw a Conflict, up to `maxAttempts` times. */
export async function retryOnConflict<R>(attempt: () => Promise<R>, options: ConflictRetryOptions = {}): Promise<R> {
  const maxAttempts = Math.max(1, options.maxAttempts ?? 5);
  const clock = options.clock ?? systemClock;
  let delayMs = options.initialDelayMs ?? 10;
  for (let tried = 1; ; tried += 1) {
    try {
      return await attempt();
    } catch (error) {
      if (!isConflict(error) || tried >= maxAttempts || options.signal?.aborted === true) throw error;
    }
    await sleep(clock, delayMs, options.signal);
    delayMs *= 2;
  }
}

/**
 * Updates the `/status` subresource. `mutate` gets a private copy of the current object and returns
 * the object to write, or undefined when nothing needs to change (then nothing is written).
 * Resolves to the object as stored, or undefined when the object no longer exists.
 */
export async function updateStatus<T extends KubeObject>(
  client: ObjectClient,
  ref: ResourceRef,
  key: ObjectKey,
  mutate: (current: T) => T | undefined,
  options: ConflictRetryOptions = {},
): Promise<T | undefined> {
  const writeOptions = {
    ...(options.fieldManager === undefined ? {} : { fieldManager: options.fieldManager }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
  };
  try {
    return await retryOnConflict(async () => {
      const current = await client.get<T>(ref, key.namespace, key.name, options.signal);
      const desired = mutate(structuredClone(current));
      if (desired === undefined) return current;
      // The GET's resourceVersion makes the PUT a compare-and-swap.
      const guarded = {
        ...desired,
        metadata: { ...desired.metadata, resourceVersion: current.metadata?.resourceVersion },
      };
      return await client.replaceStatus<T>(ref, guarded, writeOptions);
    }, options);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

export function hasFinalizer(object: KubeObject, finalizer: string): boolean {
  return object.metadata?.finalizers?.includes(finalizer) === true;
}

/** Adds `finalizer` if missing. Resolves to the stored object (or `object` when nothing changed). */
export function addFinalizer<T extends KubeObject>(
  client: ObjectClient,
  ref: ResourceRef,
  object: T,
  finalizer: string,
  options: ConflictRetryOptions = {},
): Promise<T | undefined> {
  return patchFinalizers(client, ref, object, options, (finalizers) =>
    finalizers.includes(finalizer) ? undefined : [...finalizers, finalizer],
  );
}

/** Removes `finalizer` if present. Resolves to undefined when the object is gone (deletion finished). */
export function removeFinalizer<T extends KubeObject>(
  client: ObjectClient,
  ref: ResourceRef,
  object: T,
  finalizer: string,
  options: ConflictRetryOptions = {},
): Promise<T | undefined> {
  return patchFinalizers(client, ref, object, options, (finalizers) =>
    finalizers.includes(finalizer) ? finalizers.filter((name) => name !== finalizer) : undefined,
  );
}

/**
 * A merge patch that carries `metadata.resourceVersion` is a compare-and-swap: the server answers
 * 409 if the object moved on, so another controller's finalizer is never dropped. On conflict the
 * object is read again and the change recomputed.
 */
async function patchFinalizers<T extends KubeObject>(
  client: ObjectClient,
  ref: ResourceRef,
  object: T,
  options: ConflictRetryOptions,
  change: (finalizers: readonly string[]) => readonly string[] | undefined,
): Promise<T | undefined> {
  const namespace = object.metadata?.namespace ?? '';
  const name = object.metadata?.name ?? '';
  let current: T = object;
  let first = true;
  try {
    return await retryOnConflict(async () => {
      if (!first) current = await client.get<T>(ref, namespace, name, options.signal);
      first = false;
      const finalizers = change(current.metadata?.finalizers ?? []);
      if (finalizers === undefined) return current;
      return await client.patch<T>(
        ref,
        namespace,
        name,
        'merge',
        { metadata: { resourceVersion: current.metadata?.resourceVersion, finalizers } },
        {
          ...(options.fieldManager === undefined ? {} : { fieldManager: options.fieldManager }),
          ...(options.signal === undefined ? {} : { signal: options.signal }),
        },
      );
    }, options);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}
