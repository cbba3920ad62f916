// Korifi and kpack objects for the build reconciler's pure tests (docs/decisions.md N41).
import type { KpackBuilderView } from '../../../src/domain/korifi/builder-choice.ts';
import type { BuildWorkloadView, KpackBuildView } from '../../../src/domain/korifi/build-workload-status.ts';

export const NAMESPACE = 'space-1';
export const APP = '0b5f1c2e-7d3a-4c1e-9f00-000000000001';
export const BUILD = '7c1d2e3f-aaaa-4bbb-8ccc-000000000002';
export const CLUSTER_BUILDER = 'cf-kpack-cluster-builder';
export const PREFIX = 'registry.local/cf/';

export function clusterBuilder(
  ids: readonly string[] = ['paketo-buildpacks/nodejs', 'paketo-buildpacks/go'],
): KpackBuilderView {
  return {
    metadata: { name: CLUSTER_BUILDER, generation: 1 },
    spec: {
      tag: `${PREFIX}cluster-builder`,
      stack: { kind: 'ClusterStack', name: 'cf-default-stack' },
      store: { kind: 'ClusterStore', name: 'cf-default-buildpacks' },
    },
    status: {
      observedGeneration: 1,
      conditions: [{ type: 'Ready', status: 'True' }],
      order: ids.map((id) => ({ group: [{ id }] })),
      builderMetadata: [...ids.map((id) => ({ id })), { id: 'paketo-buildpacks/node-engine' }],
    },
  };
}

export function workload(
  overrides: Partial<BuildWorkloadView['metadata']> = {},
  buildpacks?: string[],
): BuildWorkloadView {
  return {
    metadata: {
      name: BUILD,
      namespace: NAMESPACE,
      uid: `uid-${BUILD}`,
      generation: 1,
      creationTimestamp: '2026-01-01T00:00:00.000Z',
      labels: { 'korifi.cloudfoundry.org/app-guid': APP, 'korifi.cloudfoundry.org/build-guid': BUILD },
      ...overrides,
    },
    spec: {
      buildRef: { name: BUILD },
      builderName: 'nudger-kpack',
      ...(buildpacks === undefined ? {} : { buildpacks }),
      source: { registry: { image: 'registry.local/cf/packages/pkg-1', imagePullSecrets: [{ name: 'pull' }] } },
    },
  };
}

export function kpackBuild(n: number, generation: number, succeeded?: 'True' | 'False', image = APP): KpackBuildView {
  return {
    metadata: {
      name: `${image}-build-${n}`,
      labels: {
        'image.kpack.io/image': image,
        'image.kpack.io/imageGeneration': String(generation),
        'image.kpack.io/buildNumber': String(n),
      },
    },
    status: {
      conditions: succeeded === undefined ? [] : [{ type: 'Succeeded', status: succeeded, reason: 'X', message: 'y' }],
      ...(succeeded === 'True'
        ? { latestImage: `registry.local/cf/${image}-droplets@sha256:${String(n).padStart(64, '0')}` }
        : {}),
      stack: { id: 'io.buildpacks.stacks.jammy', runImage: 'run' },
    },
  };
}
