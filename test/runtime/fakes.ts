// In-memory stand-ins for unit tests of the runtime: an ObjectClient with real resourceVersion
// compare-and-swap semantics, a scripted ListWatchSource, and a wait-for-condition helper.
import type {
  JsonPatchOperation,
  ListQuery,
  ObjectClient,
  PatchType,
  WriteOptions,
} from '../../src/adapters/kubernetes/client.ts';
import { errorFromResponse, errorFromStatus, type RequestTarget } from '../../src/adapters/kubernetes/errors.ts';
import { CONFIG_MAPS } from '../../src/adapters/kubernetes/resources.ts';
import type { RuntimeLogger } from '../../src/runtime/runtime-log.ts';
import type { WatchedKind } from '../../src/runtime/watched-kind.ts';
import type {
  KubeObject,
  KubeStatus,
  ListOptions,
  ListPage,
  ListWatchSource,
  ResourceRef,
  WatchEvent,
  WatchOptions,
} from '../../src/adapters/kubernetes/types.ts';

/** Polls `condition` every few ms until it holds; fails (not times) after a generous deadline. */
export async function waitFor(condition: () => boolean, what: string, deadlineMs = 10_000): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!condition()) {
    if (Date.now() > end) throw new Error(`gave up waiting for: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

/** Runs `informer` while `body` runs, then stops it and waits for it to end. */
export async function running<R>(
  informer: { run(signal: AbortSignal): Promise<void> },
  body: (stop: AbortController) => Promise<R>,
): Promise<R> {
  const stop = new AbortController();
  const run = informer.run(stop.signal);
  try {
    return await body(stop);
  } finally {
    stop.abort();
    await run;
  }
}

export interface LogLine {
  readonly level: string;
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

/** A logger that appends every line to `lines`. */
export function recordingLogger(lines: LogLine[]): RuntimeLogger {
  const at = (level: string) => (fields: Record<string, unknown>, message: string) => {
    lines.push({ level, fields, message });
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

export function status(code: number, reason: string, message = reason): KubeStatus {
  return { kind: 'Status', status: 'Failure', code, reason, message };
}

type Fault = (verb: string, ref: ResourceRef, namespace: string, name: string) => KubeStatus | undefined;

/** An ObjectClient over a Map, with the API server's resourceVersion preconditions. */
export class FakeObjectClient implements ObjectClient {
  readonly objects = new Map<string, KubeObject>();
  readonly calls: { verb: string; ref: ResourceRef; namespace: string; name: string; body?: unknown }[] = [];
  #rv = 100;
  /** Return a Status to make the next matching call fail with it. */
  fault: Fault | undefined;

  #key(ref: ResourceRef, namespace: string, name: string): string {
    return `${ref.plural}/${namespace}/${name}`;
  }

  #fail(verb: string, ref: ResourceRef, namespace: string, name: string, body?: unknown): void {
    this.calls.push({ verb, ref, namespace, name, ...(body === undefined ? {} : { body }) });
    const failure = this.fault?.(verb, ref, namespace, name);
    if (failure !== undefined) throw errorFromStatus(this.#target(verb, ref, namespace, name), failure);
  }

  #target(verb: string, ref: ResourceRef, namespace: string, name: string): RequestTarget {
    return { verb, resource: ref.plural, namespace, name };
  }

  #error(verb: string, ref: ResourceRef, namespace: string, name: string, code: number, reason: string) {
    return errorFromResponse(this.#target(verb, ref, namespace, name), code, status(code, reason));
  }

  #store<T extends KubeObject>(ref: ResourceRef, object: T): T {
    const stored = structuredClone(object);
    stored.metadata = { ...stored.metadata, resourceVersion: String(++this.#rv) };
    this.objects.set(this.#key(ref, stored.metadata.namespace ?? '', stored.metadata.name ?? ''), stored);
    return structuredClone(stored);
  }

  get<T extends KubeObject>(ref: ResourceRef, namespace: string, name: string): Promise<T> {
    this.#fail('get', ref, namespace, name);
    const found = this.objects.get(this.#key(ref, namespace, name));
    if (found === undefined) return Promise.reject(this.#error('get', ref, namespace, name, 404, 'NotFound'));
    return Promise.resolve(structuredClone(found) as T);
  }

  list<T extends KubeObject>(ref: ResourceRef, query: ListQuery = {}): Promise<ListPage<T>> {
    const prefix = `${ref.plural}/${query.namespace ?? ''}`;
    const items = [...this.objects.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .map(([, object]) => object as T);
    return Promise.resolve({ items: structuredClone(items), resourceVersion: String(this.#rv) });
  }

  create<T extends KubeObject>(ref: ResourceRef, object: T, _options?: WriteOptions): Promise<T> {
    const namespace = object.metadata?.namespace ?? '';
    const name = object.metadata?.name ?? '';
    this.#fail('create', ref, namespace, name, object);
    if (this.objects.has(this.#key(ref, namespace, name))) {
      return Promise.reject(this.#error('create', ref, namespace, name, 409, 'AlreadyExists'));
    }
    return Promise.resolve(this.#store(ref, object));
  }

  #replace<T extends KubeObject>(verb: string, ref: ResourceRef, object: T): Promise<T> {
    const namespace = object.metadata?.namespace ?? '';
    const name = object.metadata?.name ?? '';
    this.#fail(verb, ref, namespace, name, object);
    const existing = this.objects.get(this.#key(ref, namespace, name));
    if (existing === undefined) return Promise.reject(this.#error(verb, ref, namespace, name, 404, 'NotFound'));
    const expected = object.metadata?.resourceVersion;
    if (expected !== undefined && expected !== existing.metadata?.resourceVersion) {
      return Promise.reject(this.#error(verb, ref, namespace, name, 409, 'Conflict'));
    }
    return Promise.resolve(this.#store(ref, object));
  }

  replace<T extends KubeObject>(ref: ResourceRef, object: T): Promise<T> {
    return this.#replace('replace', ref, object);
  }

  replaceStatus<T extends KubeObject>(ref: ResourceRef, object: T): Promise<T> {
    return this.#replace('replaceStatus', ref, object);
  }

  /** Merge patches only (shallow per level), with the resourceVersion precondition. */
  patch<T extends KubeObject>(
    ref: ResourceRef,
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
  ): Promise<T> {
    this.#fail('patch', ref, namespace, name, patch);
    const existing = this.objects.get(this.#key(ref, namespace, name));
    if (existing === undefined) return Promise.reject(this.#error('patch', ref, namespace, name, 404, 'NotFound'));
    if (type !== 'merge') throw new Error('FakeObjectClient supports merge patches only');
    const merged = mergePatch(existing, patch) as T;
    const expected = (patch as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
    if (expected !== undefined && expected !== existing.metadata?.resourceVersion) {
      return Promise.reject(this.#error('patch', ref, namespace, name, 409, 'Conflict'));
    }
    return Promise.resolve(this.#store(ref, merged));
  }

  patchStatus<T extends KubeObject>(
    ref: ResourceRef,
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
  ): Promise<T> {
    return this.patch(ref, namespace, name, type, patch);
  }

  delete(ref: ResourceRef, namespace: string, name: string): Promise<void> {
    this.#fail('delete', ref, namespace, name);
    if (!this.objects.delete(this.#key(ref, namespace, name))) {
      return Promise.reject(this.#error('delete', ref, namespace, name, 404, 'NotFound'));
    }
    return Promise.resolve();
  }
}

export type { JsonPatchOperation };

function mergePatch(target: unknown, patch: unknown): unknown {
  if (typeof patch !== 'object' || patch === null || Array.isArray(patch)) return patch;
  const result: Record<string, unknown> =
    typeof target === 'object' && target !== null && !Array.isArray(target)
      ? { ...(target as Record<string, unknown>) }
      : {};
  const merged = new Map(Object.entries(result));
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) merged.delete(key);
    else merged.set(key, mergePatch(merged.get(key), value));
  }
  return Object.fromEntries(merged);
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

/** ConfigMaps taken as they come: the runtime's tests are about the informer, not a schema. */
export const CONFIG_MAP_KIND: WatchedKind<ConfigMap> = {
  resource: CONFIG_MAPS,
  decode: (object) => ({ ok: true, object }),
};

export function configMap(
  namespace: string,
  name: string,
  resourceVersion: string,
  data: Record<string, string> = {},
): ConfigMap {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { namespace, name, resourceVersion }, data };
}

/** What one watch call does. */
export type WatchPlan =
  | { readonly kind: 'reject'; readonly status: KubeStatus }
  | {
      readonly kind: 'stream';
      readonly events: readonly WatchEvent<ConfigMap>[];
      /** After the events: end cleanly, break with a socket error, or stay open until aborted. */
      readonly then: 'end' | 'break' | 'hang';
    };

/**
 * A scripted ListWatchSource. `list` serves `objects` (paged by `limit`) at `resourceVersion`;
 * each `watch` call takes the next plan (and hangs once plans run out).
 */
export class ScriptedSource implements ListWatchSource<ConfigMap> {
  readonly description = 'configmaps';
  objects: ConfigMap[] = [];
  resourceVersion = '1';
  readonly plans: WatchPlan[] = [];
  readonly watchCalls: Omit<WatchOptions, 'signal'>[] = [];
  listCalls = 0;
  /** Set to fail the next list call. */
  listFailure: KubeStatus | undefined;

  list(options: ListOptions): Promise<ListPage<ConfigMap>> {
    this.listCalls += 1;
    if (this.listFailure !== undefined) {
      const failure = this.listFailure;
      this.listFailure = undefined;
      return Promise.reject(errorFromStatus({ verb: 'list', resource: 'configmaps' }, failure));
    }
    const start = options.continue === undefined ? 0 : Number(options.continue);
    const limit = options.limit ?? this.objects.length;
    const items = this.objects.slice(start, start + limit);
    const next = start + limit < this.objects.length ? String(start + limit) : undefined;
    return Promise.resolve({
      items: structuredClone(items),
      resourceVersion: this.resourceVersion,
      ...(next === undefined ? {} : { continue: next }),
    });
  }

  watch(options: WatchOptions): Promise<AsyncIterable<WatchEvent<ConfigMap>>> {
    const { signal, ...recorded } = options;
    this.watchCalls.push(recorded);
    const plan: WatchPlan = this.plans.shift() ?? { kind: 'stream', events: [], then: 'hang' };
    if (plan.kind === 'reject')
      return Promise.reject(errorFromStatus({ verb: 'watch', resource: 'configmaps' }, plan.status));
    return Promise.resolve(stream(plan.events, plan.then, signal));
  }
}

async function* stream(
  events: readonly WatchEvent<ConfigMap>[],
  then: 'end' | 'break' | 'hang',
  signal: AbortSignal,
): AsyncGenerator<WatchEvent<ConfigMap>> {
  for (const event of events) {
    await Promise.resolve();
    yield structuredClone(event);
  }
  if (then === 'break') throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' });
  if (then === 'hang') {
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else
        signal.addEventListener(
          'abort',
          () => {
            resolve();
          },
          { once: true },
        );
    });
  }
}
