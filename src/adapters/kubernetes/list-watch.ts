// The informer's list/watch transport on the real API server: paged LIST and a streaming WATCH,
// both authenticated from the KubeConfig through `KubeHttp`.
import { errorFromTransport, type RequestTarget } from './errors.ts';
import { resourcePath } from './client.ts';
import type { KubeHttp } from './http.ts';
import {
  resourceName,
  type KubeObject,
  type ListOptions,
  type ListPage,
  type ListWatchSource,
  type ResourceRef,
  type WatchEvent,
  type WatchOptions,
} from './types.ts';

export interface KubeListWatchOptions {
  /** Watch one namespace; omitted or `''` means all namespaces. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Per-page LIST timeout; default DEFAULT_LIST_TIMEOUT_MS. */
  readonly listTimeoutMs?: number;
}

/**
 * A page of an informer's LIST may take the API server long on a big, busy cluster (20,000
 * PipelineRuns behind a label selector at 1,000 namespaces took more than the client's usual
 * 30 s, and the retry asked the same again). kube-apiserver ends a request itself after its
 * --request-timeout (60 s by default), and client-go's reflector sets no client-side limit, so ours
 * is longer than the server's: the server's own answer comes first (docs/decisions.md N51).
 */
export const DEFAULT_LIST_TIMEOUT_MS = 90_000;

const EVENT_TYPES = new Set(['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR']);

export class KubeListWatchSource<T extends KubeObject> implements ListWatchSource<T> {
  readonly description: string;
  readonly #http: KubeHttp;
  readonly #ref: ResourceRef;
  readonly #options: KubeListWatchOptions;

  constructor(http: KubeHttp, ref: ResourceRef, options: KubeListWatchOptions = {}) {
    this.#http = http;
    this.#ref = ref;
    this.#options = options;
    const namespace = options.namespace ?? '';
    this.description = namespace === '' ? resourceName(ref) : `${resourceName(ref)} in ${namespace}`;
  }

  #target(verb: string): RequestTarget {
    const namespace = this.#options.namespace ?? '';
    return { verb, resource: resourceName(this.#ref), ...(namespace === '' ? {} : { namespace }) };
  }

  async list(options: ListOptions): Promise<ListPage<T>> {
    const body = await this.#http.json<{
      items?: T[] | null;
      metadata?: { resourceVersion?: string; continue?: string };
    }>(
      {
        method: 'GET',
        path: resourcePath(this.#ref, this.#options.namespace),
        query: {
          labelSelector: this.#options.labelSelector,
          fieldSelector: this.#options.fieldSelector,
          limit: options.limit,
          continue: options.continue,
        },
        ...(options.signal === undefined ? {} : { signal: options.signal }),
        timeoutMs: this.#options.listTimeoutMs ?? DEFAULT_LIST_TIMEOUT_MS,
      },
      this.#target('list'),
    );
    const next = body.metadata?.continue;
    return {
      items: body.items ?? [],
      resourceVersion: body.metadata?.resourceVersion ?? '',
      ...(next === undefined || next === '' ? {} : { continue: next }),
    };
  }

  async watch(options: WatchOptions): Promise<AsyncIterable<WatchEvent<T>>> {
    const target = this.#target('watch');
    const stream = await this.#http.stream(
      {
        method: 'GET',
        path: resourcePath(this.#ref, this.#options.namespace),
        query: {
          watch: true,
          resourceVersion: options.resourceVersion,
          allowWatchBookmarks: options.allowWatchBookmarks,
          timeoutSeconds: options.timeoutSeconds,
          labelSelector: this.#options.labelSelector,
          fieldSelector: this.#options.fieldSelector,
        },
        signal: options.signal,
      },
      target,
    );
    return decodeEvents<T>(
      stream.lines,
      () => {
        stream.close();
      },
      target,
    );
  }
}

async function* decodeEvents<T extends KubeObject>(
  lines: AsyncIterable<string>,
  close: () => void,
  target: RequestTarget,
): AsyncGenerator<WatchEvent<T>> {
  try {
    for await (const line of lines) yield decodeEvent<T>(line, target);
  } finally {
    // Reached on normal end, on error, and when the consumer stops iterating early.
    close();
  }
}

function decodeEvent<T extends KubeObject>(line: string, target: RequestTarget): WatchEvent<T> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    throw errorFromTransport(target, new Error('the watch stream sent a line that is not JSON'));
  }
  const event = parsed as { type?: unknown; object?: unknown };
  if (
    typeof event.type !== 'string' ||
    !EVENT_TYPES.has(event.type) ||
    typeof event.object !== 'object' ||
    event.object === null
  ) {
    throw errorFromTransport(target, new Error('the watch stream sent an event without a known type and an object'));
  }
  if (event.type === 'ERROR') return { type: 'ERROR', status: event.object };
  return { type: event.type as 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK', object: event.object as T };
}
