// The objects the `renovate` executor creates for one nudged target (docs/decisions.md D9): a nudge
// PipelineRun in build-service's shape (internal/controller/renovate_util.go CreateRenovaterPipeline,
// as docs/decisions.md D9 and N18 summarise it), the ConfigMap holding the generated Renovate config
// (renovate-config.ts) and the Secret holding the forge token, both named like the PipelineRun and
// owned by it so that they go when it goes.
//
// Where nudger differs from build-service, on purpose (docs/decisions.md N24):
// - One PipelineRun per (build, target), named from the dispatcher's idempotency key instead of a
//   timestamp and a random suffix, so a fire repeated after a crash finds it (N18). Its ConfigMap
//   and Secret keys are numbered as integration-service numbers them (`<component>-0.json`,
//   `token_0`), not random.
// - No RENOVATE_HOST_RULES: nudger passes no registry password, so Renovate looks the tag up
//   anonymously (public repositories only).
// - A validated batch (D10, N29) is one such run for every component of the batch: named from the
//   batch key, build-service's annotations describing its first component, nudger's naming them all.
// The token is an input of the Secret builder only: nothing else here can carry it.
import { fingerprint } from '../changegroup/fingerprint.ts';
import { REDISPATCHED_FROM_ANNOTATION, VALIDATED_GATING_GROUP_ANNOTATION } from '../changegroup/hold-decision.ts';
import { isDns1123Label } from '../labels.ts';
import { dns1123SubdomainProblem } from '../../schema/names.ts';
import {
  NUDGED_COMPONENTS_ANNOTATION,
  NUDGE_TYPE_LABEL,
  NUDGE_TYPE_VALUE,
  NUDGING_COMMIT_ANNOTATION,
  NUDGING_COMPONENT_ANNOTATION,
  NUDGING_IMAGE_ANNOTATION,
  NUDGING_PIPELINE_ANNOTATION,
} from '../nudge-pipelinerun.ts';
import type { RenovateNudgeConfig } from '../../schema/renovate-config.ts';
import { DIGEST_PATTERN } from '../digest-rewrite/index.ts';
import type { RenovateBatchComponent } from './renovate-config.ts';
import { NudgeInputError } from './errors.ts';

/** build-service's default RENOVATE_IMAGE (konflux-upstream §2). */
export const DEFAULT_RENOVATE_IMAGE = 'quay.io/konflux-ci/mintmaker-renovate-image:29a2f31';
export const RENOVATE_PIPELINERUN_PREFIX = 'renovate-pipeline-';
/** Where the step finds the ConfigMap's configs. */
export const RENOVATE_CONFIG_MOUNT_PATH = '/configs';
/** The Secret's keys reach the step as environment variables with this prefix. */
export const TOKEN_ENV_PREFIX = 'TOKEN_';
/** The Secret key of the forge token: `$TOKEN_token_0` in the step. */
export const RENOVATE_TOKEN_KEY = 'token_0';
/** build-service's fallback when `build-pipeline-<component>` does not exist. */
export const FALLBACK_PIPELINE_SERVICE_ACCOUNT = 'appstudio-pipeline';
const TEKTON_API_VERSION = 'tekton.dev/v1';

/** The service account build-service runs a component's pipelines, and its nudges, as. */
export function buildPipelineServiceAccount(nudging: string): string {
  return `build-pipeline-${nudging}`;
}

const KEY_TOKEN = /^[a-z0-9]{1,40}$/;

/**
 * `renovate-pipeline-<key>`: the dispatcher's key (16 hex) as it is, so the PipelineRun, the marker
 * and the Events can be matched by eye; any other key is fingerprinted first.
 */
export function renovatePipelineRunName(key: string): string {
  if (key === '') throw new NudgeInputError('key', 'is empty');
  return `${RENOVATE_PIPELINERUN_PREFIX}${KEY_TOKEN.test(key) ? key : fingerprint(key)}`;
}

/** The ConfigMap key of the one config: `<nudged>-0.json`, as integration-service numbers them. */
export function renovateConfigKey(nudged: string): string {
  return `${nudged}-0.json`;
}

/**
 * build-service's nudging-commit: the last path segment of the repo-at-sha link when it holds 40
 * hex characters anywhere (the regex is unanchored, so `…/repo?rev=<sha>` gives `repo?rev=<sha>`),
 * else ''.
 */
export function nudgingCommit(repoAtShaLink: string): string {
  const segment = repoAtShaLink.split('/').at(-1) ?? '';
  return /[0-9a-f]{40}/.test(segment) ? segment : '';
}

export interface RenovateNudgeRunInput {
  readonly namespace: string;
  /** NudgeRequest.key (dispatchKey of the build and the target). */
  readonly key: string;
  readonly nudging: string;
  readonly nudged: string;
  /** The build PipelineRun's name. */
  readonly buildPipelineRun: string;
  /** The build's IMAGE_URL (`<repository>:<tag>`, no digest), as build-service annotates it. */
  readonly imageUrl: string;
  /** The build's repo-at-sha link ('' when it has none). */
  readonly repoAtShaLink: string;
  /** buildPipelineServiceAccount(nudging), or the fallback when that one does not exist. */
  readonly serviceAccountName: string;
  /** Default DEFAULT_RENOVATE_IMAGE. */
  readonly renovateImage?: string;
  /** NudgeRequest.redispatchedFrom: the held run this fire hands a target of back (never held again). */
  readonly redispatchedFrom?: string;
  /**
   * The run's name; default renovatePipelineRunName(key). Given for a run in build-service's or
   * integration-service's own shape (the sandbox's stand-in for them).
   */
  readonly name?: string;
  /**
   * Every config the run executes, in order; default the one of `nudged` (`<nudged>-0.json`,
   * `token_0`). build-service and integration-service run one config per target in one run.
   */
  readonly configs?: readonly RenovateRunConfig[];
}

/** One config a nudge run executes: its target, its ConfigMap key and its token's Secret key. */
export interface RenovateRunConfig {
  readonly nudged: string;
  readonly configKey: string;
  readonly tokenKey: string;
}

export interface ObjectMeta {
  readonly name: string;
  readonly namespace: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly ownerReferences?: readonly OwnerReference[];
}

/** What the API server returned for the created PipelineRun: the owner of the other two. */
export interface OwnerIdentity {
  readonly name: string;
  readonly uid: string;
}

export interface OwnerReference {
  readonly apiVersion: string;
  readonly kind: string;
  readonly name: string;
  readonly uid: string;
  readonly controller: false;
}

export interface RenovatePipelineRunManifest {
  readonly apiVersion: typeof TEKTON_API_VERSION;
  readonly kind: 'PipelineRun';
  readonly metadata: ObjectMeta;
  readonly spec: Readonly<Record<string, unknown>>;
}

export interface ConfigMapManifest {
  readonly apiVersion: 'v1';
  readonly kind: 'ConfigMap';
  readonly metadata: ObjectMeta;
  readonly data: Readonly<Record<string, string>>;
}

export interface SecretManifest {
  readonly apiVersion: 'v1';
  readonly kind: 'Secret';
  readonly metadata: ObjectMeta;
  readonly type: 'Opaque';
  readonly stringData: Readonly<Record<string, string>>;
}

function checkInput(input: RenovateNudgeRunInput): void {
  if (!isDns1123Label(input.nudging)) throw new NudgeInputError('nudging', 'is not a component name (DNS-1123 label)');
  if (!isDns1123Label(input.nudged)) throw new NudgeInputError('nudged', 'is not a component name (DNS-1123 label)');
  if (!isDns1123Label(input.namespace)) throw new NudgeInputError('namespace', 'is not a namespace name');
  if (input.buildPipelineRun === '') throw new NudgeInputError('buildPipelineRun', 'is empty');
  if (input.imageUrl === '' || input.imageUrl.includes('@')) {
    throw new NudgeInputError('imageUrl', 'is not <repository>:<tag> (IMAGE_URL, without a digest)');
  }
  if (input.serviceAccountName === '') throw new NudgeInputError('serviceAccountName', 'is empty');
}

/**
 * build-service's command for one config: the GitLab and rate-limit settings it always sets, the
 * token from the Secret's environment variable, and the config file. Nothing secret is in it.
 */
export function renovateCommand(
  nudged: string,
  configKey = renovateConfigKey(nudged),
  tokenKey = RENOVATE_TOKEN_KEY,
): string {
  return [
    'RENOVATE_X_GITLAB_MERGE_REQUEST_DELAY=5000',
    'RENOVATE_X_GITLAB_AUTO_MERGEABLE_CHECK_ATTEMPS=11',
    'RENOVATE_PR_HOURLY_LIMIT=0',
    'RENOVATE_PR_CONCURRENT_LIMIT=0',
    `RENOVATE_TOKEN=$${TOKEN_ENV_PREFIX}${tokenKey}`,
    `RENOVATE_CONFIG_FILE=${RENOVATE_CONFIG_MOUNT_PATH}/${configKey}`,
    'renovate',
  ].join(' ');
}

/** The nudge PipelineRun: build-service's label, its five annotations, its inline Renovate task. */
export function renovateNudgePipelineRun(input: RenovateNudgeRunInput): RenovatePipelineRunManifest {
  checkInput(input);
  const name = input.name ?? renovatePipelineRunName(input.key);
  const configs = input.configs ?? [
    { nudged: input.nudged, configKey: renovateConfigKey(input.nudged), tokenKey: RENOVATE_TOKEN_KEY },
  ];
  for (const config of configs) {
    if (!isDns1123Label(config.nudged)) throw new NudgeInputError('nudged', 'is not a component name (DNS-1123 label)');
  }
  // build-service's `bash -c "<cmd1>; <cmd2>…"`: one Renovate per config, one after the other.
  const command = configs.map((c) => renovateCommand(c.nudged, c.configKey, c.tokenKey)).join('; ');
  return {
    apiVersion: TEKTON_API_VERSION,
    kind: 'PipelineRun',
    metadata: {
      name,
      namespace: input.namespace,
      labels: { [NUDGE_TYPE_LABEL]: NUDGE_TYPE_VALUE },
      annotations: {
        [NUDGED_COMPONENTS_ANNOTATION]: configs.map((c) => c.nudged).join(' '),
        [NUDGING_COMMIT_ANNOTATION]: nudgingCommit(input.repoAtShaLink),
        [NUDGING_COMPONENT_ANNOTATION]: input.nudging,
        [NUDGING_IMAGE_ANNOTATION]: input.imageUrl,
        [NUDGING_PIPELINE_ANNOTATION]: input.buildPipelineRun,
        ...(input.redispatchedFrom === undefined ? {} : { [REDISPATCHED_FROM_ANNOTATION]: input.redispatchedFrom }),
      },
    },
    spec: {
      pipelineSpec: {
        tasks: [
          {
            name: 'renovate',
            taskSpec: {
              steps: [
                {
                  name: 'renovate',
                  image: input.renovateImage ?? DEFAULT_RENOVATE_IMAGE,
                  envFrom: [{ prefix: TOKEN_ENV_PREFIX, secretRef: { name } }],
                  // build-service always passes debug=true.
                  env: [{ name: 'LOG_LEVEL', value: 'debug' }],
                  command: ['bash', '-c', command],
                  volumeMounts: [{ name, mountPath: RENOVATE_CONFIG_MOUNT_PATH }],
                  securityContext: {
                    capabilities: { drop: ['ALL'] },
                    runAsNonRoot: true,
                    allowPrivilegeEscalation: false,
                    seccompProfile: { type: 'RuntimeDefault' },
                  },
                },
              ],
              volumes: [{ name, configMap: { name } }],
            },
          },
        ],
      },
      taskRunTemplate: { serviceAccountName: input.serviceAccountName },
    },
  };
}

/**
 * build-service's controllerutil.SetOwnerReference: not a controller reference, and no
 * blockOwnerDeletion (which would also need the finalizers subresource of PipelineRuns in RBAC).
 */
export function ownedBy(owner: OwnerIdentity): OwnerReference {
  if (owner.uid === '') throw new NudgeInputError('owner.uid', 'is empty');
  return { apiVersion: TEKTON_API_VERSION, kind: 'PipelineRun', name: owner.name, uid: owner.uid, controller: false };
}

function ownedMeta(namespace: string, owner: OwnerIdentity): ObjectMeta {
  return { name: owner.name, namespace, ownerReferences: [ownedBy(owner)] };
}

/** The generated config as the step reads it: compact JSON, as Go's json.Marshal writes it. */
export function renovateNudgeConfigMap(
  namespace: string,
  nudged: string,
  config: RenovateNudgeConfig,
  owner: OwnerIdentity,
): ConfigMapManifest {
  return renovateConfigsMap(ownedMeta(namespace, owner), new Map([[renovateConfigKey(nudged), config]]));
}

/** A ConfigMap of several generated configs by key (build-service's and integration-service's runs). */
export function renovateConfigsMap(
  metadata: ObjectMeta,
  configs: ReadonlyMap<string, RenovateNudgeConfig>,
): ConfigMapManifest {
  const data = Object.fromEntries([...configs].map(([key, config]) => [key, JSON.stringify(config)]));
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata, data };
}

/** The only object the forge token goes into. */
export function renovateNudgeTokenSecret(namespace: string, owner: OwnerIdentity, token: string): SecretManifest {
  return renovateTokensSecret(ownedMeta(namespace, owner), { [RENOVATE_TOKEN_KEY]: token });
}

/** The tokens a run's commands read (`$TOKEN_<key>`), by key; never empty. */
export function renovateTokensSecret(metadata: ObjectMeta, tokens: Readonly<Record<string, string>>): SecretManifest {
  if (Object.values(tokens).some((token) => token === '')) throw new NudgeInputError('token', 'is empty');
  return { apiVersion: 'v1', kind: 'Secret', metadata, type: 'Opaque', stringData: { ...tokens } };
}

export { VALIDATED_GATING_GROUP_ANNOTATION };
/** On a validated batch's run: every nudging component, space-separated like nudged-components. */
export const NUDGING_COMPONENTS_ANNOTATION = 'nudger.konflux-ci.dev/nudging-components';
/** `<component>=<build PipelineRun>` per component: the builds whose images the batch pins. */
export const NUDGING_PIPELINES_ANNOTATION = 'nudger.konflux-ci.dev/nudging-pipelines';
/** `<component>=<Snapshot>` per component: the Snapshot that validated its digest. */
export const VALIDATED_SNAPSHOTS_ANNOTATION = 'nudger.konflux-ci.dev/validated-snapshots';
/** `<component>=<digest>` per component: the digest the batch pins. */
export const VALIDATED_DIGESTS_ANNOTATION = 'nudger.konflux-ci.dev/validated-digests';

/** One component of a validated batch as its run names it. */
export interface BatchRunEntry {
  readonly component: string;
  /** Its build PipelineRun. */
  readonly buildPipelineRun: string;
  /** The build's IMAGE_URL (`<repository>:<tag>`). */
  readonly imageUrl: string;
  /** The build's repo-at-sha link ('' when it has none). */
  readonly repoAtShaLink: string;
  readonly snapshot: string;
  /** The validated digest. */
  readonly digest: string;
}

export interface RenovateBatchRunInput {
  readonly namespace: string;
  /** validatedBatchKey of the batch. */
  readonly key: string;
  readonly nudged: string;
  readonly gatingGroup: string;
  /** Sorted by component; at least one. */
  readonly entries: readonly BatchRunEntry[];
  /** The first component's service account (buildPipelineServiceAccount), or the fallback. */
  readonly serviceAccountName: string;
  readonly renovateImage?: string;
}

const pairs = (entries: readonly BatchRunEntry[], value: (e: BatchRunEntry) => string) =>
  entries.map((e) => `${e.component}=${value(e)}`).join(' ');

/**
 * The nudge PipelineRun of a validated batch: the single run's shape and its one config
 * (`<nudged>-0.json`, which covers every component), named `renovate-pipeline-<batch key>` so that
 * a fire repeated after a crash finds it. build-service's annotations name the first component,
 * its build, image and commit (readers of them expect one each); nudger's name every component,
 * its build and its Snapshot, and the gating group, which also keeps ChangeGroups from holding it.
 */
export function renovateBatchPipelineRun(input: RenovateBatchRunInput): RenovatePipelineRunManifest {
  const [first] = input.entries;
  if (first === undefined) throw new NudgeInputError('entries', 'is empty');
  if (dns1123SubdomainProblem(input.gatingGroup) !== undefined) {
    throw new NudgeInputError('gatingGroup', 'is not a ComponentGroup name (DNS-1123 subdomain)');
  }
  input.entries.forEach((entry, i) => {
    const field = `entries[${String(i)}]`;
    if (!isDns1123Label(entry.component)) throw new NudgeInputError(`${field}.component`, 'is not a component name');
    for (const [name, value] of [
      ['buildPipelineRun', entry.buildPipelineRun],
      ['snapshot', entry.snapshot],
    ] as const) {
      if (dns1123SubdomainProblem(value) !== undefined) {
        throw new NudgeInputError(`${field}.${name}`, 'is not an object name (DNS-1123 subdomain)');
      }
    }
    if (!DIGEST_PATTERN.test(entry.digest)) throw new NudgeInputError(`${field}.digest`, 'is not sha256:<64 hex>');
  });
  const run = renovateNudgePipelineRun({
    namespace: input.namespace,
    key: input.key,
    nudging: first.component,
    nudged: input.nudged,
    buildPipelineRun: first.buildPipelineRun,
    imageUrl: first.imageUrl,
    repoAtShaLink: first.repoAtShaLink,
    serviceAccountName: input.serviceAccountName,
    ...(input.renovateImage === undefined ? {} : { renovateImage: input.renovateImage }),
  });
  return {
    ...run,
    metadata: {
      ...run.metadata,
      annotations: {
        ...run.metadata.annotations,
        [VALIDATED_GATING_GROUP_ANNOTATION]: input.gatingGroup,
        [NUDGING_COMPONENTS_ANNOTATION]: input.entries.map((e) => e.component).join(' '),
        [NUDGING_PIPELINES_ANNOTATION]: pairs(input.entries, (e) => e.buildPipelineRun),
        [VALIDATED_SNAPSHOTS_ANNOTATION]: pairs(input.entries, (e) => e.snapshot),
        [VALIDATED_DIGESTS_ANNOTATION]: pairs(input.entries, (e) => e.digest),
      },
    },
  };
}

/** What a validated batch's run says it is, read back from its annotations. */
export interface BatchRunReading {
  readonly gatingGroup: string;
  /** In the run's order, each with its build, Snapshot and digest ('' when the annotation lacks it). */
  readonly components: readonly BatchRunComponent[];
}

export interface BatchRunComponent {
  readonly component: string;
  readonly build: string;
  readonly snapshot: string;
  readonly digest: string;
}

function pairMap(value: string | undefined): Map<string, string> {
  const map = new Map<string, string>();
  for (const pair of (value ?? '').split(/\s+/)) {
    const equals = pair.indexOf('=');
    if (equals > 0) map.set(pair.slice(0, equals), pair.slice(equals + 1));
  }
  return map;
}

/** The batch a nudge run carries, or undefined for a run that is not a validated batch's. */
export function batchRunOf(annotations: Readonly<Record<string, string>>): BatchRunReading | undefined {
  const gatingGroup = annotations[VALIDATED_GATING_GROUP_ANNOTATION];
  if (gatingGroup === undefined) return undefined;
  const builds = pairMap(annotations[NUDGING_PIPELINES_ANNOTATION]);
  const snapshots = pairMap(annotations[VALIDATED_SNAPSHOTS_ANNOTATION]);
  const digests = pairMap(annotations[VALIDATED_DIGESTS_ANNOTATION]);
  const names = (annotations[NUDGING_COMPONENTS_ANNOTATION] ?? '').split(/\s+/).filter((n) => n !== '');
  return {
    gatingGroup,
    components: names.map((component) => ({
      component,
      build: builds.get(component) ?? '',
      snapshot: snapshots.get(component) ?? '',
      digest: digests.get(component) ?? '',
    })),
  };
}

/** A component an earlier run of the batch's branch pinned, carried into the next run's config. */
export interface CarriedComponent extends RenovateBatchComponent {
  readonly buildPipelineRun: string;
  readonly imageUrl: string;
}

/**
 * What the newest earlier run of the same (gating group, target) pinned that the new batch does
 * not bring again (docs/decisions.md N29). The controller sends only the digests that changed, but
 * Renovate rebuilds the branch from the base with the updates of its config alone: without these,
 * the next run would take an earlier component back out of the still open pull request. Each is
 * read from that run's annotations and its config's custom manager of the same position; the
 * registry lookup of its tag gives its digest again, and none is pinned a second time once the
 * base has it. Anything unreadable is left out, never guessed.
 */
export function carriedBatchComponents(
  previous: { readonly annotations: Readonly<Record<string, string>>; readonly config: RenovateNudgeConfig },
  current: ReadonlySet<string>,
): CarriedComponent[] {
  const batch = batchRunOf(previous.annotations);
  const managers = previous.config.customManagers;
  if (batch?.components.length !== managers.length) return [];
  const aliases = Object.entries(previous.config.registryAliases ?? {});
  return batch.components.flatMap((c, i): CarriedComponent[] => {
    const manager = managers[i];
    if (manager === undefined || current.has(c.component) || !isDns1123Label(c.component)) return [];
    if (c.build === '' || c.snapshot === '' || !DIGEST_PATTERN.test(c.digest)) return [];
    const built = manager.depNameTemplate;
    return [
      {
        component: c.component,
        builtRepository: built,
        builtTag: manager.currentValueTemplate,
        newDigest: c.digest,
        distributionRepositories: aliases.filter(([, to]) => to === built).map(([from]) => from),
        fileMatch: manager.fileMatch,
        snapshot: c.snapshot,
        repoAtShaLink: '',
        buildPipelineRun: c.build,
        imageUrl: `${built}:${manager.currentValueTemplate}`,
      },
    ];
  });
}
