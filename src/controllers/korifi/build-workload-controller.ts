// The Korifi build reconciler as a module (src/runtime/controller-module.ts) of the korifi group,
// leader only (docs/decisions.md D13, N41): the BuildWorkloads whose spec.builderName is nudger's,
// woken by the kpack Images, Builds, Builders and the default ClusterBuilder they depend on, and by
// their CFBuild and CFApp (the lifecycles).
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import type { RegistryClientOptions } from '../../adapters/registry/client.ts';
import {
  KorifiKindCaches,
  BUILD_WORKLOADS_KIND,
  CF_APPS_KIND,
  CF_BUILDS_KIND,
  KPACK_BUILDERS_KIND,
  KPACK_BUILDS_KIND,
  KPACK_CLUSTER_BUILDERS_KIND,
  KPACK_IMAGES_KIND,
} from '../../cluster/korifi-watched-kinds.ts';
import {
  KORIFI_APP_GUID_LABEL,
  KORIFI_BUILD_WORKLOAD_NAME_LABEL,
  KPACK_IMAGE_LABEL,
} from '../../domain/korifi/labels.ts';
import type { ControllerModule } from '../../runtime/controller-module.ts';
import { Controller, generationChanged } from '../../runtime/controller.ts';
import type { ObjectKey } from '../../runtime/reconciler.ts';
import type { Store } from '../../runtime/store.ts';
import type { OptionalKindCache } from '../../runtime/optional-kind.ts';
import type { BuildWorkload } from '../../schema/korifi.ts';
import type { ControllerSettings } from '../settings.ts';
import {
  BuildWorkloadReconciler,
  type BuildReconcilerSettings,
  type DropletReader,
} from './build-workload-reconciler.ts';
import { registryDropletReader } from './droplet-reader.ts';
import { runWhenListable } from './run-when-listable.ts';
import { KORIFI_SETTING_DEFAULTS, type KorifiControllerSettings } from './settings.ts';

/** What the manager's flags do not set: how the droplet's image config is read. */
export interface BuildControllerExtras {
  /** Default: the registry client with `registry` (anonymous, loopback registries over HTTP). */
  readonly droplets?: DropletReader;
  readonly registry?: RegistryClientOptions;
}

/** The settings with their defaults (docs/decisions.md N39, N41). */
export function buildReconcilerSettings(options: KorifiControllerSettings = {}): BuildReconcilerSettings {
  return {
    builderName: options.builderName ?? KORIFI_SETTING_DEFAULTS.builderName,
    clusterBuilderName: options.clusterBuilderName ?? KORIFI_SETTING_DEFAULTS.clusterBuilderName,
    repositoryPrefix: options.repositoryPrefix ?? '',
    readinessTimeoutMs: options.readinessTimeoutMs ?? KORIFI_SETTING_DEFAULTS.readinessTimeoutMs,
  };
}

/** The unfinished BuildWorkloads nudger builds, of one namespace or (undefined) all. */
function openWorkloads(store: Store<BuildWorkload>, builderName: string, namespace?: string): BuildWorkload[] {
  return store
    .list(namespace)
    .filter(
      (w) =>
        w.spec?.builderName === builderName &&
        w.status?.conditions?.some((c) => c.type === 'Succeeded' && c.status !== 'Unknown') !== true,
    );
}

const keyOf = (object: KubeObject): ObjectKey => ({
  namespace: object.metadata?.namespace ?? '',
  name: object.metadata?.name ?? '',
});

/** The module, with a droplet reader of one's own (tests, a registry with credentials). */
export function korifiBuildControllerWith(extras: BuildControllerExtras = {}): ControllerModule<ControllerSettings> {
  return {
    name: 'korifi-build',
    group: 'korifi',
    leaderOnly: true,
    setUp(context) {
      const { client, events, registry, logger, cacheSyncTimeoutMs, settings } = context;
      const options = settings.korifi ?? {};
      const resolved = buildReconcilerSettings(options);
      // Korifi or kpack may be installed after the manager starts: each kind is probed first and
      // the controller starts once all can be listed (docs/decisions.md N39).
      const kinds = KorifiKindCaches.of(context);
      const workloadsCache = kinds.cache(BUILD_WORKLOADS_KIND);
      const cfAppsCache = kinds.cache(CF_APPS_KIND);
      const cfBuildsCache = kinds.cache(CF_BUILDS_KIND);
      const imagesCache = kinds.cache(KPACK_IMAGES_KIND);
      const buildsCache = kinds.cache(KPACK_BUILDS_KIND);
      const buildersCache = kinds.cache(KPACK_BUILDERS_KIND);
      const clusterBuildersCache = kinds.cache(KPACK_CLUSTER_BUILDERS_KIND);
      const caches = [
        workloadsCache,
        cfAppsCache,
        cfBuildsCache,
        imagesCache,
        buildsCache,
        buildersCache,
        clusterBuildersCache,
      ] as unknown as readonly OptionalKindCache<KubeObject>[];
      const workloads = workloadsCache.informer;
      const cfApps = cfAppsCache.informer;
      const cfBuilds = cfBuildsCache.informer;
      const images = imagesCache.informer;
      const builds = buildsCache.informer;
      const builders = buildersCache.informer;
      const clusterBuilders = clusterBuildersCache.informer;
      const controller = new Controller({
        reconciler: new BuildWorkloadReconciler({
          ...resolved,
          client,
          buildWorkloads: workloads.store,
          cfApps: cfApps.store,
          cfBuilds: cfBuilds.store,
          images: images.store,
          builds: builds.store,
          builders: builders.store,
          clusterBuilders: clusterBuilders.store,
          droplets: extras.droplets ?? registryDropletReader(client, extras.registry),
          events,
        }),
        concurrency: options.workers ?? 4,
        registry,
        logger,
        ...(cacheSyncTimeoutMs === undefined ? {} : { cacheSyncTimeoutMs }),
      });
      const open = (namespace?: string) => openWorkloads(workloads.store, resolved.builderName, namespace).map(keyOf);
      const ofApp = (namespace: string, appGuid: string | undefined) =>
        appGuid === undefined
          ? []
          : openWorkloads(workloads.store, resolved.builderName, namespace)
              .filter((w) => w.metadata?.labels?.[KORIFI_APP_GUID_LABEL] === appGuid)
              .map(keyOf);
      // Status and label writes are the controller's own; spec edits and new workloads matter.
      controller.watch(workloads, { updatePredicate: generationChanged });
      // An Image wakes the workloads of its app (the Image is named by the app's GUID) and the one
      // that last asked for it.
      controller.watch(images, {
        map: (image) => {
          const namespace = image.metadata?.namespace ?? '';
          const keys = ofApp(namespace, image.metadata?.name);
          const last = image.metadata?.labels?.[KORIFI_BUILD_WORKLOAD_NAME_LABEL];
          return last === undefined || keys.some((k) => k.name === last) ? keys : [...keys, { namespace, name: last }];
        },
      });
      controller.watch(builds, {
        map: (build) => ofApp(build.metadata?.namespace ?? '', build.metadata?.labels?.[KPACK_IMAGE_LABEL]),
      });
      // A Builder's readiness gates the workloads of its space still waiting; the ClusterBuilder's, all.
      controller.watch(builders, { map: (builder) => open(builder.metadata?.namespace ?? '') });
      controller.watch(clusterBuilders, {
        map: (clusterBuilder) => (clusterBuilder.metadata?.name === resolved.clusterBuilderName ? open() : []),
      });
      controller.watch(cfBuilds, {
        map: (cfBuild) =>
          open(cfBuild.metadata?.namespace ?? '').filter(
            (key) => workloads.store.get(key.namespace, key.name)?.spec?.buildRef.name === cfBuild.metadata?.name,
          ),
        updatePredicate: generationChanged,
      });
      controller.watch(cfApps, {
        map: (cfApp) => ofApp(cfApp.metadata?.namespace ?? '', cfApp.metadata?.name),
        updatePredicate: generationChanged,
      });
      return runWhenListable(kinds, caches, controller, logger);
    },
  };
}

export const korifiBuildController: ControllerModule<ControllerSettings> = korifiBuildControllerWith();
