// Coordinates of the Korifi and kpack resources nudger's korifi controller group, its tests and the
// sandbox's kpack stand-in use (docs/decisions.md N39). kpack is read and written through v1alpha2,
// its storage version, so the API server never needs kpack's conversion webhook (absent from a
// Konflux cluster and from the local control plane alike).
import {
  BUILD_WORKLOAD_KIND,
  CF_APP_KIND,
  CF_BUILD_KIND,
  CF_PACKAGE_KIND,
  CF_PROCESS_KIND,
  KORIFI_GROUP,
  KORIFI_VERSION,
} from '../../schema/korifi.ts';
import {
  KPACK_BUILD_KIND,
  KPACK_BUILDER_KIND,
  KPACK_CLUSTER_BUILDER_KIND,
  KPACK_CLUSTER_STACK_KIND,
  KPACK_CLUSTER_STORE_KIND,
  KPACK_GROUP,
  KPACK_IMAGE_KIND,
  KPACK_VERSION,
} from '../../schema/kpack.ts';
import type { ResourceRef } from './types.ts';

const korifi = (plural: string, kind: string): ResourceRef => ({
  group: KORIFI_GROUP,
  version: KORIFI_VERSION,
  plural,
  kind,
  namespaced: true,
});
const kpack = (plural: string, kind: string, namespaced: boolean): ResourceRef => ({
  group: KPACK_GROUP,
  version: KPACK_VERSION,
  plural,
  kind,
  namespaced,
});

export const BUILD_WORKLOADS: ResourceRef = korifi('buildworkloads', BUILD_WORKLOAD_KIND);
export const CF_APPS: ResourceRef = korifi('cfapps', CF_APP_KIND);
export const CF_BUILDS: ResourceRef = korifi('cfbuilds', CF_BUILD_KIND);
export const CF_PACKAGES: ResourceRef = korifi('cfpackages', CF_PACKAGE_KIND);
export const CF_PROCESSES: ResourceRef = korifi('cfprocesses', CF_PROCESS_KIND);

export const KPACK_IMAGES: ResourceRef = kpack('images', KPACK_IMAGE_KIND, true);
export const KPACK_BUILDS: ResourceRef = kpack('builds', KPACK_BUILD_KIND, true);
export const KPACK_BUILDERS: ResourceRef = kpack('builders', KPACK_BUILDER_KIND, true);
export const KPACK_CLUSTER_BUILDERS: ResourceRef = kpack('clusterbuilders', KPACK_CLUSTER_BUILDER_KIND, false);
export const KPACK_CLUSTER_STACKS: ResourceRef = kpack('clusterstacks', KPACK_CLUSTER_STACK_KIND, false);
export const KPACK_CLUSTER_STORES: ResourceRef = kpack('clusterstores', KPACK_CLUSTER_STORE_KIND, false);
