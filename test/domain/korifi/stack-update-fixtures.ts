// Shared objects for the stack-update decision's tests (docs/decisions.md D13, N42): one space, one
// app, its staged droplet and the kpack Image that built it.
import type {
  AppView,
  CFBuildView,
  DropletStatus,
  ImageView,
  NewCFBuild,
  StagedStatus,
} from '../../../src/domain/korifi/stack-update.ts';

export const SPACE = 'space-a';
export const APP = '6f1b2c3d-app';
export const NOW = '2026-01-02T03:04:05Z';
export const REPO = 'registry.local/droplets/6f1b2c3d-app-droplets';

export function imageRef(n: number): string {
  return `${REPO}@sha256:${n.toString(16).padStart(64, '0')}`;
}

export function droplet(image: string, stack = 'io.buildpacks.stacks.jammy'): DropletStatus {
  return {
    registry: { image, imagePullSecrets: [{ name: 'registry-pull' }] },
    stack,
    processTypes: [{ type: 'web', command: 'bundle exec rackup' }],
    ports: [8080],
  };
}

export function cfBuild(name: string, image: string | undefined): CFBuildView {
  return {
    name,
    generation: 1,
    labels: { 'korifi.cloudfoundry.org/app-guid': APP },
    ownerReferences: [{ apiVersion: 'korifi.cloudfoundry.org/v1alpha1', kind: 'CFApp', name: APP, uid: 'uid-app' }],
    spec: {
      appRef: { name: APP },
      packageRef: { name: 'pkg-1' },
      stagingMemoryMB: 1024,
      stagingDiskMB: 2048,
      lifecycle: { type: 'buildpack', data: { buildpacks: [], stack: 'cflinuxfs3' } },
    },
    ...(image === undefined ? { state: 'STAGING' } : { state: 'STAGED', droplet: droplet(image) }),
  };
}

export function app(current: string | undefined, lastSwitchedTo?: string): AppView {
  return {
    namespace: SPACE,
    name: APP,
    ...(current === undefined ? {} : { currentDropletRef: current }),
    ...(lastSwitchedTo === undefined ? {} : { lastSwitchedTo }),
  };
}

export function image(
  fields: Partial<ImageView> & { readonly latestImage: string; readonly build?: number },
): ImageView {
  const build = fields.build ?? 2;
  return {
    namespace: SPACE,
    name: APP,
    generation: 1,
    observedGeneration: 1,
    ready: 'True',
    latestStack: 'io.buildpacks.stacks.jammy',
    latestBuildRef: `${APP}-build-${String(build)}`,
    latestBuildReason: 'STACK',
    ...fields,
  };
}

/** A CFBuild as the API server holds it once `build` was created (and, with `status`, written). */
export function asStored(build: NewCFBuild, status?: StagedStatus): CFBuildView {
  return {
    name: build.metadata.name,
    generation: 1,
    labels: build.metadata.labels,
    annotations: build.metadata.annotations,
    ...(build.metadata.ownerReferences === undefined ? {} : { ownerReferences: build.metadata.ownerReferences }),
    spec: build.spec,
    ...(status === undefined ? {} : { state: status.state, droplet: status.droplet }),
  };
}
