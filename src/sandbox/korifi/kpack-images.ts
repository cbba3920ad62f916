// kpack's Image and Build reconcilers as the sandbox's kpack stand-in plays them (docs/decisions.md
// N43). For each Image whose builder is ready: the changes since its last Build (kpack-rebuild.ts)
// make a new Build, named, labelled and annotated as kpack makes it; the Build is "run" at once:
// an image with a buildpacks build's config labels is pushed to the Image's tag in a real
// registry, and the Build's and then the Image's status are written with kpack's fields. A Build
// found unfinished (the stand-in stopped mid-way) is run first; Builds are found by their
// `image.kpack.io/image` label, so none is made twice.
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { compareStrings } from '../../domain/compare.ts';
import { mapWithConcurrency } from '../../domain/concurrency.ts';
import { decodeKpackImage } from '../../domain/korifi/objects.ts';
import {
  KPACK_ADDITIONAL_BUILD_NEEDED_ANNOTATION,
  KPACK_BUILD_CHANGES_ANNOTATION,
  KPACK_BUILD_NUMBER_LABEL,
  KPACK_BUILDER_KIND_ANNOTATION,
  KPACK_BUILDER_NAME_ANNOTATION,
  KPACK_IMAGE_GENERATION_LABEL,
  KPACK_IMAGE_LABEL,
  KPACK_REASON_ANNOTATION,
} from '../../domain/korifi/labels.ts';
import { builderKey, type ResolvedBuilder, type StoreBuildpack } from './kpack-builders.ts';
import { fakeBuildpacksImage, STAND_IN_LIFECYCLE_VERSION, type FakeImage, type LaunchFacts } from './kpack-image.ts';
import {
  KPACK_API_VERSION,
  KPACK_BUILDS,
  KPACK_IMAGES,
  conditionStatus,
  keyOf,
  recordAt,
  recordsAt,
  repositoryOf,
  stringAt,
  withConditions,
  writeStatus,
  type ConditionUpdate,
  type KpackObject,
  type RejectedObject,
} from './kpack-objects.ts';
import {
  buildChanges,
  isRebase,
  reasonsOf,
  type BuildConfig,
  type BuildpackInfo,
  type LastBuildFacts,
} from './kpack-rebuild.ts';

/** Pushes `image` to `reference` (a tag) in a registry; resolves to the manifest digest. */
export type PushImage = (reference: string, image: FakeImage) => Promise<string>;

/** One Build the stand-in ran. */
export interface RanBuild {
  readonly namespace: string;
  readonly image: string;
  readonly build: string;
  readonly buildNumber: number;
  /** The reason annotation, e.g. `CONFIG`, `STACK`, `BUILDPACK,STACK`. */
  readonly reason: string;
  readonly succeeded: boolean;
  /** The image pushed, digest-pinned; absent when the Build failed. */
  readonly latestImage?: string;
  readonly stackId: string;
  readonly rebase: boolean;
  readonly message?: string;
}

export interface ImageRoundOptions {
  readonly namespace?: string;
  readonly now: () => Date;
  readonly builders: ReadonlyMap<string, ResolvedBuilder>;
  readonly push: PushImage;
  /** The process types and ports the app's image gets. */
  readonly launch: (image: KpackObject) => LaunchFacts;
  /** How many Images are reconciled at once (each one's steps stay in order). */
  readonly concurrency: number;
  /** Which group of the builder's order "detects" (kpack runs detection; the stand-in is told). */
  readonly detect: (image: KpackObject, order: readonly (readonly BuildpackInfo[])[]) => number;
  /** Whether this Image's Build fails (a buildpack that errors), instead of pushing an image. */
  readonly fails: (image: KpackObject) => boolean;
}

const buildNumberOf = (build: KpackObject): number => Number(build.metadata?.labels?.[KPACK_BUILD_NUMBER_LABEL] ?? 0);

/** An empty list, object or absent field are the same to CONFIG. */
function meaningful(value: unknown): unknown {
  if (Array.isArray(value)) return value.length === 0 ? null : value;
  if (value !== null && typeof value === 'object') return Object.keys(value).length === 0 ? null : value;
  return value ?? null;
}

function imageConfig(image: KpackObject): BuildConfig {
  const build = recordAt(image.spec, 'build');
  return {
    env: meaningful(build.env),
    resources: meaningful(build.resources),
    services: meaningful(build.services),
    cnbBindings: meaningful(build.cnbBindings),
    source: meaningful(image.spec?.source),
  };
}

function buildConfig(build: KpackObject): BuildConfig {
  const spec = build.spec ?? {};
  return {
    env: meaningful(spec.env),
    resources: meaningful(spec.resources),
    services: meaningful(spec.services),
    cnbBindings: meaningful(spec.cnbBindings),
    source: meaningful(spec.source),
  };
}

function buildpacksOf(build: KpackObject): BuildpackInfo[] {
  return recordsAt(build.status, 'buildMetadata').map((entry) => ({
    id: stringAt(entry, 'id') ?? '',
    version: stringAt(entry, 'version') ?? '',
  }));
}

function succeededOf(build: KpackObject): boolean | undefined {
  const status = conditionStatus(build, 'Succeeded');
  return status === 'True' ? true : status === 'False' ? false : undefined;
}

function lastBuildFacts(build: KpackObject): LastBuildFacts {
  return {
    succeeded: succeededOf(build),
    additionalBuildNeeded: build.metadata?.annotations?.[KPACK_ADDITIONAL_BUILD_NEEDED_ANNOTATION],
    config: buildConfig(build),
    buildpacks: buildpacksOf(build),
    runImage: stringAt(recordAt(build.status, 'stack'), 'runImage'),
  };
}

/** kpack's extra tag per Build: `<repo>:[<tag>-]b<n>.<YYYYMMDD>.<HHMMSS>`, in UTC here. */
function buildNumberTag(tag: string, buildNumber: number, now: Date): string {
  const repository = repositoryOf(tag);
  const own =
    tag.length > repository.length && !tag.slice(repository.length).startsWith('@')
      ? tag.slice(repository.length + 1)
      : 'latest';
  const iso = now.toISOString();
  const stamp = `${iso.slice(0, 10).replaceAll('-', '')}.${iso.slice(11, 19).replaceAll(':', '')}`;
  return `${repository}:${own === 'latest' ? '' : `${own}-`}b${String(buildNumber)}.${stamp}`;
}

/** The Build kpack makes for `image`: the `<image>-build-<n>-` name prefix, labels, annotations and spec. */
export function newBuild(
  image: KpackObject,
  builder: ResolvedBuilder,
  last: KpackObject | undefined,
  changes: ReturnType<typeof buildChanges>,
  buildNumber: number,
  now: Date,
): KpackObject {
  const name = image.metadata?.name ?? '';
  const spec = image.spec ?? {};
  const tag = stringAt(spec, 'tag') ?? '';
  const config = imageConfig(image);
  const lastSucceeded = last !== undefined && succeededOf(last) === true;
  const optional = (key: string, value: unknown): Record<string, unknown> =>
    value === null || value === undefined ? {} : { [key]: value };
  return {
    apiVersion: KPACK_API_VERSION,
    kind: 'Build',
    metadata: {
      generateName: `${name}-build-${String(buildNumber)}-`,
      namespace: image.metadata?.namespace ?? '',
      labels: {
        ...image.metadata?.labels,
        [KPACK_BUILD_NUMBER_LABEL]: String(buildNumber),
        [KPACK_IMAGE_LABEL]: name,
        [KPACK_IMAGE_GENERATION_LABEL]: String(image.metadata?.generation ?? 0),
      },
      annotations: {
        ...image.metadata?.annotations,
        [KPACK_REASON_ANNOTATION]: reasonsOf(changes),
        [KPACK_BUILD_CHANGES_ANNOTATION]: JSON.stringify(changes),
        [KPACK_BUILDER_NAME_ANNOTATION]: builder.name,
        [KPACK_BUILDER_KIND_ANNOTATION]: builder.kind,
      },
      ownerReferences: [
        {
          apiVersion: KPACK_API_VERSION,
          kind: 'Image',
          name,
          uid: image.metadata?.uid ?? '',
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    },
    spec: {
      tags: spec.imageTaggingStrategy === 'None' ? [tag] : [tag, buildNumberTag(tag, buildNumber, now)],
      builder: { image: builder.latestImage },
      ...optional('serviceAccountName', stringAt(spec, 'serviceAccountName')),
      source: spec.source,
      cache: {},
      ...optional('env', config.env),
      ...optional('resources', config.resources),
      ...optional('services', config.services),
      ...optional('cnbBindings', config.cnbBindings),
      runImage: { image: builder.stack.runImage },
      ...(last === undefined
        ? {}
        : lastSucceeded
          ? {
              lastBuild: {
                image: stringAt(last.status, 'latestImage') ?? '',
                cache: {},
                stackId: stringAt(recordAt(last.status, 'stack'), 'id') ?? '',
              },
            }
          : optional('lastBuild', last.spec?.lastBuild)),
      ...optional('projectDescriptorPath', stringAt(spec, 'projectDescriptorPath')),
      ...optional('defaultProcess', stringAt(spec, 'defaultProcess')),
    },
  };
}

/** The buildpacks a Build runs: a rebase keeps the last Build's; otherwise the detected group. */
function buildpacksToRun(
  image: KpackObject,
  build: KpackObject,
  builder: ResolvedBuilder,
  last: KpackObject | undefined,
  detect: ImageRoundOptions['detect'],
): { buildpacks: readonly BuildpackInfo[]; rebase: boolean } {
  const reason = build.metadata?.annotations?.[KPACK_REASON_ANNOTATION] ?? '';
  const lastStackId = stringAt(recordAt(build.spec, 'lastBuild'), 'stackId');
  if (last !== undefined && isRebase(reason, lastStackId, builder.stack.id)) {
    return { buildpacks: buildpacksOf(last), rebase: true };
  }
  const index = detect(image, builder.order);
  const group: readonly StoreBuildpack[] = builder.order[index] ?? builder.order[0] ?? [];
  return { buildpacks: group.map(({ id, version }) => ({ id, version })), rebase: false };
}

const FULL_BUILD_STEPS = ['prepare', 'analyze', 'detect', 'restore', 'build', 'export', 'completion'];
const REBASE_STEPS = ['prepare', 'rebase', 'completion'];

/** Runs `build`: pushes its image and writes its status; what it did. */
async function runBuild(
  client: ObjectClient,
  image: KpackObject,
  build: KpackObject,
  builder: ResolvedBuilder | undefined,
  last: KpackObject | undefined,
  options: ImageRoundOptions,
): Promise<{ build: KpackObject; ran: RanBuild }> {
  const name = build.metadata?.name ?? '';
  const base = {
    namespace: image.metadata?.namespace ?? '',
    image: image.metadata?.name ?? '',
    build: name,
    buildNumber: buildNumberOf(build),
    reason: build.metadata?.annotations?.[KPACK_REASON_ANNOTATION] ?? '',
  };
  const now = options.now().toISOString();
  const fail = async (message: string): Promise<{ build: KpackObject; ran: RanBuild }> => {
    const status = {
      observedGeneration: build.metadata?.generation ?? 0,
      conditions: withConditions(build, [{ type: 'Succeeded', status: 'False', reason: 'BuildFailed', message }], now),
      lifecycleVersion: STAND_IN_LIFECYCLE_VERSION,
      podName: `${name}-build-pod`,
    };
    const written = await writeStatus(client, KPACK_BUILDS, build, status);
    return { build: written, ran: { ...base, succeeded: false, stackId: '', rebase: false, message } };
  };
  if (builder?.ready !== true) return fail(`builder ${builder?.name ?? '(none)'} is not ready`);
  if (options.fails(image)) return fail('step build: exit status 1 (failed on purpose by the sandbox kpack stand-in)');
  const { buildpacks, rebase } = buildpacksToRun(image, build, builder, last, options.detect);
  const tags = Array.isArray(build.spec?.tags) ? build.spec.tags.filter((tag) => typeof tag === 'string') : [];
  const [tag] = tags;
  if (tag === undefined) return fail('spec.tags: no tag to export to');
  const fake = fakeBuildpacksImage({
    source: build.spec?.source ?? null,
    buildpacks,
    stack: builder.stack,
    launch: options.launch(image),
  });
  let digest: string;
  try {
    digest = await options.push(tag, fake);
    for (const extra of tags.slice(1)) await options.push(extra, fake);
  } catch (error) {
    return fail(`export: ${error instanceof Error ? error.message : String(error)}`);
  }
  const latestImage = `${repositoryOf(tag)}@${digest}`;
  const byId = new Map(builder.buildpacks.map((buildpack) => [buildpack.id, buildpack.homepage]));
  const status = {
    observedGeneration: build.metadata?.generation ?? 0,
    conditions: withConditions(build, [{ type: 'Succeeded', status: 'True' }], now),
    buildMetadata: buildpacks.map(({ id, version }) => ({ id, version, homepage: byId.get(id) ?? '' })),
    stack: { runImage: builder.stack.runImage, id: builder.stack.id },
    latestImage,
    lifecycleVersion: STAND_IN_LIFECYCLE_VERSION,
    podName: `${name}-build-pod`,
    stepsCompleted: rebase ? REBASE_STEPS : FULL_BUILD_STEPS,
  };
  const written = await writeStatus(client, KPACK_BUILDS, build, status);
  return { build: written, ran: { ...base, succeeded: true, latestImage, stackId: builder.stack.id, rebase } };
}

/** The Image's status as kpack derives it from its last Build and its builder. */
function imageStatus(
  image: KpackObject,
  last: KpackObject | undefined,
  builder: ResolvedBuilder | undefined,
  now: string,
): Record<string, unknown> {
  const builderName = stringAt(recordAt(image.spec, 'builder'), 'name') ?? '';
  const builderReady = builder?.ready === true;
  const succeeded = last === undefined ? undefined : succeededOf(last);
  const lastName = last?.metadata?.name ?? '';
  let ready: ConditionUpdate;
  if (!builderReady) {
    ready = {
      type: 'Ready',
      status: 'False',
      reason: 'BuilderNotReady',
      message: `Builder '${builderName}' is not ready`,
    };
  } else if (last === undefined || succeeded === undefined) {
    ready = { type: 'Ready', status: 'Unknown', reason: 'BuildRunning', message: `Build '${lastName}' is executing` };
  } else if (succeeded) {
    ready = { type: 'Ready', status: 'True', reason: 'UpToDate' };
  } else {
    ready = { type: 'Ready', status: 'False', reason: 'BuildFailed', message: `Build '${lastName}' failed` };
  }
  const builderConditions: ConditionUpdate[] = builderReady
    ? [
        { type: 'BuilderReady', status: 'True' },
        { type: 'BuilderUpToDate', status: 'True' },
      ]
    : [
        {
          type: 'BuilderReady',
          status: 'False',
          reason: 'BuilderNotReady',
          message: builder?.message ?? `Builder '${builderName}' not found`,
        },
        { type: 'BuilderUpToDate', status: 'Unknown' },
      ];
  const previous = image.status ?? {};
  const latestImage =
    last !== undefined && succeeded === true ? stringAt(last.status, 'latestImage') : stringAt(previous, 'latestImage');
  const latestStack = last === undefined ? undefined : stringAt(recordAt(last.status, 'stack'), 'id');
  const fromLast =
    last === undefined
      ? {}
      : {
          latestBuildRef: lastName,
          latestBuildImageGeneration: Number(last.metadata?.labels?.[KPACK_IMAGE_GENERATION_LABEL] ?? 0),
          buildCounter: buildNumberOf(last),
          latestBuildReason: last.metadata?.annotations?.[KPACK_REASON_ANNOTATION] ?? '',
        };
  return {
    observedGeneration: image.metadata?.generation ?? 0,
    conditions: withConditions(image, [ready, ...builderConditions], now),
    ...fromLast,
    ...(latestImage === undefined ? {} : { latestImage }),
    ...(latestStack === undefined ? {} : { latestStack }),
  };
}

/** Every Build of `namespace` (or all), by `namespace/<image label>`, oldest first. */
async function buildsByImage(client: ObjectClient, namespace: string | undefined): Promise<Map<string, KpackObject[]>> {
  const page = await client.list<KpackObject>(KPACK_BUILDS, {
    labelSelector: KPACK_IMAGE_LABEL,
    ...(namespace === undefined ? {} : { namespace }),
  });
  const byImage = new Map<string, KpackObject[]>();
  for (const build of page.items) {
    const key = `${build.metadata?.namespace ?? ''}/${build.metadata?.labels?.[KPACK_IMAGE_LABEL] ?? ''}`;
    byImage.set(key, [...(byImage.get(key) ?? []), build]);
  }
  for (const list of byImage.values()) list.sort((a, b) => buildNumberOf(a) - buildNumberOf(b));
  return byImage;
}

/** Reconciles every Image (of `options.namespace`, or all) once; the Builds it ran. */
export async function reconcileImages(
  client: ObjectClient,
  options: ImageRoundOptions & { readonly reject: (rejected: RejectedObject) => void },
): Promise<RanBuild[]> {
  const images = (
    await client.list<KpackObject>(
      KPACK_IMAGES,
      options.namespace === undefined ? {} : { namespace: options.namespace },
    )
  ).items;
  const builds = await buildsByImage(client, options.namespace);
  const live = [...images]
    .filter((image) => image.metadata?.deletionTimestamp === undefined)
    .sort((a, b) => compareStrings(keyOf(a), keyOf(b)));
  const ran = await mapWithConcurrency(live, options.concurrency, async (image) => {
    const decoded = decodeKpackImage(image);
    if (!decoded.ok) {
      const message = decoded.problems.map((problem) => `${problem.path}: ${problem.message}`).join('; ');
      options.reject({ kind: 'Image', object: keyOf(image), message });
      return [];
    }
    return reconcileImage(client, image, builds.get(keyOf(image)) ?? [], options);
  });
  return ran.flat();
}

async function reconcileImage(
  client: ObjectClient,
  image: KpackObject,
  history: readonly KpackObject[],
  options: ImageRoundOptions,
): Promise<RanBuild[]> {
  const reference = recordAt(image.spec, 'builder');
  const namespace = image.metadata?.namespace ?? '';
  const builder = options.builders.get(
    builderKey(stringAt(reference, 'kind') ?? 'ClusterBuilder', namespace, stringAt(reference, 'name') ?? ''),
  );
  const now = (): string => options.now().toISOString();
  const last = history.at(-1);
  const previous = history.at(-2);
  if (last !== undefined && succeededOf(last) === undefined) {
    // A Build made but never finished: run it before deciding anything new.
    const { build, ran } = await runBuild(client, image, last, builder, previous, options);
    await writeStatus(client, KPACK_IMAGES, image, imageStatus(image, build, builder, now()));
    return [ran];
  }
  if (builder?.ready !== true) {
    await writeStatus(client, KPACK_IMAGES, image, imageStatus(image, last, builder, now()));
    return [];
  }
  const changes = buildChanges(imageConfig(image), last === undefined ? undefined : lastBuildFacts(last), {
    buildpacks: builder.buildpacks,
    runImage: builder.stack.runImage,
  });
  if (changes.length === 0) {
    await writeStatus(client, KPACK_IMAGES, image, imageStatus(image, last, builder, now()));
    return [];
  }
  const counter = Number(image.status?.buildCounter ?? 0);
  const number = Math.max(Number.isFinite(counter) ? counter : 0, last === undefined ? 0 : buildNumberOf(last)) + 1;
  const created = await client.create(KPACK_BUILDS, newBuild(image, builder, last, changes, number, options.now()));
  // As kpack: the Image points at the new Build (running, latestImage still the previous one).
  const running = await writeStatus(client, KPACK_IMAGES, image, imageStatus(image, created, builder, now()));
  const { build, ran } = await runBuild(client, running, created, builder, last, options);
  await writeStatus(client, KPACK_IMAGES, running, imageStatus(running, build, builder, now()));
  return [ran];
}
