// One informer per resource (and label or field selector), shared by every controller and webhook that
// asks for it, so that two controllers watching Components hold one cache and one watch, as
// controller-runtime's shared informer factory does. A leadership term gets a child set
// (`forTerm`): informers only leader-side controllers need (nudge PipelineRuns) live and die with
// the term, while asking for one the replica already runs (Components) returns the replica's.
// Informers are asked for by kind (watched-kind.ts), which fixes the type of their objects: one
// cache has one decoder, so two callers can never hold it as two different types.
import type { KubeHttp } from '../adapters/kubernetes/http.ts';
import { KubeListWatchSource } from '../adapters/kubernetes/list-watch.ts';
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import type { Registry } from 'prom-client';
import { Informer } from './informer.ts';
import type { RuntimeLogger } from './runtime-log.ts';
import type { WatchedKind } from './watched-kind.ts';

export interface InformerRequest {
  /** Only objects with these labels (`key=value`), as the API server selects them. */
  readonly labelSelector?: string;
  /** Only objects with these fields (`metadata.name=...`), as the API server selects them. */
  readonly fieldSelector?: string;
  /**
   * The caller runs the informer itself, and `run` leaves it out: for a resource whose CRD may be
   * missing, which the caller probes first (optional-kind.ts: ReleasePlanAdmissions, Snapshots).
   */
  readonly runByCaller?: boolean;
}

/** What controllers and webhooks ask informers from. */
export interface InformerSource {
  informer<T extends KubeObject>(kind: WatchedKind<T>, request?: InformerRequest): Informer<T>;
}

export interface SharedInformersOptions {
  readonly http: KubeHttp;
  /** With `--namespace`, every informer watches that namespace only. */
  readonly namespace?: string;
  readonly registry?: Registry;
  readonly logger: RuntimeLogger;
}

interface Entry {
  readonly informer: Informer<KubeObject>;
  readonly kind: WatchedKind<KubeObject>;
  readonly runByCaller: boolean;
}

export class SharedInformers implements InformerSource {
  readonly #options: SharedInformersOptions;
  readonly #parent: SharedInformers | undefined;
  readonly #own = new Map<string, Entry>();

  constructor(options: SharedInformersOptions, parent?: SharedInformers) {
    this.#options = options;
    this.#parent = parent;
  }

  informer<T extends KubeObject>(kind: WatchedKind<T>, request: InformerRequest = {}): Informer<T> {
    const { group, version, plural } = kind.resource;
    const key = `${group}/${version}/${plural}?${request.labelSelector ?? ''}&${request.fieldSelector ?? ''}`;
    const runByCaller = request.runByCaller === true;
    const existing = this.#find(key);
    if (existing !== undefined) {
      // A programming error, not a cluster state: refuse it before anything runs.
      if (existing.kind !== kind) throw new Error(`the informer for ${key} was asked for with two kind descriptors`);
      if (existing.runByCaller !== runByCaller) {
        throw new Error(`the informer for ${key} was asked for both as run by its caller and as run by the set`);
      }
      // Sound: the same kind object made this informer, so its objects are T.
      return existing.informer as unknown as Informer<T>;
    }
    const { http, namespace, registry, logger } = this.#options;
    const informer = new Informer<T>({
      source: new KubeListWatchSource(http, kind.resource, {
        ...(namespace === undefined ? {} : { namespace }),
        ...(request.labelSelector === undefined ? {} : { labelSelector: request.labelSelector }),
        ...(request.fieldSelector === undefined ? {} : { fieldSelector: request.fieldSelector }),
      }),
      kind,
      ...(registry === undefined ? {} : { registry }),
      logger,
    });
    this.#own.set(key, {
      informer: informer as unknown as Informer<KubeObject>,
      kind,
      runByCaller,
    });
    return informer;
  }

  /** A child set for one leadership term: new informers are its own, existing ones are shared. */
  forTerm(): SharedInformers {
    return new SharedInformers(this.#options, this);
  }

  /** The informers this set created (not its parent's). */
  own(): readonly Informer<KubeObject>[] {
    return [...this.#own.values()].map((entry) => entry.informer);
  }

  /** Runs this set's own informers, except those their callers run, until `signal` aborts. */
  async run(signal: AbortSignal): Promise<void> {
    const runs = [...this.#own.values()].filter((entry) => !entry.runByCaller);
    await Promise.all(runs.map((entry) => entry.informer.run(signal)));
  }

  #find(key: string): Entry | undefined {
    const own = this.#own.get(key);
    if (own !== undefined || this.#parent === undefined) return own;
    return this.#parent.#find(key);
  }
}
