// The informer cache: objects by `namespace/name`, with named secondary indexes (for example
// Components by the Component they nudge) so reconcilers read the cache instead of the API server.
// Cached objects are shared with every reader: treat them as read-only.
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import { keyOf } from './workqueue.ts';

/** The values an object is indexed under; an object may have none or several. */
export type IndexFunc<T> = (object: T) => readonly string[];

export interface StoreOptions<T extends KubeObject> {
  readonly indexers?: Readonly<Record<string, IndexFunc<T>>>;
  /** Applied to every object before it is cached; defaults to `stripForCache`. */
  readonly transform?: (object: T) => T;
}

export const LAST_APPLIED_ANNOTATION = 'kubectl.kubernetes.io/last-applied-configuration';

/**
 * Drops `metadata.managedFields` and the last-applied-configuration annotation: both are often
 * larger than the rest of the object and no controller reads them. Copies the parts it changes.
 */
export function stripForCache<T extends KubeObject>(object: T): T {
  const metadata = object.metadata;
  if (metadata === undefined) return object;
  const hasAnnotation = metadata.annotations?.[LAST_APPLIED_ANNOTATION] !== undefined;
  if (metadata.managedFields === undefined && !hasAnnotation) return object;
  const { managedFields: _managedFields, ...rest } = metadata;
  if (hasAnnotation && rest.annotations !== undefined) {
    const { [LAST_APPLIED_ANNOTATION]: _lastApplied, ...annotations } = rest.annotations;
    rest.annotations = annotations;
  }
  return { ...object, metadata: rest };
}

export function cacheKeyOf(object: KubeObject): string {
  return keyOf({ namespace: object.metadata?.namespace ?? '', name: object.metadata?.name ?? '' });
}

const NAMESPACE_INDEX = '__namespace';

export class Store<T extends KubeObject> {
  readonly #objects = new Map<string, T>();
  readonly #indexers: ReadonlyMap<string, IndexFunc<T>>;
  /** index name → index value → object keys */
  readonly #indexes = new Map<string, Map<string, Set<string>>>();
  readonly #transform: (object: T) => T;

  constructor(options: StoreOptions<T> = {}) {
    const indexers = new Map<string, IndexFunc<T>>(Object.entries(options.indexers ?? {}));
    indexers.set(NAMESPACE_INDEX, (object) => [object.metadata?.namespace ?? '']);
    this.#indexers = indexers;
    for (const name of indexers.keys()) this.#indexes.set(name, new Map());
    this.#transform = options.transform ?? stripForCache;
  }

  get size(): number {
    return this.#objects.size;
  }

  get(namespace: string, name: string): T | undefined {
    return this.#objects.get(keyOf({ namespace, name }));
  }

  getByKey(key: string): T | undefined {
    return this.#objects.get(key);
  }

  has(key: string): boolean {
    return this.#objects.has(key);
  }

  keys(): string[] {
    return [...this.#objects.keys()];
  }

  /** Every cached object, or those of one namespace. */
  list(namespace?: string): T[] {
    if (namespace === undefined) return [...this.#objects.values()];
    return this.byIndex(NAMESPACE_INDEX, namespace);
  }

  /** Objects whose indexer returned `value`. Throws for an index the store was not built with. */
  byIndex(indexName: string, value: string): T[] {
    const index = this.#indexes.get(indexName);
    if (index === undefined) throw new Error(`the store has no index named "${indexName}"`);
    const keys = index.get(value);
    if (keys === undefined) return [];
    const result: T[] = [];
    for (const key of keys) {
      const object = this.#objects.get(key);
      if (object !== undefined) result.push(object);
    }
    return result;
  }

  /** The values currently present in an index. */
  indexValues(indexName: string): string[] {
    return [...(this.#indexes.get(indexName)?.keys() ?? [])];
  }

  /** The object as the cache would hold it (transformed), without caching it. */
  prepare(object: T): T {
    return this.#transform(object);
  }

  /** Inserts or replaces; returns the previous object, if any, and the cached (transformed) one. */
  upsert(object: T): { previous: T | undefined; current: T } {
    const current = this.#transform(object);
    const key = cacheKeyOf(current);
    const previous = this.#objects.get(key);
    if (previous !== undefined) this.#unindex(key, previous);
    this.#objects.set(key, current);
    this.#index(key, current);
    return { previous, current };
  }

  /** Removes by key; returns what was cached. */
  remove(key: string): T | undefined {
    const previous = this.#objects.get(key);
    if (previous === undefined) return undefined;
    this.#unindex(key, previous);
    this.#objects.delete(key);
    return previous;
  }

  #index(key: string, object: T): void {
    for (const [name, indexer] of this.#indexers) {
      const index = this.#indexes.get(name);
      if (index === undefined) continue;
      for (const value of safeIndex(indexer, object)) {
        let keys = index.get(value);
        if (keys === undefined) {
          keys = new Set();
          index.set(value, keys);
        }
        keys.add(key);
      }
    }
  }

  #unindex(key: string, object: T): void {
    for (const [name, indexer] of this.#indexers) {
      const index = this.#indexes.get(name);
      if (index === undefined) continue;
      for (const value of safeIndex(indexer, object)) {
        const keys = index.get(value);
        keys?.delete(key);
        if (keys?.size === 0) index.delete(value);
      }
    }
  }
}

/** An indexer that throws on an odd object must not corrupt the cache: it indexes it nowhere. */
function safeIndex<T>(indexer: IndexFunc<T>, object: T): readonly string[] {
  try {
    return [...new Set(indexer(object))];
  } catch {
    return [];
  }
}
