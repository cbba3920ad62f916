// The `renovate` executor (docs/decisions.md D9, N24): a nudge PipelineRun in build-service's shape whose
// inline Renovate task runs the generated config on the nudged repository. Creation follows
// build-service: the PipelineRun first (Tekton waits for the volumes it names), then the ConfigMap
// and the Secret, both owned by it (src/domain/nudge/renovate-pipelinerun.ts).
//
// Idempotent by the request's key (docs/decisions.md N18): all three are named from it, so a fire
// repeated after a crash finds what the first attempt created (AlreadyExists) and creates only what
// is missing, never a second PipelineRun. A fire succeeds once all three exist; whether Renovate
// then succeeds is Tekton's to report. The forge token goes into the Secret and nowhere else: not in
// the config, the PipelineRun, a result message or a notice.
import type { Credentials } from '../../../adapters/credentials/credentials.ts';
import type { ObjectClient } from '../../../adapters/kubernetes/client.ts';
import { KubeApiError, isAlreadyExists, isNotFound } from '../../../adapters/kubernetes/errors.ts';
import { CONFIG_MAPS, PIPELINE_RUNS, SECRETS, SERVICE_ACCOUNTS } from '../../../adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../../../adapters/kubernetes/types.ts';
import { gitSourceOf } from '../../../cluster/nudged-repository.ts';
import type { ClusterComponent } from '../../../schema/component.ts';
import { imageRepository } from '../../../domain/digest-rewrite/index.ts';
import { NudgeInputError } from '../../../domain/nudge/errors.ts';
import {
  renovateBatchConfig,
  renovateNudgeConfig,
  type RenovateNudgeConfig,
  type RenovateTarget,
} from '../../../domain/nudge/renovate-config.ts';
import {
  FALLBACK_PIPELINE_SERVICE_ACCOUNT,
  NUDGING_PIPELINES_ANNOTATION,
  VALIDATED_GATING_GROUP_ANNOTATION,
  buildPipelineServiceAccount,
  carriedBatchComponents,
  renovateBatchPipelineRun,
  renovateConfigKey,
  renovatePipelineRunName,
  renovateNudgeConfigMap,
  renovateNudgePipelineRun,
  renovateNudgeTokenSecret,
  type OwnerIdentity,
  type RenovatePipelineRunManifest,
} from '../../../domain/nudge/renovate-pipelinerun.ts';
import {
  NUDGED_COMPONENTS_ANNOTATION,
  NUDGE_TYPE_LABEL,
  NUDGE_TYPE_VALUE,
  NUDGING_PIPELINE_ANNOTATION,
} from '../../../domain/nudge-pipelinerun.ts';
import { compareStrings } from '../../../domain/compare.ts';
import { objectDecoder } from '../../../domain/schema-validation.ts';
import { RenovateNudgeConfig as RenovateNudgeConfigSchema } from '../../../schema/renovate-config.ts';
import { BUILD_LINK_IGNORED, quotedBuildLink } from '../build-link.ts';
import type { BatchNudgeRequest, ExecutorNotice, FireOutcome, NudgeExecutor, NudgeRequest } from '../executor.ts';
import { NameTakenError, classifyFailure } from './failures.ts';
import type { RenovateForgeAccess, RenovateForgeAccessResolver } from './forge-access.ts';

/** The Events the executor asks for; the direct executor tells the same fact with the same reason. */
export const RENOVATE_NOTICE_REASONS = { buildLinkIgnored: BUILD_LINK_IGNORED } as const;

function isForbidden(error: unknown): boolean {
  return error instanceof KubeApiError && error.statusCode === 403;
}

export interface RenovateExecutorOptions {
  readonly client: ObjectClient;
  readonly forgeAccess: RenovateForgeAccessResolver;
  /** build-service's RENOVATE_IMAGE; default DEFAULT_RENOVATE_IMAGE. */
  readonly renovateImage?: string;
  /** The field manager of every write. */
  readonly fieldManager?: string;
}

const decodeRenovateConfig = objectDecoder(RenovateNudgeConfigSchema);

function parseJson(text: string | undefined): unknown {
  try {
    return text === undefined ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/** The nudged Component's name, repository and base branch, or NudgeInputError. */
function nudgedSource(component: ClusterComponent): { nudged: string; gitUrl: string; baseBranch: string } {
  const nudged = component.metadata?.name ?? '';
  if (nudged === '') throw new NudgeInputError('nudged.metadata.name', 'is not set');
  const { url: gitUrl, revision: baseBranch } = gitSourceOf(component);
  if (gitUrl === undefined) throw new NudgeInputError('nudged.spec.source.git.url', 'is not set');
  return { nudged, gitUrl, baseBranch };
}

function renovateTarget(access: RenovateForgeAccess, baseBranch: string): RenovateTarget {
  return {
    platform: access.platform,
    username: access.username,
    gitAuthor: access.gitAuthor,
    endpoint: access.endpoint,
    repository: access.repository,
    baseBranch,
  };
}

/** IMAGE_URL split at its last `:` after the last `/`, as build-service splits it. */
function splitImageUrl(imageUrl: string): { repository: string; tag: string } {
  const repository = imageRepository(imageUrl);
  const tag = imageUrl.slice(repository.length + 1);
  if (tag === '' || imageUrl.includes('@')) throw new NudgeInputError('build.imageUrl', 'is not <repository>:<tag>');
  return { repository, tag };
}

export class RenovateExecutor implements NudgeExecutor {
  readonly kind = 'renovate' as const;
  readonly #client: ObjectClient;
  readonly #access: RenovateForgeAccessResolver;
  readonly #image: string | undefined;
  readonly #fieldManager: string | undefined;

  constructor(options: RenovateExecutorOptions) {
    this.#client = options.client;
    this.#access = options.forgeAccess;
    this.#image = options.renovateImage;
    this.#fieldManager = options.fieldManager;
  }

  /**
   * A validated batch (docs/decisions.md D10, N29): one run, one config covering every component
   * (renovateBatchConfig: a custom manager each, one group), created as a single nudge's run is and
   * named from the batch key, so that a repeat after a crash finds it and other content never does.
   */
  async fireBatch(request: BatchNudgeRequest, signal?: AbortSignal): Promise<FireOutcome> {
    let redact = (text: string) => text;
    const notices: ExecutorNotice[] = [];
    try {
      const [first] = request.entries;
      if (first === undefined) throw new NudgeInputError('entries', 'is empty');
      const { nudged, gitUrl, baseBranch } = nudgedSource(request.nudged);
      const access = await this.#access.resolve(gitUrl, request.namespace, signal);
      const { credentials } = access;
      redact = (text) => credentials.redact(text);
      const current = request.entries.map((entry) => {
        const built = splitImageUrl(entry.build.imageUrl);
        return {
          component: entry.build.component,
          builtRepository: built.repository,
          builtTag: built.tag,
          newDigest: entry.build.digest,
          distributionRepositories: entry.distributionRepositories.filter((r) => r !== built.repository),
          fileMatch: entry.fileMatch,
          snapshot: entry.snapshot,
          repoAtShaLink: quotedBuildLink(entry, notices),
          buildPipelineRun: entry.build.pipelineRun,
          imageUrl: entry.build.imageUrl,
        };
      });
      const name = renovatePipelineRunName(request.key);
      const previous = await this.#previousBatch(request.namespace, nudged, request.gatingGroup, name, signal);
      const carried =
        previous === undefined ? [] : carriedBatchComponents(previous, new Set(current.map((c) => c.component)));
      const components = [...current, ...carried].sort((a, b) => compareStrings(a.component, b.component));
      const config = renovateBatchConfig({
        target: renovateTarget(access, baseBranch),
        nudged,
        gatingGroup: request.gatingGroup,
        settings: request.settings,
        components,
      });
      const run = renovateBatchPipelineRun({
        namespace: request.namespace,
        key: request.key,
        nudged,
        gatingGroup: request.gatingGroup,
        entries: components.map((c) => ({ ...c, digest: c.newDigest })),
        serviceAccountName: await this.#serviceAccount(request.namespace, first.build.component, signal),
        ...(this.#image === undefined ? {} : { renovateImage: this.#image }),
      });
      // Ours when it is this group's and carries every build of this batch (and maybe carried ones).
      const wanted = request.entries.map((e) => `${e.build.component}=${e.build.pipelineRun}`);
      const owns = (found: Readonly<Record<string, string>>) =>
        found[VALIDATED_GATING_GROUP_ANNOTATION] === request.gatingGroup &&
        wanted.every((pair) => (found[NUDGING_PIPELINES_ANNOTATION] ?? '').split(' ').includes(pair));
      const detail = await this.#create(run, nudged, config, credentials, owns, signal);
      return { result: { ok: true, detail }, notices };
    } catch (error) {
      return { result: classifyFailure(error, redact), notices };
    }
  }

  async fire(request: NudgeRequest, signal?: AbortSignal): Promise<FireOutcome> {
    // Until the credentials are read nothing can hold the token; afterwards every message is redacted.
    let redact = (text: string) => text;
    const notices: ExecutorNotice[] = [];
    try {
      const { nudged, gitUrl, baseBranch } = nudgedSource(request.nudged);
      const access = await this.#access.resolve(gitUrl, request.namespace, signal);
      const { credentials } = access;
      redact = (text) => credentials.redact(text);
      // A link nudger may not quote (a file:// one, say) is left out, as the direct executor does.
      const link = quotedBuildLink(request, notices);
      const built = splitImageUrl(request.build.imageUrl);
      const config = renovateNudgeConfig({
        target: renovateTarget(access, baseBranch),
        nudging: request.build.component,
        nudged,
        simpleBranch: request.simpleBranch,
        builtRepository: built.repository,
        builtTag: built.tag,
        distributionRepositories: request.distributionRepositories.filter((r) => r !== built.repository),
        repoAtShaLink: link,
        settings: request.settings,
        fileMatch: request.fileMatch,
      });
      const run = renovateNudgePipelineRun({
        namespace: request.namespace,
        key: request.key,
        nudging: request.build.component,
        nudged,
        buildPipelineRun: request.build.pipelineRun,
        imageUrl: request.build.imageUrl,
        repoAtShaLink: link,
        serviceAccountName: await this.#serviceAccount(request.namespace, request.build.component, signal),
        ...(this.#image === undefined ? {} : { renovateImage: this.#image }),
        ...(request.redispatchedFrom === undefined ? {} : { redispatchedFrom: request.redispatchedFrom }),
      });
      // Ours when it nudges from the same build (the key is the build's and the target's).
      const owns = (found: Readonly<Record<string, string>>) =>
        found[VALIDATED_GATING_GROUP_ANNOTATION] === undefined &&
        found[NUDGING_PIPELINE_ANNOTATION] === request.build.pipelineRun;
      const detail = await this.#create(run, nudged, config, credentials, owns, signal);
      return { result: { ok: true, detail }, notices };
    } catch (error) {
      return { result: classifyFailure(error, redact), notices };
    }
  }

  /**
   * build-service's order: the PipelineRun (or the one an earlier attempt created), then the
   * ConfigMap and the Secret it owns. Answers the run's name.
   */
  async #create(
    run: RenovatePipelineRunManifest,
    nudged: string,
    config: RenovateNudgeConfig,
    credentials: Credentials,
    owns: (annotations: Readonly<Record<string, string>>) => boolean,
    signal?: AbortSignal,
  ): Promise<string> {
    const { namespace } = run.metadata;
    const owner = await this.#ensurePipelineRun(run, owns, signal);
    await this.#ensure(CONFIG_MAPS, renovateNudgeConfigMap(namespace, nudged, config, owner), signal);
    await this.#ensure(SECRETS, renovateNudgeTokenSecret(namespace, owner, credentials.revealToken()), signal);
    return owner.name;
  }

  /**
   * The newest other run of this (gating group, target) and its config, whose components a new
   * batch carries on (carriedBatchComponents); undefined when there is none, or its ConfigMap is
   * gone or unreadable (then nothing is carried, never guessed).
   */
  async #previousBatch(
    namespace: string,
    nudged: string,
    gatingGroup: string,
    own: string,
    signal?: AbortSignal,
  ): Promise<{ annotations: Readonly<Record<string, string>>; config: RenovateNudgeConfig } | undefined> {
    const page = await this.#client.list<KubeObject>(PIPELINE_RUNS, {
      namespace,
      labelSelector: `${NUDGE_TYPE_LABEL}=${NUDGE_TYPE_VALUE}`,
      ...(signal === undefined ? {} : { signal }),
    });
    const [previous] = page.items
      .filter((run) => {
        const annotations = run.metadata?.annotations ?? {};
        return (
          run.metadata?.name !== own &&
          annotations[VALIDATED_GATING_GROUP_ANNOTATION] === gatingGroup &&
          annotations[NUDGED_COMPONENTS_ANNOTATION] === nudged
        );
      })
      .sort(
        (a, b) =>
          compareStrings(b.metadata?.creationTimestamp ?? '', a.metadata?.creationTimestamp ?? '') ||
          compareStrings(b.metadata?.name ?? '', a.metadata?.name ?? ''),
      );
    const name = previous?.metadata?.name;
    if (previous === undefined || name === undefined) return undefined;
    let configMap: KubeObject & { data?: Record<string, string> };
    try {
      configMap = await this.#client.get(CONFIG_MAPS, namespace, name, signal);
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
    const decoded = decodeRenovateConfig(parseJson(configMap.data?.[renovateConfigKey(nudged)]));
    return decoded.ok ? { annotations: previous.metadata?.annotations ?? {}, config: decoded.object } : undefined;
  }

  /**
   * build-service's choice: `build-pipeline-<nudging>` when it exists, else `appstudio-pipeline`.
   * Where RBAC does not let nudger read service accounts, the current Konflux one is assumed: a
   * missing permission for this refinement must not fail every nudge.
   */
  async #serviceAccount(namespace: string, nudging: string, signal?: AbortSignal): Promise<string> {
    const name = buildPipelineServiceAccount(nudging);
    try {
      await this.#client.get(SERVICE_ACCOUNTS, namespace, name, signal);
      return name;
    } catch (error) {
      if (isNotFound(error)) return FALLBACK_PIPELINE_SERVICE_ACCOUNT;
      if (isForbidden(error)) return name;
      throw error;
    }
  }

  /** Creates the PipelineRun, or finds the one an earlier attempt created; its uid owns the rest. */
  async #ensurePipelineRun(
    run: RenovatePipelineRunManifest,
    owns: (annotations: Readonly<Record<string, string>>) => boolean,
    signal?: AbortSignal,
  ): Promise<OwnerIdentity> {
    const { namespace, name } = run.metadata;
    let stored: KubeObject;
    try {
      stored = await this.#client.create<KubeObject>(PIPELINE_RUNS, run, this.#writeOptions(signal));
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      stored = await this.#client.get<KubeObject>(PIPELINE_RUNS, namespace, name, signal);
      const labels = stored.metadata?.labels ?? {};
      if (labels[NUDGE_TYPE_LABEL] !== NUDGE_TYPE_VALUE || !owns(stored.metadata?.annotations ?? {})) {
        throw new NameTakenError(
          `PipelineRun ${namespace}/${name} exists and is not this nudge (another build's, or not a nudge)`,
        );
      }
    }
    const uid = stored.metadata?.uid ?? '';
    if (uid === '') throw new NudgeInputError('pipelineRun.metadata.uid', 'the API server returned none');
    return { name, uid };
  }

  /** Creates an owned object; AlreadyExists means an earlier attempt of this same fire made it. */
  async #ensure(ref: ResourceRef, object: KubeObject, signal?: AbortSignal): Promise<void> {
    try {
      await this.#client.create(ref, object, this.#writeOptions(signal));
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
    }
  }

  #writeOptions(signal?: AbortSignal) {
    return {
      ...(this.#fieldManager === undefined ? {} : { fieldManager: this.#fieldManager }),
      ...(signal === undefined ? {} : { signal }),
    };
  }
}
