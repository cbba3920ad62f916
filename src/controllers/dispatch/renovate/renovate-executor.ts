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
import type { ObjectClient } from '../../../adapters/kubernetes/client.ts';
import { KubeApiError, isAlreadyExists, isNotFound } from '../../../adapters/kubernetes/errors.ts';
import { CONFIG_MAPS, PIPELINE_RUNS, SECRETS } from '../../../adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../../../adapters/kubernetes/types.ts';
import { gitSourceOf } from '../../../cluster/nudged-repository.ts';
import { imageRepository } from '../../../domain/digest-rewrite/index.ts';
import { NudgeInputError } from '../../../domain/nudge/errors.ts';
import { renovateNudgeConfig } from '../../../domain/nudge/renovate-config.ts';
import {
  FALLBACK_PIPELINE_SERVICE_ACCOUNT,
  buildPipelineServiceAccount,
  renovateNudgeConfigMap,
  renovateNudgePipelineRun,
  renovateNudgeTokenSecret,
  type OwnerIdentity,
  type RenovatePipelineRunManifest,
} from '../../../domain/nudge/renovate-pipelinerun.ts';
import { NUDGE_TYPE_LABEL, NUDGE_TYPE_VALUE, NUDGING_PIPELINE_ANNOTATION } from '../../../domain/nudge-pipelinerun.ts';
import { BUILD_LINK_IGNORED, quotedBuildLink } from '../build-link.ts';
import type { BatchNudgeRequest, ExecutorNotice, FireOutcome, NudgeExecutor, NudgeRequest } from '../executor.ts';
import { NameTakenError, classifyFailure } from './failures.ts';
import type { RenovateForgeAccessResolver } from './forge-access.ts';

const SERVICE_ACCOUNTS: ResourceRef = {
  group: '',
  version: 'v1',
  plural: 'serviceaccounts',
  kind: 'ServiceAccount',
  namespaced: true,
};

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

  // Replaced by the batch implementation in this session's next commits (issue 11).
  fireBatch(request: BatchNudgeRequest): Promise<FireOutcome> {
    return Promise.resolve({
      result: { ok: false, reason: 'batch-unsupported', message: `validated batch ${request.key}: not yet supported` },
    });
  }

  async fire(request: NudgeRequest, signal?: AbortSignal): Promise<FireOutcome> {
    // Until the credentials are read nothing can hold the token; afterwards every message is redacted.
    let redact = (text: string) => text;
    const notices: ExecutorNotice[] = [];
    try {
      const nudged = request.nudged.metadata?.name ?? '';
      if (nudged === '') throw new NudgeInputError('nudged.metadata.name', 'is not set');
      const { url: gitUrl, revision: baseBranch } = gitSourceOf(request.nudged);
      if (gitUrl === undefined) throw new NudgeInputError('nudged.spec.source.git.url', 'is not set');
      const access = await this.#access.resolve(gitUrl, request.namespace, signal);
      const { credentials } = access;
      redact = (text) => credentials.redact(text);
      // A link nudger may not quote (a file:// one, say) is left out, as the direct executor does.
      const link = quotedBuildLink(request, notices);
      const built = splitImageUrl(request.build.imageUrl);
      const config = renovateNudgeConfig({
        target: {
          platform: access.platform,
          username: access.username,
          gitAuthor: access.gitAuthor,
          endpoint: access.endpoint,
          repository: access.repository,
          baseBranch,
        },
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
      const owner = await this.#ensurePipelineRun(run, signal);
      await this.#ensure(CONFIG_MAPS, renovateNudgeConfigMap(request.namespace, nudged, config, owner), signal);
      await this.#ensure(
        SECRETS,
        renovateNudgeTokenSecret(request.namespace, owner, credentials.revealToken()),
        signal,
      );
      return { result: { ok: true, detail: owner.name }, notices };
    } catch (error) {
      return { result: classifyFailure(error, redact), notices };
    }
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
  async #ensurePipelineRun(run: RenovatePipelineRunManifest, signal?: AbortSignal): Promise<OwnerIdentity> {
    const { namespace, name } = run.metadata;
    let stored: KubeObject;
    try {
      stored = await this.#client.create<KubeObject>(PIPELINE_RUNS, run, this.#writeOptions(signal));
    } catch (error) {
      if (!isAlreadyExists(error)) throw error;
      stored = await this.#client.get<KubeObject>(PIPELINE_RUNS, namespace, name, signal);
      const labels = stored.metadata?.labels ?? {};
      const build = stored.metadata?.annotations?.[NUDGING_PIPELINE_ANNOTATION];
      if (
        labels[NUDGE_TYPE_LABEL] !== NUDGE_TYPE_VALUE ||
        build !== run.metadata.annotations?.[NUDGING_PIPELINE_ANNOTATION]
      ) {
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
