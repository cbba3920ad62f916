// The stack-update propagator (docs/decisions.md D13, N42): for one kpack Image of a CF app, read the
// Image, its latest Build, the app and the app's CFBuilds from the informer caches, ask the pure
// decision (src/domain/korifi/stack-update.ts) and carry out its intents in order: create the new
// droplet's CFBuild, write its status (status subresource), switch the app's currentDropletRef.
// Every read is a cache read but one: before the switch, the target CFBuild is read from the API
// server (see #carryOut), so a stack update costs three writes, one GET and one Event per app.
// Each step's failure stops the reconcile; the next decision, from the caches, finds the steps
// already done (the CFBuild's deterministic name and its annotations are the write-ahead record).
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { isAlreadyExists, isConflict, isNotFound } from '../../adapters/kubernetes/errors.ts';
import { CF_APPS, CF_BUILDS } from '../../adapters/kubernetes/korifi-resources.ts';
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import { fingerprint } from '../../domain/changegroup/fingerprint.ts';
import { toKubernetesTime } from '../../domain/changegroup/state.ts';
import {
  STACK_UPDATE_APPLIED_ANNOTATION,
  appOfImage,
  decideStackUpdate,
  imageView,
  propagatedEvent,
  type CFBuildView,
  type OwnerReferenceView,
  type StackUpdateEvent,
  type StackUpdateIntent,
} from '../../domain/korifi/stack-update.ts';
import { KPACK_REASON_ANNOTATION } from '../../domain/korifi/labels.ts';
import type { ObjectKey, ReconcileResult, Reconciler } from '../../runtime/reconciler.ts';
import { describeError, silentLogger, type RuntimeLogger } from '../../runtime/runtime-log.ts';
import type { Store } from '../../runtime/store.ts';
import { CF_APP_KIND, KORIFI_API_VERSION, type CFApp, type CFBuild } from '../../schema/korifi.ts';
import type { KpackBuild, KpackImage } from '../../schema/kpack.ts';
import { OnceEvents, tellOrLog } from '../dispatch/once-events.ts';

const FIELD_MANAGER = 'nudger-stack-update';
const CONTROLLER = 'korifi-stack-update';
/** How soon to look again when the cache has not yet caught up with this process's own write. */
const CACHE_LAG_REQUEUE_MS = 250;
/** How long a write of this process's may be missing from the cache before it is no longer awaited. */
const CACHE_LAG_LIMIT_MS = 30_000;
/** Facts told this process's life, so a resync does not POST an Event that exists (bounded). */
const MAX_TOLD = 20_000;

export interface StackUpdateReconcilerOptions {
  readonly client: ObjectClient;
  readonly images: Store<KpackImage>;
  readonly builds: Store<KpackBuild>;
  readonly apps: Store<CFApp>;
  readonly cfBuilds: Store<CFBuild>;
  readonly logger?: RuntimeLogger;
  readonly now?: () => Date;
  /**
   * Tests only: called before each intent is carried out; rejecting stops the reconcile there, as
   * a manager killed at that point would (the crash switch of the integration tests).
   */
  readonly beforeIntent?: (intent: StackUpdateIntent) => Promise<void>;
}

function ownerReferences(object: KubeObject): OwnerReferenceView[] {
  const refs: readonly unknown[] = object.metadata?.ownerReferences ?? [];
  return refs.flatMap((ref) => {
    if (typeof ref !== 'object' || ref === null) return [];
    const r = ref as Record<string, unknown>;
    if (typeof r.apiVersion !== 'string' || typeof r.kind !== 'string') return [];
    if (typeof r.name !== 'string' || typeof r.uid !== 'string') return [];
    return [
      {
        apiVersion: r.apiVersion,
        kind: r.kind,
        name: r.name,
        uid: r.uid,
        ...(typeof r.controller === 'boolean' ? { controller: r.controller } : {}),
        ...(typeof r.blockOwnerDeletion === 'boolean' ? { blockOwnerDeletion: r.blockOwnerDeletion } : {}),
      },
    ];
  });
}

/** A CFBuild as the decision reads it; undefined for one without the app and package it needs. */
export function cfBuildView(build: CFBuild): CFBuildView | undefined {
  const spec = build.spec;
  const app = spec?.appRef.name;
  const pkg = spec?.packageRef.name;
  const meta = build.metadata;
  const name = meta?.name;
  if (spec === undefined || app === undefined || pkg === undefined || meta === undefined || name === undefined) {
    return undefined;
  }
  const owners = ownerReferences(build);
  return {
    name,
    ...(meta.generation === undefined ? {} : { generation: meta.generation }),
    ...(meta.labels === undefined ? {} : { labels: meta.labels }),
    ...(meta.annotations === undefined ? {} : { annotations: meta.annotations }),
    ...(owners.length === 0 ? {} : { ownerReferences: owners }),
    spec: { ...spec, appRef: { ...spec.appRef, name: app }, packageRef: { ...spec.packageRef, name: pkg } },
    ...(build.status?.state === undefined ? {} : { state: build.status.state }),
    ...(build.status?.droplet === undefined ? {} : { droplet: build.status.droplet }),
  };
}

/** The CF app an Image builds, as Korifi links them (appOfImage), read from the caches. */
export function appNameOfImage(image: KpackImage, apps: Store<CFApp>, cfBuilds: Store<CFBuild>): string | undefined {
  const namespace = image.metadata?.namespace ?? '';
  return appOfImage(
    {
      name: image.metadata?.name ?? '',
      ...(image.metadata?.labels === undefined ? {} : { labels: image.metadata.labels }),
      ownerReferences: ownerReferences(image),
    },
    (name) => apps.get(namespace, name) !== undefined,
    (name) => cfBuilds.get(namespace, name)?.spec?.appRef.name,
  );
}

/** The Images whose app is `app` (namespace and name): the keys an app or CFBuild change wakes. */
export function imagesOfApp(
  namespace: string,
  app: string,
  images: Store<KpackImage>,
  apps: Store<CFApp>,
  cfBuilds: Store<CFBuild>,
): ObjectKey[] {
  return images
    .list(namespace)
    .filter((image) => appNameOfImage(image, apps, cfBuilds) === app)
    .map((image) => ({ namespace, name: image.metadata?.name ?? '' }));
}

export class StackUpdateReconciler implements Reconciler {
  readonly name = CONTROLLER;
  readonly #options: StackUpdateReconcilerOptions;
  readonly #once: OnceEvents;
  readonly #logger: RuntimeLogger;
  readonly #told = new Set<string>();
  /**
   * This process's own writes the caches may not show yet: CFBuilds created and their status
   * written (by namespace/name), apps switched (namespace/name → the resourceVersion they had
   * before). A decision from a cache that trails them would repeat the write (refused, or
   * idempotent but a request all the same); it waits a moment instead. Entries go as soon as the
   * cache shows the write, or after CACHE_LAG_LIMIT_MS (the object was changed again meanwhile, or
   * deleted): then the decision is carried out as it stands.
   */
  readonly #created = new Map<string, number>();
  readonly #statusWritten = new Map<string, number>();
  readonly #switchedFrom = new Map<string, { readonly resourceVersion: string; readonly at: number }>();

  constructor(options: StackUpdateReconcilerOptions) {
    this.#options = options;
    this.#once = new OnceEvents(options.client, FIELD_MANAGER);
    this.#logger = options.logger ?? silentLogger;
  }

  async reconcile(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const { images, builds, apps, cfBuilds } = this.#options;
    const image = images.get(key.namespace, key.name);
    if (image === undefined) return undefined;
    const appName = appNameOfImage(image, apps, cfBuilds);
    if (appName === undefined) return undefined; // not a CF app's Image
    const app = apps.get(key.namespace, appName);
    if (app === undefined) return undefined;
    const appKey = `${key.namespace}/${appName}`;
    const before = this.#switchedFrom.get(appKey);
    if (before !== undefined) {
      if (app.metadata?.resourceVersion === before.resourceVersion && this.#recent(before.at)) {
        return { requeueAfterMs: CACHE_LAG_REQUEUE_MS };
      }
      this.#switchedFrom.delete(appKey);
    }
    const appBuilds = cfBuilds
      .list(key.namespace)
      .filter((b) => b.spec?.appRef.name === appName)
      .flatMap((b) => cfBuildView(b) ?? []);
    for (const build of appBuilds) {
      this.#created.delete(`${key.namespace}/${build.name}`);
      if (build.droplet !== undefined) this.#statusWritten.delete(`${key.namespace}/${build.name}`);
    }
    const view = imageView(image);
    const latest = view.latestBuildRef === undefined ? undefined : builds.get(key.namespace, view.latestBuildRef);
    const reason = latest?.metadata?.annotations?.[KPACK_REASON_ANNOTATION];
    const decision = decideStackUpdate({
      image: view,
      ...(latest === undefined
        ? {}
        : { latestBuild: { name: latest.metadata?.name ?? '', ...(reason === undefined ? {} : { reason }) } }),
      app: {
        namespace: key.namespace,
        name: appName,
        ...(app.spec?.currentDropletRef?.name === undefined
          ? {}
          : { currentDropletRef: app.spec.currentDropletRef.name }),
        ...(app.metadata?.annotations?.[STACK_UPDATE_APPLIED_ANNOTATION] === undefined
          ? {}
          : { lastSwitchedTo: app.metadata.annotations[STACK_UPDATE_APPLIED_ANNOTATION] }),
      },
      builds: appBuilds,
      now: toKubernetesTime((this.#options.now ?? (() => new Date()))()),
    });
    if (decision.event !== undefined) await this.#tell(app, decision.event);
    for (const intent of decision.intents) {
      if (this.#cacheTrails(key.namespace, intent)) return { requeueAfterMs: CACHE_LAG_REQUEUE_MS };
      await this.#options.beforeIntent?.(intent);
      const done = await this.#carryOut(key.namespace, app, intent, signal);
      if (!done) return { requeueAfterMs: CACHE_LAG_REQUEUE_MS };
      if (intent.kind === 'switchDroplet') {
        const latestImage = view.latestImage ?? '';
        await this.#tell(
          app,
          propagatedEvent({ namespace: key.namespace, name: appName }, intent.to, intent.from, latestImage),
        );
        this.#logger.info(
          { controller: CONTROLLER, namespace: key.namespace, app: appName, from: intent.from, droplet: intent.to },
          'stack update rolled out',
        );
      }
    }
    return undefined;
  }

  /** The intent is a write of this process's that the cache does not show yet. */
  #cacheTrails(namespace: string, intent: StackUpdateIntent): boolean {
    const [writes, name] =
      intent.kind === 'createBuild'
        ? [this.#created, intent.build.metadata.name]
        : intent.kind === 'writeBuildStatus'
          ? [this.#statusWritten, intent.name]
          : [undefined, ''];
    const at = writes?.get(`${namespace}/${name}`);
    if (at === undefined) return false;
    if (this.#recent(at)) return true;
    writes?.delete(`${namespace}/${name}`);
    return false;
  }

  #recent(at: number): boolean {
    return this.#clock() - at < CACHE_LAG_LIMIT_MS;
  }

  #clock(): number {
    return (this.#options.now ?? (() => new Date()))().getTime();
  }

  /**
   * Our CFBuild `name` as the API server holds it (not the cache) is there and staged. When it is
   * gone, this process's own create and status write of it are no longer awaited in the cache:
   * the next decision creates it again at once.
   */
  async #stagedOnServer(namespace: string, name: string, signal: AbortSignal): Promise<boolean> {
    let build: (CFBuild & KubeObject) | undefined;
    try {
      build = await this.#options.client.get<CFBuild & KubeObject>(CF_BUILDS, namespace, name, signal);
    } catch (error) {
      if (!isNotFound(error)) throw error;
    }
    if (build === undefined || build.metadata?.deletionTimestamp !== undefined) {
      this.#created.delete(`${namespace}/${name}`);
      this.#statusWritten.delete(`${namespace}/${name}`);
      return false;
    }
    return build.status?.state === 'STAGED' && build.status.droplet !== undefined;
  }

  /** One intent; false when the API server refused it for a reason the caches will resolve. */
  async #carryOut(namespace: string, app: CFApp, intent: StackUpdateIntent, signal: AbortSignal): Promise<boolean> {
    const { client } = this.#options;
    const options = { fieldManager: FIELD_MANAGER, signal };
    try {
      switch (intent.kind) {
        case 'createBuild':
          await client.create(CF_BUILDS, intent.build, options);
          this.#created.set(`${namespace}/${intent.build.metadata.name}`, this.#clock());
          return true;
        case 'writeBuildStatus':
          await client.patchStatus(CF_BUILDS, namespace, intent.name, 'merge', { status: intent.status }, options);
          this.#statusWritten.set(`${namespace}/${intent.name}`, this.#clock());
          return true;
        case 'switchDroplet': {
          // The app's compare-and-swap (N22) covers the app only. A cache that trails the server
          // can still hold our CFBuild after Korifi's build cleanup (maxRetainedBuildsPerApp)
          // deleted it, as it does with a staged droplet that is not current yet once newer
          // builds came: switched from the cache, the app would name a droplet that is gone, and
          // no later decision finds a current droplet to roll out from (N42). So the target is
          // read from the server first; gone, or without its status, the switch waits for the
          // caches, and the next decision makes the droplet again. This narrows the window to the
          // time between this GET and the patch; Kubernetes has no write guarded by two objects.
          if (!(await this.#stagedOnServer(namespace, intent.to, signal))) return false;
          const resourceVersion = app.metadata?.resourceVersion;
          await client.patch(
            CF_APPS,
            namespace,
            intent.app,
            'merge',
            {
              // Compare-and-swap on the app the decision read (docs/decisions.md N22).
              metadata: {
                ...(resourceVersion === undefined ? {} : { resourceVersion }),
                annotations: { [STACK_UPDATE_APPLIED_ANNOTATION]: intent.to },
              },
              spec: { currentDropletRef: { name: intent.to } },
            },
            options,
          );
          if (resourceVersion !== undefined) {
            this.#switchedFrom.set(`${namespace}/${intent.app}`, { resourceVersion, at: this.#clock() });
          }
          return true;
        }
      }
    } catch (error) {
      // AlreadyExists, Conflict, NotFound: the cache trails the server; decide again from it soon.
      if (isAlreadyExists(error) || isConflict(error) || isNotFound(error)) {
        this.#logger.debug(
          { controller: CONTROLLER, namespace, step: intent.kind, error: describeError(error) },
          'stack update step refused; deciding again',
        );
        return false;
      }
      throw error;
    }
  }

  async #tell(app: CFApp, event: StackUpdateEvent): Promise<void> {
    const key = `${app.metadata?.namespace ?? ''}/${fingerprint(event.fact)}`;
    if (this.#told.has(key)) return;
    if (this.#told.size >= MAX_TOLD) this.#told.clear();
    this.#told.add(key);
    const involved: KubeObject = { ...(app as KubeObject), apiVersion: KORIFI_API_VERSION, kind: CF_APP_KIND };
    await tellOrLog(this.#once, this.#logger, CONTROLLER, involved, event.fact, {
      type: event.type,
      reason: event.reason,
      message: event.message,
    });
  }
}
