// Typed CRUD for any resource on the raw HTTP layer. Every failure is a `KubeApiError` naming the
// verb and the object, so callers can branch with `isNotFound` / `isConflict` / `isGone`.
import type { KubeConfig } from '@kubernetes/client-node';
import type { RequestTarget } from './errors.ts';
import { KubeHttp, type KubeHttpOptions } from './http.ts';
import { resourceName, type KubeObject, type ListPage, type ResourceRef } from './types.ts';

export type PatchType = 'merge' | 'json';

const PATCH_CONTENT_TYPES: Readonly<Record<PatchType, string>> = {
  merge: 'application/merge-patch+json',
  json: 'application/json-patch+json',
};

export type { JsonPatchOperation } from '../../domain/json-patch.ts';

export interface WriteOptions {
  readonly fieldManager?: string;
  readonly dryRun?: boolean;
  readonly signal?: AbortSignal;
}

export interface ListQuery {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
  readonly continue?: string;
  readonly signal?: AbortSignal;
}

/** The operations controllers, status helpers, leader election and events need. */
export interface ObjectClient {
  get<T extends KubeObject>(ref: ResourceRef, namespace: string, name: string, signal?: AbortSignal): Promise<T>;
  list<T extends KubeObject>(ref: ResourceRef, query?: ListQuery): Promise<ListPage<T>>;
  create<T extends KubeObject>(ref: ResourceRef, object: T, options?: WriteOptions): Promise<T>;
  /** PUT; the object's `metadata.resourceVersion`, when set, makes it a compare-and-swap. */
  replace<T extends KubeObject>(ref: ResourceRef, object: T, options?: WriteOptions): Promise<T>;
  replaceStatus<T extends KubeObject>(ref: ResourceRef, object: T, options?: WriteOptions): Promise<T>;
  patch<T extends KubeObject>(
    ref: ResourceRef,
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
    options?: WriteOptions,
  ): Promise<T>;
  patchStatus<T extends KubeObject>(
    ref: ResourceRef,
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
    options?: WriteOptions,
  ): Promise<T>;
  delete(
    ref: ResourceRef,
    namespace: string,
    name: string,
    options?: WriteOptions & { readonly preconditionResourceVersion?: string; readonly propagationPolicy?: string },
  ): Promise<void>;
}

/** `/api/v1/namespaces/ns/configmaps/name/status` and friends. Empty namespace means cluster scope. */
export function resourcePath(ref: ResourceRef, namespace = '', name?: string, subresource?: string): string {
  const base = ref.group === '' ? `/api/${ref.version}` : `/apis/${ref.group}/${ref.version}`;
  const scope = ref.namespaced && namespace !== '' ? `/namespaces/${encodeURIComponent(namespace)}` : '';
  const object = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  const sub = subresource === undefined ? '' : `/${subresource}`;
  return `${base}${scope}/${ref.plural}${object}${sub}`;
}

function target(verb: string, ref: ResourceRef, namespace?: string, name?: string): RequestTarget {
  return {
    verb,
    resource: resourceName(ref),
    ...(namespace === undefined || namespace === '' ? {} : { namespace }),
    ...(name === undefined ? {} : { name }),
  };
}

function writeQuery(options: WriteOptions | undefined): Record<string, string | undefined> {
  return { fieldManager: options?.fieldManager, dryRun: options?.dryRun === true ? 'All' : undefined };
}

function signalOf(options: { readonly signal?: AbortSignal } | undefined): { signal?: AbortSignal } {
  return options?.signal === undefined ? {} : { signal: options.signal };
}

function metaOf(object: KubeObject): { namespace: string; name: string } {
  return { namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '' };
}

export class KubeClient implements ObjectClient {
  readonly http: KubeHttp;

  constructor(kubeConfig: KubeConfig, options: KubeHttpOptions = {}) {
    this.http = new KubeHttp(kubeConfig, options);
  }

  get<T extends KubeObject>(ref: ResourceRef, namespace: string, name: string, signal?: AbortSignal): Promise<T> {
    return this.http.json<T>(
      { method: 'GET', path: resourcePath(ref, namespace, name), ...(signal === undefined ? {} : { signal }) },
      target('get', ref, namespace, name),
    );
  }

  async list<T extends KubeObject>(ref: ResourceRef, query: ListQuery = {}): Promise<ListPage<T>> {
    const body = await this.http.json<{
      items?: T[] | null;
      metadata?: { resourceVersion?: string; continue?: string };
    }>(
      {
        method: 'GET',
        path: resourcePath(ref, query.namespace),
        query: {
          labelSelector: query.labelSelector,
          fieldSelector: query.fieldSelector,
          limit: query.limit,
          continue: query.continue,
        },
        ...signalOf(query),
      },
      target('list', ref, query.namespace),
    );
    const next = body.metadata?.continue;
    return {
      items: body.items ?? [],
      resourceVersion: body.metadata?.resourceVersion ?? '',
      ...(next === undefined || next === '' ? {} : { continue: next }),
    };
  }

  create<T extends KubeObject>(ref: ResourceRef, object: T, options?: WriteOptions): Promise<T> {
    const { namespace, name } = metaOf(object);
    return this.http.json<T>(
      {
        method: 'POST',
        path: resourcePath(ref, namespace),
        query: writeQuery(options),
        body: object,
        ...signalOf(options),
      },
      target('create', ref, namespace, name === '' ? undefined : name),
    );
  }

  replace<T extends KubeObject>(ref: ResourceRef, object: T, options?: WriteOptions): Promise<T> {
    const { namespace, name } = metaOf(object);
    return this.http.json<T>(
      {
        method: 'PUT',
        path: resourcePath(ref, namespace, name),
        query: writeQuery(options),
        body: object,
        ...signalOf(options),
      },
      target('replace', ref, namespace, name),
    );
  }

  replaceStatus<T extends KubeObject>(ref: ResourceRef, object: T, options?: WriteOptions): Promise<T> {
    const { namespace, name } = metaOf(object);
    return this.http.json<T>(
      {
        method: 'PUT',
        path: resourcePath(ref, namespace, name, 'status'),
        query: writeQuery(options),
        body: object,
        ...signalOf(options),
      },
      target('replaceStatus', ref, namespace, name),
    );
  }

  patch<T extends KubeObject>(
    ref: ResourceRef,
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
    options?: WriteOptions,
  ): Promise<T> {
    return this.#patch<T>('patch', undefined, ref, namespace, name, type, patch, options);
  }

  patchStatus<T extends KubeObject>(
    ref: ResourceRef,
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
    options?: WriteOptions,
  ): Promise<T> {
    return this.#patch<T>('patchStatus', 'status', ref, namespace, name, type, patch, options);
  }

  #patch<T extends KubeObject>(
    verb: string,
    subresource: string | undefined,
    ref: ResourceRef,
    namespace: string,
    name: string,
    type: PatchType,
    patch: unknown,
    options: WriteOptions | undefined,
  ): Promise<T> {
    return this.http.json<T>(
      {
        method: 'PATCH',
        path: resourcePath(ref, namespace, name, subresource),
        query: writeQuery(options),
        body: patch,
        contentType: PATCH_CONTENT_TYPES[type],
        ...signalOf(options),
      },
      target(verb, ref, namespace, name),
    );
  }

  async delete(
    ref: ResourceRef,
    namespace: string,
    name: string,
    options?: WriteOptions & { readonly preconditionResourceVersion?: string; readonly propagationPolicy?: string },
  ): Promise<void> {
    const body: {
      kind: string;
      apiVersion: string;
      preconditions?: { resourceVersion: string };
      propagationPolicy?: string;
    } = {
      kind: 'DeleteOptions',
      apiVersion: 'v1',
    };
    if (options?.preconditionResourceVersion !== undefined) {
      body.preconditions = { resourceVersion: options.preconditionResourceVersion };
    }
    if (options?.propagationPolicy !== undefined) body.propagationPolicy = options.propagationPolicy;
    await this.http.json<unknown>(
      {
        method: 'DELETE',
        path: resourcePath(ref, namespace, name),
        query: writeQuery(options),
        body,
        ...signalOf(options),
      },
      target('delete', ref, namespace, name),
    );
  }

  close(): void {
    this.http.close();
  }
}
