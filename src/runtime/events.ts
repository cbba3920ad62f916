// Kubernetes Events for humans reading `kubectl describe`. Repeats of the same event for the same
// object are folded into one Event whose count and lastTimestamp grow, as client-go's recorder does,
// so a hot reconcile loop does not flood etcd. Messages are only what the caller passes, cut to
// 1 KiB: callers must never pass secrets, and nothing here adds object bodies.
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import { isNotFound } from '../adapters/kubernetes/errors.ts';
import { CORE_EVENTS } from '../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import { systemClock, type Clock } from './clock.ts';
import { formatObjectKey } from '../domain/object-key.ts';
import { describeError, silentLogger, type RuntimeLogger } from './runtime-log.ts';

export type EventType = 'Normal' | 'Warning';

export const MAX_EVENT_MESSAGE_BYTES = 1024;
const MAX_REASON_LENGTH = 128;
const MAX_PENDING_WRITES = 1000;

export interface EventRecorderOptions {
  readonly client: ObjectClient;
  /** `source.component` / `reportingComponent`, e.g. `nudger-stale-references`. */
  readonly component: string;
  /** `reportingInstance`, e.g. the pod name. */
  readonly instance?: string;
  /** Repeats within this window update the existing Event; later ones start a new Event. */
  readonly aggregationWindowMs?: number;
  readonly cacheSize?: number;
  readonly clock?: Clock;
  readonly logger?: RuntimeLogger;
}

interface CoreEvent extends KubeObject {
  involvedObject: {
    apiVersion?: string;
    kind?: string;
    namespace?: string;
    name?: string;
    uid?: string;
    resourceVersion?: string;
  };
  reason: string;
  message: string;
  type: EventType;
  count: number;
  firstTimestamp: string;
  lastTimestamp: string;
  source: { component: string };
  reportingComponent: string;
  reportingInstance: string;
}

interface SeenEvent {
  readonly namespace: string;
  readonly name: string;
  count: number;
  lastSeenAt: number;
}

/** Cuts `text` to at most `maxBytes` of UTF-8 without splitting a character. */
export function truncateUtf8(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text, 'utf8') <= maxBytes) return text;
  const suffix = '...';
  let bytes = Buffer.byteLength(suffix, 'utf8');
  let result = '';
  for (const char of text) {
    const size = Buffer.byteLength(char, 'utf8');
    if (bytes + size > maxBytes) break;
    bytes += size;
    result += char;
  }
  return result + suffix;
}

function isoSeconds(epochMs: number): string {
  return new Date(epochMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export class EventRecorder {
  readonly #client: ObjectClient;
  readonly #component: string;
  readonly #instance: string;
  readonly #windowMs: number;
  readonly #cacheSize: number;
  readonly #clock: Clock;
  readonly #logger: RuntimeLogger;
  /** Map order is insertion order, which makes it a cheap LRU when entries are re-inserted on use. */
  readonly #seen = new Map<string, SeenEvent>();
  #chain: Promise<void> = Promise.resolve();
  #pending = 0;
  #sequence = 0n;

  constructor(options: EventRecorderOptions) {
    this.#client = options.client;
    this.#component = options.component;
    this.#instance = options.instance ?? options.component;
    this.#windowMs = options.aggregationWindowMs ?? 10 * 60_000;
    this.#cacheSize = options.cacheSize ?? 4096;
    this.#clock = options.clock ?? systemClock;
    this.#logger = options.logger ?? silentLogger;
  }

  /** Records an event about `object`. Never throws and never blocks the caller; see `flush`. */
  event(object: KubeObject, type: EventType, reason: string, message: string): void {
    if (this.#pending >= MAX_PENDING_WRITES) {
      this.#logger.warn({ reason }, 'dropping event: too many event writes pending');
      return;
    }
    this.#pending += 1;
    this.#chain = this.#chain
      .then(() =>
        this.#write(object, type, reason.slice(0, MAX_REASON_LENGTH), truncateUtf8(message, MAX_EVENT_MESSAGE_BYTES)),
      )
      .catch((error: unknown) => {
        this.#logger.warn({ reason, object: objectRef(object), error: describeError(error) }, 'could not write event');
      })
      .finally(() => {
        this.#pending -= 1;
      });
  }

  /** Resolves once every event recorded so far has been written (or has failed and been logged). */
  flush(): Promise<void> {
    return this.#chain;
  }

  async #write(object: KubeObject, type: EventType, reason: string, message: string): Promise<void> {
    const now = this.#clock.now();
    const involved = {
      ...(object.apiVersion === undefined ? {} : { apiVersion: object.apiVersion }),
      ...(object.kind === undefined ? {} : { kind: object.kind }),
      ...(object.metadata?.namespace === undefined ? {} : { namespace: object.metadata.namespace }),
      ...(object.metadata?.name === undefined ? {} : { name: object.metadata.name }),
      ...(object.metadata?.uid === undefined ? {} : { uid: object.metadata.uid }),
    };
    const key = JSON.stringify([involved.kind, involved.namespace, involved.name, involved.uid, type, reason, message]);
    const seen = this.#seen.get(key);
    if (seen !== undefined && now - seen.lastSeenAt < this.#windowMs) {
      const count = seen.count + 1;
      try {
        await this.#client.patch<CoreEvent>(CORE_EVENTS, seen.namespace, seen.name, 'merge', {
          count,
          lastTimestamp: isoSeconds(now),
        });
        seen.count = count;
        seen.lastSeenAt = now;
        this.#remember(key, seen);
        return;
      } catch (error) {
        // The Event expired (the API server keeps them for an hour by default): start a new one.
        if (!isNotFound(error)) throw error;
      }
    }
    const namespace = object.metadata?.namespace ?? 'default';
    const name = `${(object.metadata?.name ?? 'object').slice(0, 200)}.${this.#uniqueSuffix(now)}`;
    const event: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { namespace, name },
      involvedObject: namespace === '' ? involved : { ...involved, namespace },
      reason,
      message,
      type,
      count: 1,
      firstTimestamp: isoSeconds(now),
      lastTimestamp: isoSeconds(now),
      source: { component: this.#component },
      reportingComponent: this.#component,
      reportingInstance: this.#instance,
    };
    await this.#client.create(CORE_EVENTS, event);
    this.#remember(key, { namespace, name, count: 1, lastSeenAt: now });
  }

  /** Nanosecond-ish hex like client-go's, plus a sequence so two events in one ms differ. */
  #uniqueSuffix(now: number): string {
    this.#sequence += 1n;
    return (BigInt(now) * 1_000_000n + (this.#sequence % 1_000_000n)).toString(16);
  }

  #remember(key: string, seen: SeenEvent): void {
    this.#seen.delete(key);
    this.#seen.set(key, seen);
    while (this.#seen.size > this.#cacheSize) {
      const oldest = this.#seen.keys().next();
      if (oldest.done === true) break;
      this.#seen.delete(oldest.value);
    }
  }
}

function objectRef(object: KubeObject): string {
  const key = { namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '' };
  return `${object.kind ?? 'object'} ${formatObjectKey(key)}`;
}
