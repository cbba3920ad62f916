// Events the dispatcher tells once per fact, not once per build or per reconcile: an edge that
// build-nudges-ref declares too (docs/decisions.md D9), a Renovate ConfigMap value ignored
// (docs/decisions.md N15), an unreadable marker (N18), an unknown executor annotation. "Once" must
// survive restarts and hold across replicas without memory, so the Event's name is derived from
// the fact (`<object>.<fingerprint>`) and created if absent: AlreadyExists means already told.
// Events expire (the API server's --event-ttl, 1 h by default), so a fact that stays true is told
// again at most once per TTL, and only when a build meets it again: a reminder, never a flood.
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

export class OnceEvents {
  readonly #client: ObjectClient;
  readonly #component: string;
  readonly #now: () => number;

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
    const time = new Date(this.#now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
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
        metadata: { namespace, name: onceEventName(object, fact) },
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
      return true;
    } catch (error) {
      if (isAlreadyExists(error)) return false;
      throw error;
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
