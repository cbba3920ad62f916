// The shapes nudger's Kubernetes layer works with: raw JSON objects as the API server sends them
// (timestamps stay strings), resource coordinates, and the list/watch transport contract the
// informer runs on. No client-node model types leak past this file.

/** The ObjectMeta fields the runtime reads; everything else passes through untouched. */
export interface KubeObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  /** null in the object of an admission request on CREATE (set after admission). */
  creationTimestamp?: string | null;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: readonly unknown[];
  managedFields?: readonly unknown[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata?: KubeObjectMeta;
}

/** Where a kind lives in the API: enough to build every URL the runtime needs. */
export interface ResourceRef {
  /** `''` for the core group. */
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

/** `metav1.Status`, as the API server returns it for failures and in watch ERROR events. */
export interface KubeStatus {
  kind?: 'Status';
  status?: string;
  message?: string;
  reason?: string;
  code?: number;
  details?: { name?: string; group?: string; kind?: string; retryAfterSeconds?: number };
}

export interface ListPage<T extends KubeObject> {
  readonly items: readonly T[];
  readonly resourceVersion: string;
  /** Present when more pages follow. */
  readonly continue?: string;
}

export interface ListOptions {
  readonly limit?: number;
  readonly continue?: string;
  readonly signal?: AbortSignal;
}

export interface WatchOptions {
  readonly resourceVersion: string;
  readonly allowWatchBookmarks: boolean;
  readonly timeoutSeconds: number;
  readonly signal: AbortSignal;
}

export type WatchEvent<T extends KubeObject> =
  | { readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK'; readonly object: T }
  | { readonly type: 'ERROR'; readonly status: KubeStatus };

/**
 * The list/watch transport of one informer: one resource, optionally one namespace and selectors,
 * fixed when the source is built.
 *
 * `watch` resolves once the server has accepted the watch (HTTP 200) and rejects with a
 * `KubeApiError` when it has not; the returned iterable then yields events until the stream ends
 * (iteration completes) or breaks (iteration throws). Aborting `signal` ends iteration quietly.
 */
export interface ListWatchSource<T extends KubeObject> {
  /** A short description for logs and metrics, e.g. `configmaps` or `components.appstudio.redhat.com`. */
  readonly description: string;
  list(options: ListOptions): Promise<ListPage<T>>;
  watch(options: WatchOptions): Promise<AsyncIterable<WatchEvent<T>>>;
}

/** `plural.group`, or `plural` for the core group: the form kubectl and RBAC use. */
export function resourceName(ref: ResourceRef): string {
  return ref.group === '' ? ref.plural : `${ref.plural}.${ref.group}`;
}

export function apiVersionOf(ref: ResourceRef): string {
  return ref.group === '' ? ref.version : `${ref.group}/${ref.version}`;
}
