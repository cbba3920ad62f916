// The stack-update propagator as a module (src/runtime/controller-module.ts; docs/decisions.md D13,
// N42): korifi group, leader only. Keyed by kpack Image; wakes on an Image's change, on its latest
// Build's (whose reason annotation it reads), and on a change of a CFApp or CFBuild, mapped to the
// Images of that app. Everything it reads comes from these four caches.
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import {
  CF_APPS_KIND,
  CF_BUILDS_KIND,
  KorifiKindCaches,
  KPACK_BUILDS_KIND,
  KPACK_IMAGES_KIND,
} from '../../cluster/korifi-watched-kinds.ts';
import { KPACK_IMAGE_LABEL, KPACK_REASON_ANNOTATION } from '../../domain/korifi/labels.ts';
import { STACK_UPDATE_APPLIED_ANNOTATION, STACK_UPDATE_DROPLET_ANNOTATION } from '../../domain/korifi/stack-update.ts';
import type { ControllerContext, ControllerModule } from '../../runtime/controller-module.ts';
import { Controller } from '../../runtime/controller.ts';
import type { Informer } from '../../runtime/informer.ts';
import type { OptionalKindCache } from '../../runtime/optional-kind.ts';
import type { ObjectKey } from '../../runtime/reconciler.ts';
import type { CFApp, CFBuild } from '../../schema/korifi.ts';
import type { KpackBuild, KpackImage } from '../../schema/kpack.ts';
import type { ControllerSettings } from '../settings.ts';
import { runWhenListable } from './run-when-listable.ts';
import { StackUpdateReconciler, imagesOfApp, type StackUpdateReconcilerOptions } from './stack-update-reconciler.ts';

export interface StackUpdateCaches {
  readonly images: Informer<KpackImage>;
  readonly builds: Informer<KpackBuild>;
  readonly apps: Informer<CFApp>;
  readonly cfBuilds: Informer<CFBuild>;
}

/** A Build matters when it is (or stops being) an Image's latest with its reasons: its Image. */
function imageOfBuild(build: KpackBuild): ObjectKey[] {
  const image = build.metadata?.labels?.[KPACK_IMAGE_LABEL];
  if (image === undefined || build.metadata?.annotations?.[KPACK_REASON_ANNOTATION] === undefined) return [];
  return [{ namespace: build.metadata.namespace ?? '', name: image }];
}

function reasonChanged(previous: KpackBuild, current: KpackBuild): boolean {
  return (
    previous.metadata?.annotations?.[KPACK_REASON_ANNOTATION] !==
    current.metadata?.annotations?.[KPACK_REASON_ANNOTATION]
  );
}

/** The app's droplet reference or the propagator's annotation moved (not its status, not Korifi's labels). */
function appChanged(previous: CFApp, current: CFApp): boolean {
  return (
    previous.metadata?.generation !== current.metadata?.generation ||
    previous.metadata?.annotations?.[STACK_UPDATE_APPLIED_ANNOTATION] !==
      current.metadata?.annotations?.[STACK_UPDATE_APPLIED_ANNOTATION]
  );
}

/** A CFBuild changed in what the decision reads: spec, labels, annotations, state, droplet. */
function cfBuildChanged(previous: CFBuild, current: CFBuild): boolean {
  return (
    previous.metadata?.generation !== current.metadata?.generation ||
    previous.status?.state !== current.status?.state ||
    previous.status?.droplet?.registry.image !== current.status?.droplet?.registry.image ||
    previous.metadata?.annotations?.[STACK_UPDATE_DROPLET_ANNOTATION] !==
      current.metadata?.annotations?.[STACK_UPDATE_DROPLET_ANNOTATION]
  );
}

export function stackUpdateController(
  context: Pick<ControllerContext<unknown>, 'client' | 'registry' | 'logger' | 'cacheSyncTimeoutMs'>,
  caches: StackUpdateCaches,
  options: Pick<StackUpdateReconcilerOptions, 'beforeIntent' | 'now'> & { readonly workers?: number } = {},
): Controller {
  const { client, registry, logger, cacheSyncTimeoutMs } = context;
  const controller = new Controller({
    reconciler: new StackUpdateReconciler({
      client,
      images: caches.images.store,
      builds: caches.builds.store,
      apps: caches.apps.store,
      cfBuilds: caches.cfBuilds.store,
      logger,
      ...(options.beforeIntent === undefined ? {} : { beforeIntent: options.beforeIntent }),
      ...(options.now === undefined ? {} : { now: options.now }),
    }),
    // Apps are independent: a stack update over many spaces rolls out in parallel.
    concurrency: options.workers ?? 4,
    registry,
    logger,
    ...(cacheSyncTimeoutMs === undefined ? {} : { cacheSyncTimeoutMs }),
  });
  const ofApp = (namespace: string, app: string | undefined): ObjectKey[] =>
    app === undefined ? [] : imagesOfApp(namespace, app, caches.images.store, caches.apps.store, caches.cfBuilds.store);
  controller.watch(caches.images);
  controller.watch(caches.builds, { map: imageOfBuild, updatePredicate: reasonChanged });
  controller.watch(caches.apps, {
    map: (app) => ofApp(app.metadata?.namespace ?? '', app.metadata?.name),
    updatePredicate: appChanged,
  });
  controller.watch(caches.cfBuilds, {
    map: (build) => ofApp(build.metadata?.namespace ?? '', build.spec?.appRef.name),
    updatePredicate: cfBuildChanged,
  });
  return controller;
}

/** What the manager's flags do not set: the integration tests' crash switch and clock. */
export type StackUpdateExtras = Pick<StackUpdateReconcilerOptions, 'beforeIntent' | 'now'>;

/** The module, with extras (tests). */
export function stackUpdateControllerWith(extras: StackUpdateExtras = {}): ControllerModule<ControllerSettings> {
  return {
    name: 'korifi-stack-update',
    group: 'korifi',
    leaderOnly: true,
    setUp(context) {
      const { logger, settings } = context;
      // Korifi or kpack may be installed after the manager starts: each kind is probed first and
      // the controller starts once all can be listed (docs/decisions.md N39).
      const kinds = KorifiKindCaches.of(context);
      const images = kinds.cache(KPACK_IMAGES_KIND);
      const builds = kinds.cache(KPACK_BUILDS_KIND);
      const apps = kinds.cache(CF_APPS_KIND);
      const cfBuilds = kinds.cache(CF_BUILDS_KIND);
      const workers = settings.korifi?.workers;
      const controller = stackUpdateController(
        context,
        { images: images.informer, builds: builds.informer, apps: apps.informer, cfBuilds: cfBuilds.informer },
        { ...extras, ...(workers === undefined ? {} : { workers }) },
      );
      const caches = [images, builds, apps, cfBuilds] as unknown as readonly OptionalKindCache<KubeObject>[];
      return runWhenListable(kinds, caches, controller, logger);
    },
  };
}

/** The module the manager runs with `--controllers=korifi` (or `all`). */
export const stackUpdateControllerModule: ControllerModule<ControllerSettings> = stackUpdateControllerWith();
