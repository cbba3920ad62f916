// Which Components exist, for admission: the informer cache answers hits; a miss is confirmed
// against the API server before it can cause a denial, because the cache may trail a Component
// created a moment ago.
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import { isNotFound } from '../adapters/kubernetes/errors.ts';
import { COMPONENTS } from '../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import type { Store } from '../runtime/store.ts';
import type { ComponentLookup } from './nudgeconfig.ts';

/** Past this many cache misses one LIST of the namespace is cheaper than a GET per name. */
const MAX_SINGLE_GETS = 8;

export class CachedComponentLookup implements ComponentLookup {
  readonly #store: Store<KubeObject>;
  readonly #client: ObjectClient;

  constructor(store: Store<KubeObject>, client: ObjectClient) {
    this.#store = store;
    this.#client = client;
  }

  async missing(namespace: string, names: readonly string[], signal: AbortSignal): Promise<ReadonlySet<string>> {
    const uncached = names.filter((name) => this.#store.get(namespace, name) === undefined);
    if (uncached.length === 0) return new Set();
    if (uncached.length > MAX_SINGLE_GETS) {
      const live = await this.#listNames(namespace, signal);
      return new Set(uncached.filter((name) => !live.has(name)));
    }
    const missing = new Set<string>();
    await Promise.all(
      uncached.map(async (name) => {
        try {
          await this.#client.get(COMPONENTS, namespace, name, signal);
        } catch (error) {
          if (!isNotFound(error)) throw error;
          missing.add(name);
        }
      }),
    );
    return missing;
  }

  async #listNames(namespace: string, signal: AbortSignal): Promise<Set<string>> {
    const names = new Set<string>();
    let continueToken: string | undefined;
    do {
      const page = await this.#client.list(COMPONENTS, {
        namespace,
        limit: 500,
        signal,
        ...(continueToken === undefined ? {} : { continue: continueToken }),
      });
      for (const item of page.items) if (item.metadata?.name !== undefined) names.add(item.metadata.name);
      continueToken = page.continue;
    } while (continueToken !== undefined && continueToken !== '');
    return names;
  }
}
