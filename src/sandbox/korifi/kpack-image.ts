// The image the sandbox's kpack stand-in "builds" (docs/decisions.md N43): two small layers, a run
// layer standing for the stack's run image and an app layer standing for what the buildpacks
// made, and the config labels a Cloud Native Buildpacks build writes, so that readers of real
// kpack output (Korifi's droplet: process types from `io.buildpacks.build.metadata`, ports from
// `ExposedPorts`) read this one the same way. The app layer depends only on the source and the
// buildpacks, so a STACK rebuild gives a new image digest over the same app layer, as a kpack
// rebase does.
import { sha256Digest } from '../../adapters/registry/client.ts';
import { tarArchive } from '../../adapters/registry/tar.ts';
import { BUILDPACKS_BUILD_METADATA_LABEL } from '../../domain/korifi/labels.ts';
import type { BuildpackInfo } from './kpack-rebuild.ts';

/** The stack id label every buildpacks-built image carries. */
export const BUILDPACKS_STACK_ID_LABEL = 'io.buildpacks.stack.id';
/** The lifecycle's record of the layers: run image, its top layer, the buildpacks' and app layers. */
export const BUILDPACKS_LIFECYCLE_METADATA_LABEL = 'io.buildpacks.lifecycle.metadata';
/** The project (source) the image was built from. */
export const BUILDPACKS_PROJECT_METADATA_LABEL = 'io.buildpacks.project.metadata';
/** The lifecycle version the stand-in reports on Builds and builders. */
export const STAND_IN_LIFECYCLE_VERSION = '0.17.0';

/** A process type as the lifecycle records it in `io.buildpacks.build.metadata`. */
export interface BuildpackProcess {
  readonly type: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly direct: boolean;
  readonly buildpackID: string;
}

/** What the app image holds beyond its layers' content: process types and exposed ports. */
export interface LaunchFacts {
  readonly processes: readonly { readonly type: string; readonly command: string; readonly args?: readonly string[] }[];
  /** Container ports, e.g. 8080 (each written as `<port>/tcp`). */
  readonly ports: readonly number[];
}

export interface FakeImageInput {
  /** What the build was built from (the Build's `spec.source`). */
  readonly source: unknown;
  readonly buildpacks: readonly BuildpackInfo[];
  readonly stack: { readonly id: string; readonly runImage: string };
  readonly launch: LaunchFacts;
}

/** An image to push: its layers (uncompressed tar archives) and the config it carries. */
export interface FakeImage {
  readonly layers: readonly Uint8Array[];
  readonly labels: Readonly<Record<string, string>>;
  /** `ExposedPorts` keys, e.g. `8080/tcp`. */
  readonly exposedPorts: readonly string[];
  /** The layers' diff ids (sha256 of each uncompressed archive), in order: run layer, app layer. */
  readonly layerDigests: readonly string[];
}

const bytesOf = (text: string): Uint8Array => new TextEncoder().encode(text);

/** A web process started by `./start`, on 8080: what the stand-in builds unless told otherwise. */
export const DEFAULT_LAUNCH: LaunchFacts = { processes: [{ type: 'web', command: './start' }], ports: [8080] };

/** The image for one Build: layers and the buildpacks labels. */
export function fakeBuildpacksImage(input: FakeImageInput): FakeImage {
  const runLayer = tarArchive([{ path: 'etc/run-image', content: `${input.stack.runImage}\n` }]);
  const appLayer = tarArchive([
    {
      path: 'workspace/droplet.json',
      content: `${JSON.stringify({ source: input.source, buildpacks: input.buildpacks })}\n`,
    },
  ]);
  const [runDigest, appDigest] = [sha256Digest(runLayer), sha256Digest(appLayer)];
  const firstBuildpack = input.buildpacks[0]?.id ?? '';
  const buildMetadata = {
    processes: input.launch.processes.map((process): BuildpackProcess => ({
      type: process.type,
      command: process.command,
      args: process.args ?? [],
      direct: false,
      buildpackID: firstBuildpack,
    })),
    buildpacks: input.buildpacks.map((buildpack) => ({ id: buildpack.id, version: buildpack.version })),
    bom: null,
    launcher: { version: STAND_IN_LIFECYCLE_VERSION, source: { git: { repository: '', commit: '' } } },
  };
  const lifecycleMetadata = {
    app: [{ sha: appDigest }],
    buildpacks: input.buildpacks.map((buildpack) => ({ key: buildpack.id, version: buildpack.version, layers: {} })),
    runImage: { topLayer: runDigest, reference: input.stack.runImage },
    stack: { runImage: { image: input.stack.runImage } },
  };
  return {
    layers: [runLayer, appLayer],
    layerDigests: [runDigest, appDigest],
    labels: {
      [BUILDPACKS_BUILD_METADATA_LABEL]: JSON.stringify(buildMetadata),
      [BUILDPACKS_STACK_ID_LABEL]: input.stack.id,
      [BUILDPACKS_LIFECYCLE_METADATA_LABEL]: JSON.stringify(lifecycleMetadata),
      [BUILDPACKS_PROJECT_METADATA_LABEL]: JSON.stringify({ source: { type: 'image', metadata: input.source } }),
    },
    exposedPorts: input.launch.ports.map((port) => `${String(port)}/tcp`),
  };
}

/** A digest derived from `seed`: what the stand-in reports for images it does not push (builders, stacks). */
export function syntheticDigest(seed: string): string {
  return sha256Digest(bytesOf(seed));
}
