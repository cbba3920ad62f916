// Korifi and kpack objects as the API server serves them, for the decoder tests and for any test
// that needs a realistic one. Field names are upstream's; values are made up.
import type { KorifiKind } from '../../../src/domain/korifi/objects.ts';

const served = (name: string, namespace?: string) => ({
  name,
  ...(namespace === undefined ? {} : { namespace }),
  uid: '0b9e8f2c-5c1d-4f0a-9a53-0e6c2f1b7a11',
  resourceVersion: '4711',
  generation: 2,
  creationTimestamp: '2026-01-15T10:20:00Z',
  managedFields: [{ manager: 'korifi', operation: 'Update', time: '2026-01-15T10:20:00Z', fieldsV1: {} }],
});

export const SPACE = 'cf-space-1';
export const APP_GUID = 'app-guid-1';
export const BUILD_GUID = 'build-guid-1';

const condition = (type: string, status: string, reason: string) => ({
  type,
  status,
  reason,
  message: `${type} is ${status}`,
  lastTransitionTime: '2026-01-15T10:21:00Z',
  observedGeneration: 2,
});

export function cfApp(): Record<string, unknown> {
  return {
    apiVersion: 'korifi.cloudfoundry.org/v1alpha1',
    kind: 'CFApp',
    metadata: served(APP_GUID, SPACE),
    spec: {
      displayName: 'my-app',
      desiredState: 'STARTED',
      lifecycle: {
        type: 'buildpack',
        data: { buildpacks: ['paketo-buildpacks/nodejs'], stack: 'io.buildpacks.stacks.jammy' },
      },
      currentDropletRef: { name: BUILD_GUID },
      envSecretName: `${APP_GUID}-env`,
    },
    status: {
      conditions: [condition('Ready', 'True', 'Ready')],
      observedGeneration: 2,
      actualState: 'STARTED',
      vcapServicesSecretName: 'x',
    },
  };
}

export function cfPackage(): Record<string, unknown> {
  return {
    apiVersion: 'korifi.cloudfoundry.org/v1alpha1',
    kind: 'CFPackage',
    metadata: { ...served('package-guid-1', SPACE), labels: { 'korifi.cloudfoundry.org/app-guid': APP_GUID } },
    spec: {
      type: 'bits',
      appRef: { name: APP_GUID },
      source: { registry: { image: 'registry.local/packages/p1', imagePullSecrets: [{ name: 'pull' }] } },
    },
    status: { conditions: [condition('Ready', 'True', 'SourceImageSet')], observedGeneration: 2 },
  };
}

export function cfBuild(): Record<string, unknown> {
  return {
    apiVersion: 'korifi.cloudfoundry.org/v1alpha1',
    kind: 'CFBuild',
    metadata: served(BUILD_GUID, SPACE),
    spec: {
      packageRef: { name: 'package-guid-1' },
      appRef: { name: APP_GUID },
      stagingMemoryMB: 1024,
      stagingDiskMB: 2048,
      lifecycle: { type: 'buildpack', data: { buildpacks: [], stack: 'cflinuxfs3' } },
    },
    status: {
      state: 'STAGED',
      observedGeneration: 2,
      conditions: [condition('Succeeded', 'True', 'BuildSucceeded')],
      droplet: {
        registry: {
          image: 'registry.local/droplets/app-guid-1-droplets@sha256:' + 'a'.repeat(64),
          imagePullSecrets: [],
        },
        stack: 'io.buildpacks.stacks.jammy',
        processTypes: [{ type: 'web', command: 'npm start' }],
        ports: [8080],
      },
    },
  };
}

export function cfProcess(): Record<string, unknown> {
  return {
    apiVersion: 'korifi.cloudfoundry.org/v1alpha1',
    kind: 'CFProcess',
    metadata: served('process-guid-1', SPACE),
    spec: {
      appRef: { name: APP_GUID },
      processType: 'web',
      detectedCommand: 'npm start',
      desiredInstances: 1,
      memoryMB: 256,
      diskQuotaMB: 1024,
      healthCheck: { type: 'port', data: { invocationTimeoutSeconds: 1, timeoutSeconds: 60 } },
    },
  };
}

export function buildWorkload(): Record<string, unknown> {
  return {
    apiVersion: 'korifi.cloudfoundry.org/v1alpha1',
    kind: 'BuildWorkload',
    metadata: {
      ...served(BUILD_GUID, SPACE),
      labels: { 'korifi.cloudfoundry.org/app-guid': APP_GUID, 'korifi.cloudfoundry.org/build-guid': BUILD_GUID },
    },
    spec: {
      buildRef: { name: BUILD_GUID },
      builderName: 'nudger-kpack',
      source: { registry: { image: 'registry.local/packages/p1', imagePullSecrets: [{ name: 'pull' }] } },
      buildpacks: ['paketo-buildpacks/nodejs'],
      env: [{ name: 'VCAP_SERVICES', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }],
      services: [{ kind: 'Secret', name: 'binding', apiVersion: 'v1' }],
    },
    status: {
      observedGeneration: 2,
      conditions: [condition('Succeeded', 'Unknown', 'BuildRunning')],
    },
  };
}

export function kpackImage(): Record<string, unknown> {
  return {
    apiVersion: 'kpack.io/v1alpha2',
    kind: 'Image',
    metadata: {
      ...served(APP_GUID, SPACE),
      labels: { 'korifi.cloudfoundry.org/build-workload-name': BUILD_GUID },
      ownerReferences: [
        { apiVersion: 'korifi.cloudfoundry.org/v1alpha1', kind: 'BuildWorkload', name: BUILD_GUID, uid: 'u' },
      ],
    },
    spec: {
      tag: `registry.local/droplets/${APP_GUID}-droplets`,
      builder: { kind: 'ClusterBuilder', name: 'cf-kpack-cluster-builder', apiVersion: 'kpack.io/v1alpha2' },
      serviceAccountName: 'kpack-service-account',
      source: { registry: { image: 'registry.local/packages/p1', imagePullSecrets: [{ name: 'pull' }] } },
      build: { env: [], resources: { requests: { memory: '1024M' } } },
      cache: { volume: { size: '1024Mi' } },
    },
    status: {
      observedGeneration: 2,
      conditions: [
        { type: 'Ready', status: 'True', reason: 'UpToDate', lastTransitionTime: '2026-01-15T10:22:00Z' },
        { type: 'BuilderReady', status: 'True' },
      ],
      latestBuildRef: `${APP_GUID}-build-2`,
      latestBuildImageGeneration: 2,
      latestImage: `registry.local/droplets/${APP_GUID}-droplets@sha256:${'b'.repeat(64)}`,
      latestStack: 'io.buildpacks.stacks.jammy',
      buildCounter: 2,
      latestBuildReason: 'STACK',
    },
  };
}

export function kpackBuild(): Record<string, unknown> {
  return {
    apiVersion: 'kpack.io/v1alpha2',
    kind: 'Build',
    metadata: {
      ...served(`${APP_GUID}-build-2`, SPACE),
      labels: {
        'image.kpack.io/image': APP_GUID,
        'image.kpack.io/imageGeneration': '2',
        'image.kpack.io/buildNumber': '2',
        'korifi.cloudfoundry.org/build-workload-name': BUILD_GUID,
      },
      annotations: { 'image.kpack.io/reason': 'STACK', 'image.kpack.io/buildChanges': '[]' },
    },
    spec: {
      tags: [`registry.local/droplets/${APP_GUID}-droplets`],
      builder: { image: 'registry.local/builder@sha256:' + 'c'.repeat(64) },
      serviceAccountName: 'kpack-service-account',
      source: { registry: { image: 'registry.local/packages/p1' } },
      runImage: { image: 'registry.local/run@sha256:' + 'd'.repeat(64) },
      lastBuild: { image: 'registry.local/droplets/old', stackId: 'io.buildpacks.stacks.jammy' },
    },
    status: {
      conditions: [{ type: 'Succeeded', status: 'True' }],
      buildMetadata: [{ id: 'paketo-buildpacks/nodejs', version: '1.2.3' }],
      stack: { id: 'io.buildpacks.stacks.jammy', runImage: 'registry.local/run@sha256:' + 'd'.repeat(64) },
      lifecycleVersion: '0.17.0',
      latestImage: `registry.local/droplets/${APP_GUID}-droplets@sha256:${'b'.repeat(64)}`,
      podName: 'pod',
      stepsCompleted: ['prepare', 'rebase'],
    },
  };
}

function builderBody(): Record<string, unknown> {
  return {
    spec: {
      tag: 'registry.local/builders/b',
      stack: { kind: 'ClusterStack', name: 'cf-default-stack' },
      store: { kind: 'ClusterStore', name: 'cf-default-buildpacks' },
      order: [{ group: [{ id: 'paketo-buildpacks/nodejs' }] }],
    },
    status: {
      observedGeneration: 1,
      conditions: [
        { type: 'Ready', status: 'True' },
        { type: 'UpToDate', status: 'True' },
      ],
      builderMetadata: [{ id: 'paketo-buildpacks/nodejs', version: '1.2.3' }],
      order: [{ group: [{ id: 'paketo-buildpacks/nodejs', version: '1.2.3' }] }],
      stack: { id: 'io.buildpacks.stacks.jammy', runImage: 'registry.local/run@sha256:' + 'd'.repeat(64) },
      latestImage: 'registry.local/builders/b@sha256:' + 'e'.repeat(64),
      os: 'linux',
    },
  };
}

export function kpackBuilder(): Record<string, unknown> {
  const body = builderBody();
  return {
    apiVersion: 'kpack.io/v1alpha2',
    kind: 'Builder',
    metadata: { ...served('builder-1', SPACE), labels: { 'korifi.cloudfoundry.org/app-guid': APP_GUID } },
    ...body,
    spec: { ...(body.spec as object), serviceAccountName: 'kpack-service-account' },
  };
}

export function kpackClusterBuilder(): Record<string, unknown> {
  const body = builderBody();
  return {
    apiVersion: 'kpack.io/v1alpha2',
    kind: 'ClusterBuilder',
    metadata: served('cf-kpack-cluster-builder'),
    ...body,
    spec: { ...(body.spec as object), serviceAccountRef: { name: 'kpack-service-account', namespace: 'cf' } },
  };
}

/** One sample of each kind nudger decodes, by kind. */
export const SAMPLES: Readonly<Record<KorifiKind, () => Record<string, unknown>>> = {
  BuildWorkload: buildWorkload,
  CFApp: cfApp,
  CFBuild: cfBuild,
  CFPackage: cfPackage,
  CFProcess: cfProcess,
  Image: kpackImage,
  Build: kpackBuild,
  Builder: kpackBuilder,
  ClusterBuilder: kpackClusterBuilder,
};
