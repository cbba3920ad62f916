// Konflux's build-service and integration-service, as far as nudging goes: a component's push
// build succeeds, its image is promoted, and the nudge PipelineRun for its targets is created, all
// with the shapes upstream writes (github.com/konflux-ci/build-service and integration-service: labels, annotations,
// results, names). Nothing is built: the "build" is a PipelineRun whose status says it succeeded
// with an IMAGE_URL and IMAGE_DIGEST, written through the status subresource as Tekton would.
//
// Which targets: integration-service's rule when the namespace has a NudgeConfig (edges `from`
// the component whose mode is immediate; `validated` edges produce no nudge upstream), else
// build-service's (`spec.build-nudges-ref`). Targets without a Component are skipped, as upstream.
// One nudge PipelineRun covers every target, named as integration-service names it, in the
// shape upstream runs: `bash -c "<cmd1>; <cmd2>…"`, one Renovate per config, and a ConfigMap of one
// generated config per target (`<target>-<i>.json`, renovate-config.ts, as the renovate executor
// generates them) with a Secret of their tokens, created first and unowned as integration-service
// does. The Tekton stand-in runs every config the run mounts, so a copy of the run nudges every
// target, whatever its nudged-components annotation says (docs/decisions.md D2).
//
// When nudger dispatches (ADR 67, the sandbox's default), this stand-in records the build only:
// no nudge PipelineRun and no integration-service marker, so nudger's dispatcher is the one that
// nudges. When it nudges itself, the build carries integration-service's marker before it
// succeeds, so a dispatcher watching the same namespace sees a build already nudged from and
// leaves it alone (docs/decisions.md D9) instead of racing the stand-in.
import { createHash } from 'node:crypto';
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import { COMPONENTS, CONFIG_MAPS, NUDGE_CONFIGS, PIPELINE_RUNS, SECRETS } from '../adapters/kubernetes/resources.ts';
import type { RenovateForgeAccessResolver } from '../controllers/dispatch/renovate/forge-access.ts';
import { gitSourceOf, renovateConfigMapSources } from '../cluster/nudged-repository.ts';
import { isSimpleBranch } from '../domain/nudge/pull-request-text.ts';
import { quotableRepoAtShaLink } from '../domain/nudge/repository-link.ts';
import { renovateNudgeConfig, type RenovateNudgeConfig } from '../domain/nudge/renovate-config.ts';
import { configMapInForce, fileMatchInForce, readRenovateSettings } from '../domain/nudge/renovate-settings.ts';
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import { NUDGE_CONFIG_NAME } from '../domain/model.ts';
import {
  APPLICATION_LABEL,
  COMPONENT_LABEL,
  IMAGE_DIGEST_RESULT,
  IMAGE_URL_RESULT,
  PAC_EVENT_TYPE_KEY,
  PAC_PULL_REQUEST_KEY,
  PAC_SOURCE_BRANCH_KEY,
  PIPELINE_TYPE_LABEL,
  TARGET_BRANCH_ANNOTATION,
} from '../domain/nudge-pipelinerun.ts';
import { PAC_REPO_URL_KEY } from '../domain/nudge/pre-merge-text.ts';
import { BUILD_NUDGE_FILES_ANNOTATION } from '../domain/digest-rewrite/index.ts';
import type { BUILD_NUDGES_REF } from '../schema/component.ts';
import { whenNotFound } from './poll-loop.ts';
import { namespaceNudgeGraph } from '../cluster/nudge-graph.ts';
import { decodeComponent, decodeNudgeConfig } from '../domain/cluster-objects.ts';
import {
  renovateConfigsMap,
  renovateNudgePipelineRun,
  renovateTokensSecret,
} from '../domain/nudge/renovate-pipelinerun.ts';

export const COMMIT_SHA_ANNOTATION = 'build.appstudio.redhat.com/commit_sha';
/** build-service's repo-at-sha link on build PipelineRuns. */
export const REPO_AT_SHA_ANNOTATION = 'build.appstudio.openshift.io/repo';
/** integration-service's done-marker on a processed build: the targets, comma-joined. */
export const IS_NUDGE_PROCESSED_ANNOTATION = 'test.appstudio.openshift.io/component-nudge-processed';
export const PAC_MANAGED_BY_VALUE = 'pipelinesascode.tekton.dev';
export const PAC_SHA_KEY = 'pipelinesascode.tekton.dev/sha';

export class KonfluxStandInError extends Error {
  override readonly name = 'KonfluxStandInError';
  readonly namespace: string;
  readonly component: string;
  /** The field or input at fault, e.g. `image` or `Component.spec.containerImage`. */
  readonly field: string;
  readonly reason: string;

  constructor(namespace: string, component: string, field: string, reason: string) {
    super(`build of component ${namespace}/${component}: ${field}: ${reason}`);
    this.namespace = namespace;
    this.component = component;
    this.field = field;
    this.reason = reason;
  }
}

export interface RecordBuildInput {
  readonly namespace: string;
  readonly component: string;
  /**
   * The built image, `<repository>[:<tag>]` (IMAGE_URL). Without a tag, the commit is the tag, as
   * Konflux's push pipelines do (`output-image: <containerImage>:{{revision}}`). Default: the
   * Component's `spec.containerImage`.
   */
  readonly image?: string;
  /** `sha256:<64 hex>`; default: generated, deterministic per stand-in (see digestFor). */
  readonly digest?: string;
  /** The built commit; default: 40 hex derived like the digest. */
  readonly commit?: string;
  /** The pushed branch; default: the Component's `spec.source.git.revision`, else `main`. */
  readonly branch?: string;
  /**
   * Whether build-service/integration-service nudge from this build (the nudge PipelineRun and
   * integration-service's marker). False when nudger's dispatcher does. Default true.
   */
  readonly nudge?: boolean;
  /** The build's `build-nudge-files` annotation: comma-separated regexes; absent = none. */
  readonly nudgeFiles?: string;
  /** False: the build fails (Succeeded=False, no image results, no promotion, no nudge). Default true. */
  readonly succeeded?: boolean;
  /**
   * A build of this pull request instead of a push (pre-merge nudges, docs/decisions.md D11):
   * Pipelines-as-Code's pull_request run of its head commit (`commit`), into `branch` (the base),
   * tagged `on-pr-<commit>` as Konflux's PR pipelines tag; nothing is promoted or nudged by the
   * stand-in.
   */
  readonly pullRequest?: PullRequestOfBuild;
}

/** The pull request a pull-request build is for, as Pipelines-as-Code annotates its run. */
export interface PullRequestOfBuild {
  readonly number: number;
  /** The PR's head branch. */
  readonly sourceBranch: string;
  /** The repository's URL (`pipelinesascode.tekton.dev/repo-url`). */
  readonly repoUrl: string;
}

export interface NudgeRunRecord {
  readonly name: string;
  readonly nudgedComponents: readonly string[];
  /** `spec.status` as stored: `Cancelled` when nudger's webhook held it. */
  readonly specStatus: string;
}

export interface RecordedBuild {
  readonly namespace: string;
  readonly component: string;
  /** Name of the build PipelineRun. */
  readonly pipelineRun: string;
  /** IMAGE_URL: `<repository>:<tag>`. */
  readonly imageUrl: string;
  /** The image digest; for a failed build, the one it would have pushed (never published). */
  readonly digest: string;
  readonly commit: string;
  readonly succeeded: boolean;
  /** Absent when the component nudges nothing (or no target exists), or this stand-in does not nudge. */
  readonly nudge?: NudgeRunRecord;
}

export interface KonfluxStandInOptions {
  /** Mixed into generated digests and commits, so two sandboxes' images differ. Default `nudger-sandbox`. */
  readonly seed?: string;
  /**
   * The forge the nudged repositories are on, as the renovate executor reaches it: the nudge runs
   * then carry one generated config per target, which the Tekton stand-in runs. Absent: runs of
   * the same shape without configs, for callers that run no Tekton (the benchmarks).
   */
  readonly forgeAccess?: RenovateForgeAccessResolver;
  /** Default: `new Date()`. */
  readonly now?: () => Date;
}

/** What one build's nudge run is made from. */
interface NudgeToCreate {
  readonly namespace: string;
  readonly nudging: string;
  readonly targets: readonly string[];
  readonly imageUrl: string;
  readonly buildName: string;
  readonly buildUid: string;
  readonly link: string;
  readonly nudgeFiles?: string;
  readonly nudgingAnnotations?: Readonly<Record<string, string>>;
}

interface ComponentResource extends KubeObject {
  spec?: {
    application?: unknown;
    containerImage?: unknown;
    source?: { git?: { url?: unknown; revision?: unknown } };
    [BUILD_NUDGES_REF]?: unknown;
  };
}

const DIGEST = /^sha256:[0-9a-f]{64}$/;
const COMMIT = /^[0-9a-f]{40}$/;

function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

/** `<repo>:<tag>` split at the last `:` after the last `/`, as the nudge splits IMAGE_URL. */
function splitTag(image: string): { repository: string; tag: string | undefined } {
  const colon = image.lastIndexOf(':');
  return colon > image.lastIndexOf('/')
    ? { repository: image.slice(0, colon), tag: image.slice(colon + 1) }
    : { repository: image, tag: undefined };
}

/** integration-service's deterministic name: `renovate-pipeline-<12 hex of sha256(build UID)>`. */
export function nudgePipelineRunName(buildUid: string): string {
  return `renovate-pipeline-${createHash('sha256').update(buildUid).digest('hex').slice(0, 12)}`;
}

export class KonfluxStandIn {
  readonly #client: ObjectClient;
  readonly #seed: string;
  readonly #now: () => Date;
  readonly #forgeAccess: RenovateForgeAccessResolver | undefined;
  #counter = 0;
  readonly #builds: RecordedBuild[] = [];

  constructor(client: ObjectClient, options: KonfluxStandInOptions = {}) {
    this.#client = client;
    this.#seed = options.seed ?? 'nudger-sandbox';
    this.#now = options.now ?? (() => new Date());
    this.#forgeAccess = options.forgeAccess;
  }

  get builds(): readonly RecordedBuild[] {
    return this.#builds;
  }

  /** `sha256:` + sha256 of seed, component and a per-stand-in counter: same scenario, same digests. */
  digestFor(component: string, counter: number): string {
    return `sha256:${createHash('sha256')
      .update(`${this.#seed}\n${component}\n${String(counter)}\n`)
      .digest('hex')}`;
  }

  /**
   * A finished push build of `input.component`: when it succeeded, the Component's promotion
   * (status.lastPromotedImage and lastBuiltCommit, as integration-service's immediate GCL update
   * writes them) and, unless `input.nudge` is false, the nudge PipelineRun for its targets.
   */
  async recordBuild(input: RecordBuildInput): Promise<RecordedBuild> {
    const { namespace, component: name } = input;
    const fail = (field: string, reason: string): never => {
      throw new KonfluxStandInError(namespace, name, field, reason);
    };
    const component = await this.#client
      .get<ComponentResource>(COMPONENTS, namespace, name)
      .catch(whenNotFound(undefined));
    if (component === undefined) return fail('component', 'no such Component');
    this.#counter += 1;
    const counter = this.#counter;
    const digest = input.digest ?? this.digestFor(name, counter);
    if (!DIGEST.test(digest)) fail('digest', 'must be sha256: followed by 64 lower-case hex digits');
    const commit =
      input.commit ??
      createHash('sha1')
        .update(`${this.#seed}\ncommit\n${name}\n${String(counter)}\n`)
        .digest('hex');
    if (!COMMIT.test(commit)) fail('commit', 'must be 40 lower-case hex digits');
    const image = input.image ?? stringOr(component.spec?.containerImage, '');
    if (image === '') fail('image', 'not given, and the Component has no spec.containerImage');
    if (image.includes('@')) fail('image', 'must be <repository>[:<tag>], without a digest (IMAGE_URL)');
    const { repository, tag } = splitTag(image);
    const pullRequest = input.pullRequest;
    const imageUrl = `${repository}:${tag ?? (pullRequest === undefined ? commit : `on-pr-${commit}`)}`;
    const application = stringOr(component.spec?.application, '');
    const gitUrl = stringOr(component.spec?.source?.git?.url, '');
    const branch = input.branch ?? stringOr(component.spec?.source?.git?.revision, 'main');

    const succeeded = input.succeeded ?? true;
    const nudges = (input.nudge ?? true) && succeeded && pullRequest === undefined;
    // integration-service's marker goes on before the build succeeds: see the header.
    const targets = nudges ? await this.#nudgeTargets(namespace, name, component) : [];
    const annotations: Record<string, string> = {
      ...(input.nudgeFiles === undefined ? {} : { [BUILD_NUDGE_FILES_ANNOTATION]: input.nudgeFiles }),
      ...(nudges
        ? { [IS_NUDGE_PROCESSED_ANNOTATION]: targets.length > 0 ? targets.join(',') : 'no-matching-edges' }
        : {}),
    };
    const build = await this.#createBuild({
      namespace,
      name,
      application,
      gitUrl,
      branch,
      commit,
      outputImage: `${repository}:${pullRequest === undefined ? '' : 'on-pr-'}${commit}`,
      annotations,
      ...(pullRequest === undefined ? {} : { pullRequest }),
    });
    const buildName = build.metadata?.name ?? '';
    const started = this.#now().toISOString();
    await this.#client.patchStatus(PIPELINE_RUNS, namespace, buildName, 'merge', {
      status: {
        startTime: started,
        completionTime: started,
        conditions: [
          succeeded
            ? {
                type: 'Succeeded',
                status: 'True',
                reason: 'Succeeded',
                message: 'Tasks Completed: 1 (Failed: 0, Cancelled 0), Skipped: 0',
                lastTransitionTime: started,
              }
            : {
                type: 'Succeeded',
                status: 'False',
                reason: 'Failed',
                message: 'Tasks Completed: 1 (Failed: 1, Cancelled 0), Skipped: 0',
                lastTransitionTime: started,
              },
        ],
        // A failed build pushed no image: Tekton records no results of the tasks that did not finish.
        results: succeeded
          ? [
              { name: IMAGE_URL_RESULT, value: imageUrl },
              { name: IMAGE_DIGEST_RESULT, value: digest },
              { name: 'CHAINS-GIT_URL', value: gitUrl },
              { name: 'CHAINS-GIT_COMMIT', value: commit },
            ]
          : [],
      },
    });
    // Only a push build's image is promoted: a PR's image is not what the Component tracks.
    if (succeeded && pullRequest === undefined) {
      await this.#client.patchStatus(COMPONENTS, namespace, name, 'merge', {
        status: { lastPromotedImage: `${repository}@${digest}`, lastBuiltCommit: commit },
      });
    }

    let nudge: NudgeRunRecord | undefined;
    if (targets.length > 0) {
      const link = build.metadata?.annotations?.[REPO_AT_SHA_ANNOTATION] ?? '';
      nudge = await this.#createNudge({
        namespace,
        nudging: name,
        targets,
        imageUrl,
        buildName,
        buildUid: build.metadata?.uid ?? buildName,
        link,
        ...(input.nudgeFiles === undefined ? {} : { nudgeFiles: input.nudgeFiles }),
        ...(component.metadata?.annotations === undefined
          ? {}
          : { nudgingAnnotations: component.metadata.annotations }),
      });
    }
    const recorded: RecordedBuild = {
      namespace,
      component: name,
      pipelineRun: buildName,
      imageUrl,
      digest,
      commit,
      succeeded,
      ...(nudge === undefined ? {} : { nudge }),
    };
    this.#builds.push(recorded);
    return recorded;
  }

  async #createBuild(build: {
    namespace: string;
    name: string;
    application: string;
    gitUrl: string;
    branch: string;
    commit: string;
    outputImage: string;
    annotations: Readonly<Record<string, string>>;
    pullRequest?: PullRequestOfBuild;
  }): Promise<KubeObject> {
    const link = `${build.gitUrl}?rev=${build.commit}`;
    const pr = build.pullRequest;
    const event = pr === undefined ? 'push' : 'pull_request';
    // A PR's run carries Pipelines-as-Code's pull-request, source-branch and repo-url, and its
    // branch and build-service's target_branch are the PR's base (pre-merge nudges read them: D11).
    const object = {
      apiVersion: 'tekton.dev/v1',
      kind: 'PipelineRun',
      metadata: {
        // PaC appends a random suffix to the `.tekton/<component>-push.yaml` PipelineRun's name.
        generateName: `${build.name}-on-${pr === undefined ? 'push' : 'pull-request'}-`,
        namespace: build.namespace,
        labels: {
          ...(build.application === '' ? {} : { [APPLICATION_LABEL]: build.application }),
          [COMPONENT_LABEL]: build.name,
          [PIPELINE_TYPE_LABEL]: 'build',
          [PAC_EVENT_TYPE_KEY]: event,
          [PAC_SHA_KEY]: build.commit,
          'app.kubernetes.io/managed-by': PAC_MANAGED_BY_VALUE,
          ...(pr === undefined ? {} : { [PAC_PULL_REQUEST_KEY]: String(pr.number) }),
        },
        annotations: {
          [PAC_EVENT_TYPE_KEY]: event,
          [PAC_SHA_KEY]: build.commit,
          ...(pr === undefined
            ? {}
            : {
                [PAC_PULL_REQUEST_KEY]: String(pr.number),
                [PAC_SOURCE_BRANCH_KEY]: pr.sourceBranch,
                [PAC_REPO_URL_KEY]: pr.repoUrl,
              }),
          'pipelinesascode.tekton.dev/branch': build.branch,
          [TARGET_BRANCH_ANNOTATION]: build.branch,
          [COMMIT_SHA_ANNOTATION]: build.commit,
          [REPO_AT_SHA_ANNOTATION]: link,
          'pipelinesascode.tekton.dev/max-keep-runs': '3',
          ...build.annotations,
        },
      },
      spec: {
        params: [
          { name: 'git-url', value: build.gitUrl },
          { name: 'revision', value: build.commit },
          { name: 'output-image', value: build.outputImage },
        ],
        pipelineRef: { name: 'docker-build' },
        taskRunTemplate: { serviceAccountName: `build-pipeline-${build.name}` },
      },
    };
    return this.#client.create<KubeObject>(PIPELINE_RUNS, object);
  }

  /** Target Component names, deduplicated, existing ones only, in edge order. */
  async #nudgeTargets(namespace: string, name: string, component: ComponentResource): Promise<string[]> {
    const config = await this.#client.get(NUDGE_CONFIGS, namespace, NUDGE_CONFIG_NAME).catch(whenNotFound(undefined));
    // Read as nudger's informers read them: an object that does not decode offers no edge.
    const nudging = decodeComponent(component);
    const nudgeConfig = config === undefined ? undefined : decodeNudgeConfig(config);
    // Upstream build-service's rule on purpose: a NudgeConfig, when present, replaces build-nudges-ref.
    const graph = namespaceNudgeGraph(
      namespace,
      {
        components: nudging.ok ? [nudging.object] : [],
        ...(nudgeConfig?.ok === true ? { nudgeConfig: nudgeConfig.object } : {}),
      },
      { rules: 'build-service' },
    );
    const wanted = graph.edges.filter((edge) => edge.from === name && edge.mode === 'immediate').map((edge) => edge.to);
    const targets: string[] = [];
    for (const target of new Set(wanted)) {
      if (target === '' || target === name) continue;
      const exists = await this.#client
        .get(COMPONENTS, namespace, target)
        .then(() => true)
        .catch(whenNotFound(false));
      if (exists) targets.push(target);
    }
    return targets;
  }

  async #createNudge(nudge: NudgeToCreate): Promise<NudgeRunRecord> {
    const { namespace, nudging, targets, imageUrl, buildName, buildUid, link } = nudge;
    const name = nudgePipelineRunName(buildUid);
    // The real shape: one run for every target, one generated config per target in its ConfigMap
    // (`<target>-<i>.json`), one token per config in its Secret (`token_<i>`), both created first
    // and without owner references, as integration-service does. Renovate then runs every config
    // the run mounts, whatever the nudged-components annotation says.
    const configs = targets.map((nudged, i) => ({
      nudged,
      configKey: `${nudged}-${String(i)}.json`,
      tokenKey: `token_${String(i)}`,
    }));
    const access = this.#forgeAccess;
    // Without a forge to generate configs for (callers that run no Tekton), the run alone.
    if (access !== undefined) {
      const generated = new Map<string, RenovateNudgeConfig>();
      const tokens: Record<string, string> = {};
      for (const config of configs) {
        const target = await this.#targetConfig(nudge, config.nudged, access);
        generated.set(config.configKey, target.config);
        tokens[config.tokenKey] = target.token;
      }
      const metadata = { name, namespace };
      await this.#client.create(SECRETS, renovateTokensSecret(metadata, tokens));
      await this.#client.create(CONFIG_MAPS, renovateConfigsMap(metadata, generated));
    }
    const object = renovateNudgePipelineRun({
      namespace,
      key: buildUid,
      name,
      nudging,
      nudged: targets[0] ?? '',
      configs,
      buildPipelineRun: buildName,
      imageUrl,
      repoAtShaLink: link,
      serviceAccountName: 'appstudio-pipeline',
    });
    const created = await this.#client.create<KubeObject & { spec?: { status?: unknown } }>(PIPELINE_RUNS, object);
    return {
      name: created.metadata?.name ?? name,
      nudgedComponents: [...targets],
      specStatus: typeof created.spec?.status === 'string' ? created.spec.status : '',
    };
  }

  /** The Renovate config of one target, generated as nudger's renovate executor generates it. */
  async #targetConfig(
    nudge: NudgeToCreate,
    nudged: string,
    access: RenovateForgeAccessResolver,
  ): Promise<{ config: RenovateNudgeConfig; token: string }> {
    const { namespace, nudging } = nudge;
    const fail = (reason: string): never => {
      throw new KonfluxStandInError(namespace, nudging, 'nudge', reason);
    };
    const reading = decodeComponent(await this.#client.get(COMPONENTS, namespace, nudged));
    if (!reading.ok) return fail(`Component ${nudged} does not decode`);
    const target = reading.object;
    const { url, revision } = gitSourceOf(target);
    if (url === undefined) return fail(`Component ${nudged} has no spec.source.git.url`);
    const forge = await access.resolve(url, namespace);
    const sources = await renovateConfigMapSources(this.#client, namespace, target);
    const { settings } = readRenovateSettings(configMapInForce(sources, target.metadata?.annotations));
    const { repository, tag } = splitTag(nudge.imageUrl);
    const config = renovateNudgeConfig({
      target: {
        platform: forge.platform,
        username: forge.username,
        gitAuthor: forge.gitAuthor,
        endpoint: forge.endpoint,
        repository: forge.repository,
        baseBranch: revision,
      },
      nudging,
      nudged,
      simpleBranch: isSimpleBranch(nudge.nudgingAnnotations),
      builtRepository: repository,
      builtTag: tag ?? '',
      distributionRepositories: [],
      // As the renovate executor: a link Renovate may not quote (the local forge's file://) is left out.
      repoAtShaLink: quotableRepoAtShaLink({ [REPO_AT_SHA_ANNOTATION]: nudge.link }).link,
      settings,
      fileMatch: fileMatchInForce(settings, nudge.nudgeFiles),
    });
    return { config, token: forge.credentials.revealToken() };
  }
}
