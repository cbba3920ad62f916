// One informer per resource (and label selector), shared by every controller and webhook that
// asks for it, so that two controllers watching Components hold one cache and one watch, as
// controller-runtime's shared informer factory does. A leadership term gets a child set
// (`forTerm`): informers only leader-side controllers need (nudge PipelineRuns) live and die with
// the term, while asking for one the replica already runs (Components) returns the replica's.
import type { KubeHttp } from '../adapters/kubernetes/http.ts';
import { KubeListWatchSource } from '../adapters/kubernetes/list-watch.ts';
import type { KubeObject, ResourceRef } from '../adapters/kubernetes/types.ts';
import type { Registry } from 'prom-client';
import { Informer } from './informer.ts';
import type { RuntimeLogger } from './runtime-log.ts';

export interface InformerRequest {
  /** Only objects with these labels (`key=value`), as the API server selects them. */
  readonly labelSelector?: string;
}

/** What controllers and webhooks ask informers from. */
export interface InformerSource {
  informer<T extends KubeObject>(resource: ResourceRef, request?: InformerRequest): Informer<T>;
}

export interface SharedInformersOptions {
  readonly http: KubeHttp;
  /** With `--namespace`, every informer watches that namespace only. */
  readonly namespace?: string;
  readonly registry?: Registry;
  readonly logger: RuntimeLogger;
}

export class SharedInformers implements InformerSource {
  readonly #options: SharedInformersOptions;
  readonly #parent: SharedInformers | undefined;
  readonly #own = new Map<string, Informer<KubeObject>>();

  constructor(options: SharedInformersOptions, parent?: SharedInformers) {
    this.#options = options;
    this.#parent = parent;
  }

  informer<T extends KubeObject>(resource: ResourceRef, request: InformerRequest = {}): Informer<T> {
    const key = `${resource.group}/${resource.version}/${resource.plural}?${request.labelSelector ?? ''}`;
    const existing = this.#find(key);
    if (existing !== undefined) return existing as unknown as Informer<T>;
    const { http, namespace, registry, logger } = this.#options;
    const informer = new Informer<T>({
      source: new KubeListWatchSource<T>(http, resource, {
        ...(namespace === undefined ? {} : { namespace }),
        ...(request.labelSelector === undefined ? {} : { labelSelector: request.labelSelector }),
      }),
      ...(registry === undefined ? {} : { registry }),
      logger,
    });
    this.#own.set(key, informer as unknown as Informer<KubeObject>);
    return informer;
  }

  /** A child set for one leadership term: new informers are its own, existing ones are shared. */
  forTerm(): SharedInformers {
    return new SharedInformers(this.#options, this);
  }

  /** The informers this set created (not its parent's). */
  own(): readonly Informer<KubeObject>[] {
    return [...this.#own.values()];
  }

  /** Runs this set's own informers until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    await Promise.all(this.own().map((informer) => informer.run(signal)));
  }

  #find(key: string): Informer<KubeObject> | undefined {
    const own = this.#own.get(key);
    if (own !== undefined || this.#parent === undefined) return own;
    return this.#parent.#find(key);
  }
}
