// The Korifi and kpack kinds the korifi controller group watches, each with its resource and its
// decoder (src/domain/korifi/objects.ts), like src/cluster/watched-kinds.ts for the Konflux kinds.
// None is watched unless the korifi group runs (`--controllers=korifi|all`), so a Konflux cluster
// without these CRDs never asks for them (docs/decisions.md N39).
import {
  BUILD_WORKLOADS,
  CF_APPS,
  CF_BUILDS,
  CF_PACKAGES,
  CF_PROCESSES,
  KPACK_BUILDERS,
  KPACK_BUILDS,
  KPACK_CLUSTER_BUILDERS,
  KPACK_IMAGES,
} from '../adapters/kubernetes/korifi-resources.ts';
import {
  decodeBuildWorkload,
  decodeCFApp,
  decodeCFBuild,
  decodeCFPackage,
  decodeCFProcess,
  decodeKpackBuild,
  decodeKpackBuilder,
  decodeKpackClusterBuilder,
  decodeKpackImage,
} from '../domain/korifi/objects.ts';
import type { WatchedKind } from '../runtime/watched-kind.ts';
import type { BuildWorkload, CFApp, CFBuild, CFPackage, CFProcess } from '../schema/korifi.ts';
import type { KpackBuild, KpackBuilder, KpackClusterBuilder, KpackImage } from '../schema/kpack.ts';

export const BUILD_WORKLOADS_KIND: WatchedKind<BuildWorkload> = {
  resource: BUILD_WORKLOADS,
  decode: decodeBuildWorkload,
};
export const CF_APPS_KIND: WatchedKind<CFApp> = { resource: CF_APPS, decode: decodeCFApp };
export const CF_BUILDS_KIND: WatchedKind<CFBuild> = { resource: CF_BUILDS, decode: decodeCFBuild };
export const CF_PACKAGES_KIND: WatchedKind<CFPackage> = { resource: CF_PACKAGES, decode: decodeCFPackage };
export const CF_PROCESSES_KIND: WatchedKind<CFProcess> = { resource: CF_PROCESSES, decode: decodeCFProcess };
export const KPACK_IMAGES_KIND: WatchedKind<KpackImage> = { resource: KPACK_IMAGES, decode: decodeKpackImage };
export const KPACK_BUILDS_KIND: WatchedKind<KpackBuild> = { resource: KPACK_BUILDS, decode: decodeKpackBuild };
export const KPACK_BUILDERS_KIND: WatchedKind<KpackBuilder> = { resource: KPACK_BUILDERS, decode: decodeKpackBuilder };
export const KPACK_CLUSTER_BUILDERS_KIND: WatchedKind<KpackClusterBuilder> = {
  resource: KPACK_CLUSTER_BUILDERS,
  decode: decodeKpackClusterBuilder,
};
