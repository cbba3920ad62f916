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
// The token is an input of the Secret builder only: nothing else here can carry it.
import { fingerprint } from '../changegroup/fingerprint.ts';
import { REDISPATCHED_FROM_ANNOTATION } from '../changegroup/hold-decision.ts';
import { isDns1123Label } from '../labels.ts';
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
