// Events the dispatcher tells once per fact, not once per build or per reconcile: an edge that
// build-nudges-ref declares too (docs/decisions.md D9), a Renovate ConfigMap value ignored
// (docs/decisions.md N15), an unreadable marker (N18), an unknown executor annotation. "Once" must
// survive restarts and hold across replicas without memory, so the Event's name is derived from
// the fact (`<object>.<fingerprint>`) and created if absent: AlreadyExists means already told.
// Events expire (the API server's --event-ttl, 1 h by default), so a fact that stays true is told
// again at most once per TTL, and only when a build meets it again: a reminder, never a flood.
// Each process also remembers for a while what it told or found told, so a fact met on every
// nudge does not cost a create answered AlreadyExists on every nudge (docs/decisions.md N49).
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { isAlreadyExists } from '../../adapters/kubernetes/errors.ts';
import { CORE_EVENTS } from '../../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import { fingerprint } from '../../domain/changegroup/fingerprint.ts';
import { MAX_EVENT_MESSAGE_BYTES, truncateUtf8, type EventType } from '../../runtime/events.ts';
import { describeError, type RuntimeLogger } from '../../runtime/runtime-log.ts';

export interface OnceEvent {
  readonly type: EventType;
  readonly reason: string;
  readonly message: string;
}

/** `<object name, cut>.<fingerprint of the fact>`: a valid Event name, the same on every replica. */
export function onceEventName(object: KubeObject, fact: readonly string[]): string {
  return `${(object.metadata?.name ?? 'object').slice(0, 200)}.${fingerprint(fact)}`;
}

/**
 * How long a process does not ask again about a fact it told or found told: well under the
 * Events' default hour, so a reminder after the Event expired comes at most this much later.
 */
export const ONCE_MEMORY_MS = 10 * 60_000;
/** Facts remembered per process; the oldest are forgotten first (and then asked about again). */
const ONCE_MEMORY_SIZE = 4096;

export class OnceEvents {
  readonly #client: ObjectClient;
  readonly #component: string;
  readonly #now: () => number;
  /** `<namespace>/<Event name>` to when it was told or found told; Map order is the LRU order. */
  readonly #told = new Map<string, number>();

  constructor(client: ObjectClient, component: string, now: () => number = Date.now) {
    this.#client = client;
    this.#component = component;
    this.#now = now;
  }

  /**
   * Tells `event` about `object` unless an Event for `fact` exists. Resolves true when it was
   * written now, false when it was already there; rejects on any other API failure (the caller
   * decides whether that matters).
   */
  async tell(object: KubeObject, fact: readonly string[], event: OnceEvent): Promise<boolean> {
    const namespace = object.metadata?.namespace ?? 'default';
    const name = onceEventName(object, fact);
    const key = `${namespace}/${name}`;
    const now = this.#now();
    const toldAt = this.#told.get(key);
    if (toldAt !== undefined && now - toldAt >= 0 && now - toldAt < ONCE_MEMORY_MS) return false;
    const time = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
    const involvedObject = {
      ...(object.apiVersion === undefined ? {} : { apiVersion: object.apiVersion }),
      ...(object.kind === undefined ? {} : { kind: object.kind }),
      namespace,
      ...(object.metadata?.name === undefined ? {} : { name: object.metadata.name }),
      ...(object.metadata?.uid === undefined ? {} : { uid: object.metadata.uid }),
    };
    try {
      await this.#client.create(CORE_EVENTS, {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { namespace, name },
        involvedObject,
        reason: event.reason,
        message: truncateUtf8(event.message, MAX_EVENT_MESSAGE_BYTES),
        type: event.type,
        count: 1,
        firstTimestamp: time,
        lastTimestamp: time,
        source: { component: this.#component },
        reportingComponent: this.#component,
        reportingInstance: this.#component,
      } as KubeObject);
      this.#remember(key, now);
      return true;
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      this.#remember(key, now);
      return false;
    }
  }

  #remember(key: string, at: number): void {
    this.#told.delete(key);
    this.#told.set(key, at);
    if (this.#told.size > ONCE_MEMORY_SIZE) {
      const oldest = this.#told.keys().next();
      if (oldest.done !== true) this.#told.delete(oldest.value);
    }
  }
}

/**
 * OnceEvents.tell for a controller: telling is not an effect, so an API failure is logged (as the
 * controller's, with the Event's reason) and the caller carries on with its steps.
 */
export async function tellOrLog(
  once: OnceEvents,
  logger: RuntimeLogger,
  controller: string,
  object: KubeObject,
  fact: readonly string[],
  event: OnceEvent,
): Promise<void> {
  try {
    await once.tell(object, fact, event);
  } catch (error) {
    logger.warn({ controller, reason: event.reason, error: describeError(error) }, 'could not write event');
  }
}
