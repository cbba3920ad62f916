// Tekton running nudge PipelineRuns, and the Renovate inside them, as far as the sandbox needs:
// a nudge PipelineRun that mounts no ConfigMap (one a test makes by hand) and is not cancelled is
// "executed", i.e. for every nudged component the
// ADR 29 pull request is opened or updated on its local forge repository the way Konflux's
// Renovate config makes it (github.com/konflux-ci/build-service): branch
// `konflux/component-updates/<nudged>-component-update-<nudging>`, one commit on the base that
// rewrites digest references, subject `Update <nudging> to <digest7>`, a non-draft PR titled
// like the commit. A run created (or set) cancelled is finished as Tekton finishes it
// (Succeeded=False, reason Cancelled) and nothing else happens: that is nudger's hold.
//
// A nudge PipelineRun of nudger's `renovate` executor (docs/decisions.md D9), and one of the
// build-service stand-in (konflux.ts, one config per target), mounts a ConfigMap of generated
// Renovate configs and reads its tokens from a Secret. As Tekton does, it waits until
// both exist; then each config is run by the Renovate stand-in (renovate-emulation.ts: its
// fileMatch, matchStrings, packageRules, branch, commit and pull request settings) on the local
// forge, so the `direct` and `renovate` executors can be compared on one scenario.
//
// Renovate resolves the tag's digest in the registry; the sandbox has no registry, so the digest
// comes from the build PipelineRun the nudge names, verified like nudger verifies it (D3); a
// validated batch's run (docs/decisions.md N29) names one build per component, each verified.
import type { LocalForge } from '../adapters/forges/local/local-forge.ts';
import { LocalForgeResolver } from '../adapters/forges/local/local-resolver.ts';
import type { PullRequest } from '../adapters/forges/types.ts';
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import { COMPONENTS, CONFIG_MAPS, PIPELINE_RUNS, SECRETS } from '../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import { localGitRun } from '../adapters/git/plumbing.ts';
import { GitWorkspaces, type GitIdentity } from '../adapters/git/workspace.ts';
import { imageRepository, verifyNudgeBuild, type VerifiedBuild } from '../domain/changegroup/verify-build.ts';
import {
  BUILD_NUDGE_FILES_ANNOTATION,
  compileFileMatch,
  pathMatches,
  resolveFileMatch,
  rewriteDigests,
} from '../domain/digest-rewrite/index.ts';
import { gitSourceOf, nudgingComponentFacts, renovateConfigMapSources } from '../cluster/nudged-repository.ts';
import { decodeComponent } from '../domain/cluster-objects.ts';
import type { ClusterComponent } from '../schema/component.ts';
import {
  NUDGE_TYPE_LABEL,
  NUDGE_TYPE_VALUE,
  readNudgePipelineRun,
  readPipelineRun,
  type NudgePipelineRun,
} from '../domain/nudge-pipelinerun.ts';
import { REPO_AT_SHA_ANNOTATION } from './konflux.ts';
import { SerialPoller, whenNotFound } from './poll-loop.ts';
import { compareStrings } from '../domain/compare.ts';
import { isRecord } from '../domain/records.ts';
import type { RepositoryRef } from '../adapters/forges/types.ts';
import type { BaseCheckout } from '../adapters/git/workspace.ts';
import type { RenovateNudgeConfig } from '../schema/renovate-config.ts';
import { emulateRenovate, readRenovateConfig } from './renovate-emulation.ts';
import { batchRunOf } from '../domain/nudge/renovate-pipelinerun.ts';
import { semanticCommitsDetected } from '../domain/nudge/commit-subject.ts';
import { foreignCommits } from '../domain/nudge/direct-decision.ts';
import { rebaseRequested } from '../domain/nudge/pull-request-text.ts';

export const NUDGE_BRANCH_PREFIX = 'konflux/component-updates/';
export const SIMPLE_BRANCH_ANNOTATION = 'build.appstudio.openshift.io/build-nudge-simple-branch';
/** The GitHub App identity Konflux's Renovate commits as. */
export const RENOVATE_IDENTITY: GitIdentity = {
  name: 'red-hat-konflux[bot]',
  email: '126015336+red-hat-konflux[bot]@users.noreply.github.com',
};
const PR_FOOTER = 'To execute skipped test pipelines write comment `/ok-to-test`';
/** How many of the base's newest subjects Renovate reads to decide semantic commits. */
const SEMANTIC_COMMIT_HISTORY = 20;
/** spec.status values after which Tekton starts nothing new. */
const CANCELLING = new Set(['Cancelled', 'CancelledRunFinally', 'StoppedRunFinally']);

/** `konflux/component-updates/<nudged>-component-update-<nudging>` (or the simple-branch form). */
export function renovateBranch(nudged: string, nudging: string, simpleBranch = false): string {
  return `${NUDGE_BRANCH_PREFIX}${simpleBranch ? '' : `${nudged}-`}component-update-${nudging}`;
}

/** Renovate's subject: `Update <nudging> to <first 7 hex of the digest>`. */
export function renovateSubject(nudging: string, digest: string): string {
  return `Update ${nudging} to ${digest.replace(/^sha256:/, '').slice(0, 7)}`;
}

export type TargetOutcome = 'opened' | 'updated' | 'unchanged' | 'no-references' | 'failed';

export interface NudgeTargetResult {
  readonly component: string;
  readonly outcome: TargetOutcome;
  readonly branch?: string;
  readonly pullRequest?: number;
  readonly pullRequestUrl?: string;
  readonly commit?: string;
  /** Why it failed. */
  readonly message?: string;
}

export interface ExecutedNudge {
  readonly namespace: string;
  readonly pipelineRun: string;
  readonly nudgingComponent: string;
  /** `executed` = succeeded; `failed` = the build did not verify or a target failed. */
  readonly outcome: 'executed' | 'cancelled' | 'failed';
  readonly targets: readonly NudgeTargetResult[];
  readonly message?: string;
}

export interface TektonStandInOptions {
  readonly client: ObjectClient;
  readonly forge: LocalForge;
  /** Where Renovate's git workspaces live (GitWorkspaces cache). */
  readonly gitCacheDir: string;
  /** Only nudge PipelineRuns of this namespace; default every namespace. */
  readonly namespace?: string;
  readonly now?: () => Date;
}

interface PipelineRunObject extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

export class TektonStandIn {
  readonly #client: ObjectClient;
  readonly #forge: LocalForge;
  readonly #resolver: LocalForgeResolver;
  readonly #workspaces: GitWorkspaces;
  readonly #namespace: string | undefined;
  readonly #now: () => Date;
  readonly #executed: ExecutedNudge[] = [];
  readonly #poller = new SerialPoller<ExecutedNudge[]>(() => this.#pollOnce());

  constructor(options: TektonStandInOptions) {
    this.#client = options.client;
    this.#forge = options.forge;
    this.#resolver = new LocalForgeResolver(options.forge);
    this.#workspaces = new GitWorkspaces({ cacheDir: options.gitCacheDir });
    this.#namespace = options.namespace;
    this.#now = options.now ?? (() => new Date());
  }

  /** Every nudge PipelineRun finished so far, in the order they were finished. */
  get executed(): readonly ExecutedNudge[] {
    return this.#executed;
  }

  /** Finishes every unfinished nudge PipelineRun once; returns what it did. */
  poll(): Promise<ExecutedNudge[]> {
    return this.#poller.poll();
  }

  /** Polls every `intervalMs` until stop(); a failed poll goes to `onError` and polling goes on. */
  start(intervalMs: number, onError: (error: unknown) => void): void {
    this.#poller.start(intervalMs, onError);
  }

  /** Stops polling and waits for a poll underway. */
  stop(): Promise<void> {
    return this.#poller.stop();
  }

  async #pollOnce(): Promise<ExecutedNudge[]> {
    const page = await this.#client.list<PipelineRunObject>(PIPELINE_RUNS, {
      labelSelector: `${NUDGE_TYPE_LABEL}=${NUDGE_TYPE_VALUE}`,
      ...(this.#namespace === undefined ? {} : { namespace: this.#namespace }),
    });
    // Oldest first, so a later nudge of the same pair lands on top of an earlier one. Timestamps
    // have one-second resolution; within a second, the creation revision (an unfinished run has
    // not been written since) decides.
    const runs = [...page.items].sort(
      (a, b) =>
        compareStrings(a.metadata?.creationTimestamp ?? '', b.metadata?.creationTimestamp ?? '') ||
        Number(a.metadata?.resourceVersion ?? 0) - Number(b.metadata?.resourceVersion ?? 0),
    );
    const done: ExecutedNudge[] = [];
    for (const run of runs) {
      const view = readPipelineRun(run);
      if (view === undefined) continue;
      const finished = view.succeeded !== undefined && view.succeeded.status !== 'Unknown';
      if (finished || view.specStatus === 'PipelineRunPending') continue;
      let result: ExecutedNudge;
      if (CANCELLING.has(view.specStatus)) {
        result = await this.#cancel(run);
      } else {
        const volumes = configVolumes(run);
        if (volumes === undefined) {
          result = await this.#execute(run);
        } else {
          // Tekton starts no pod before the ConfigMap and the Secret it mounts exist.
          const configs = await this.#mountedConfigs(run, volumes);
          if (configs === undefined) continue;
          result = await this.#execute(run, configs);
        }
      }
      this.#executed.push(result);
      done.push(result);
    }
    return done;
  }

  async #cancel(run: PipelineRunObject): Promise<ExecutedNudge> {
    const { namespace, name } = names(run);
    const now = this.#now().toISOString();
    await this.#writeStatus(run, {
      startTime: stringAt(run.status, 'startTime') ?? now,
      completionTime: now,
      conditions: [condition('False', 'Cancelled', `PipelineRun "${name}" was cancelled`, now)],
    });
    const nudging = run.metadata?.annotations?.['build.appstudio.redhat.com/nudging-component'] ?? '';
    return { namespace, pipelineRun: name, nudgingComponent: nudging, outcome: 'cancelled', targets: [] };
  }

  /** The ConfigMap's configs by key, once it and the Secret exist; undefined while one is missing. */
  async #mountedConfigs(run: PipelineRunObject, volumes: ConfigVolumes): Promise<Map<string, string> | undefined> {
    const { namespace } = names(run);
    const configMap = await this.#client
      .get<KubeObject & { data?: Record<string, string> }>(CONFIG_MAPS, namespace, volumes.configMap)
      .catch(whenNotFound(undefined));
    const secret =
      volumes.secret === undefined
        ? {}
        : await this.#client.get(SECRETS, namespace, volumes.secret).catch(whenNotFound(undefined));
    if (configMap === undefined || secret === undefined) return undefined;
    const entries = Object.entries(configMap.data ?? {}).filter(([key]) => key.endsWith('.json'));
    return new Map(entries.sort(([a], [b]) => compareStrings(a, b)));
  }

  /**
   * Runs a nudge: build-service's (every nudged component, the way Konflux's Renovate config makes
   * it) or, given `configs`, each generated config through the Renovate stand-in.
   */
  async #execute(run: PipelineRunObject, configs?: ReadonlyMap<string, string>): Promise<ExecutedNudge> {
    const { namespace, name } = names(run);
    const started = stringAt(run.status, 'startTime') ?? this.#now().toISOString();
    // Started first, as Tekton does: nudger's sweeper must never cancel a run that has begun.
    await this.#writeStatus(run, {
      startTime: started,
      conditions: [condition('Unknown', 'Running', 'Tasks Completed: 0 (Failed: 0, Cancelled 0), Skipped: 0', started)],
    });
    const finish = async (
      outcome: 'executed' | 'failed',
      nudging: string,
      targets: NudgeTargetResult[],
      message?: string,
    ): Promise<ExecutedNudge> => {
      const now = this.#now().toISOString();
      await this.#writeStatus(run, {
        startTime: started,
        completionTime: now,
        conditions: [
          outcome === 'executed'
            ? condition('True', 'Succeeded', 'Tasks Completed: 1 (Failed: 0, Cancelled 0), Skipped: 0', now)
            : condition('False', 'Failed', message ?? 'Tasks Completed: 1 (Failed: 1, Cancelled 0), Skipped: 0', now),
        ],
      });
      return {
        namespace,
        pipelineRun: name,
        nudgingComponent: nudging,
        outcome,
        targets,
        ...(message === undefined ? {} : { message }),
      };
    };
    const reading = readNudgePipelineRun(run);
    if (!reading.ok) return finish('failed', '', [], reading.message);
    const nudge = reading.nudge;
    const build =
      nudge.nudgingPipeline === undefined
        ? undefined
        : await this.#client.get(PIPELINE_RUNS, namespace, nudge.nudgingPipeline).catch(whenNotFound(undefined));
    const nudgingComponent = await this.#getComponent(namespace, nudge.nudgingComponent);
    const verified = verifyNudgeBuild(nudge, build, nudgingComponentFacts(nudgingComponent));
    if (!verified.ok) return finish('failed', nudge.nudgingComponent, [], verified.message);
    // A validated batch's run (docs/decisions.md N29) pins every component's build: each verified.
    const batch = await this.#batchBuilds(nudge, verified);
    if (typeof batch === 'string') return finish('failed', nudge.nudgingComponent, [], batch);
    const buildAnnotations = build?.metadata?.annotations ?? {};
    const simpleBranch = nudgingComponent?.metadata?.annotations?.[SIMPLE_BRANCH_ANNOTATION] === 'true';
    const targets: NudgeTargetResult[] = [];
    const work: [string, () => Promise<NudgeTargetResult>][] =
      configs === undefined
        ? nudge.nudgedComponents.map((target) => [
            target,
            () =>
              this.#updateTarget(nudge, verified, target, {
                simpleBranch,
                link: buildAnnotations[REPO_AT_SHA_ANNOTATION] ?? '',
                nudgeFiles: buildAnnotations[BUILD_NUDGE_FILES_ANNOTATION],
              }),
          ])
        : [...configs].map(([key, text]) => {
            // `<nudged>-<i>.json`, as the executor (and integration-service) names the keys.
            const component = key.replace(/(-[0-9]+)?\.json$/, '');
            return [component, () => this.#runConfig(component, readRenovateConfig(text, `${name} ${key}`), batch)];
          });
    for (const [target, update] of work) {
      try {
        targets.push(await update());
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        targets.push({ component: target, outcome: 'failed', message });
      }
    }
    const failed = targets.filter((target) => target.outcome === 'failed');
    return failed.length === 0
      ? finish('executed', nudge.nudgingComponent, targets)
      : finish(
          'failed',
          nudge.nudgingComponent,
          targets,
          failed.map((target) => `${target.component}: ${target.message ?? ''}`).join('; '),
        );
  }

  async #updateTarget(
    nudge: NudgePipelineRun,
    build: VerifiedBuild,
    target: string,
    context: { simpleBranch: boolean; link: string; nudgeFiles: string | undefined },
  ): Promise<NudgeTargetResult> {
    const { namespace } = nudge;
    const component = await this.#getComponent(namespace, target);
    if (component === undefined) throw new Error(`Component ${namespace}/${target} does not exist`);
    const { url: gitUrl, revision: baseBranch } = gitSourceOf(component);
    if (gitUrl === undefined) throw new Error(`Component ${namespace}/${target} has no spec.source.git.url`);
    const { repo } = await this.#resolver.resolve(gitUrl, namespace);
    const fileMatch = resolveFileMatch({
      ...(await renovateConfigMapSources(this.#client, namespace, component)),
      ...(context.nudgeFiles === undefined ? {} : { buildNudgeFilesAnnotation: context.nudgeFiles }),
    });
    const matchers = compileFileMatch(fileMatch);
    const checkout = await this.#workspaces.prepareBase(this.#forge.cloneUrl(repo), baseBranch);
    const files = await checkout.readFiles((path) => pathMatches(path, matchers));
    const repository = imageRepository(build.imageUrl);
    const rewrite = rewriteDigests(files, [{ repository, digest: build.digest }], fileMatch);
    const branch = renovateBranch(target, nudge.nudgingComponent, context.simpleBranch);
    if (rewrite.changes.length === 0) return { component: target, outcome: 'no-references', branch };

    const subject = renovateSubject(nudge.nudgingComponent, build.digest);
    const signedOff = `Signed-off-by: ${RENOVATE_IDENTITY.name} <${RENOVATE_IDENTITY.email}>`;
    const commit = await checkout.commitOnBase({
      files: rewrite.changes.map((change) => ({ path: change.path, text: change.after })),
      message: `${subject}\n\nImage created from '${context.link}'\n\n${signedOff}`,
      author: RENOVATE_IDENTITY,
    });
    const previous = rewrite.changes[0]?.replacements[0]?.from.split('@sha256:')[1] ?? '';
    const body = [
      `Image created from '${context.link}'`,
      '',
      'This PR contains the following updates:',
      '',
      '| Package | Change |',
      '|---|---|',
      `| ${repository} | \`${previous.slice(0, 7)}\` -> \`${build.digest.slice(7, 14)}\` |`,
      '',
      '---',
      '',
      PR_FOOTER,
    ].join('\n');
    return this.#publish(target, repo, checkout, commit, {
      base: baseBranch,
      branch,
      title: subject,
      body,
      labels: [],
    });
  }

  /**
   * What Renovate does with one generated config on the local forge: the stand-in's update
   * (renovate-emulation.ts), committed on the base as the config's gitAuthor, pushed to its branch,
   * and its pull request opened or updated with the config's title, body and labels.
   */
  async #runConfig(
    component: string,
    config: RenovateNudgeConfig,
    builds: readonly VerifiedBuild[],
  ): Promise<NudgeTargetResult> {
    const [target] = config.repositories;
    const [owner, ...rest] = (target?.repository ?? '').split('/');
    if (target === undefined || owner === undefined || rest.length !== 1) {
      throw new Error(`repositories: ${JSON.stringify(target?.repository ?? '')} is not <owner>/<name>`);
    }
    const repo = this.#forge.repository(owner, rest.join('/'));
    const baseBranch = target.baseBranches[0] ?? 'main';
    // Renovate's semanticCommits "auto" matters only without a commitMessagePrefix; it then reads
    // the base's newest 20 subjects (as the direct executor does, docs/decisions.md N17).
    const [, rule] = config.packageRules;
    const semanticAuto = rule.commitMessagePrefix === undefined;
    const checkout = await this.#workspaces.prepareBase(this.#forge.cloneUrl(repo), baseBranch, undefined, {
      depth: semanticAuto ? SEMANTIC_COMMIT_HISTORY : 1,
    });
    // Only the files a manager's fileMatch selects are read, as Renovate reads them.
    const fileMatch = compileFileMatch(config.customManagers.flatMap((manager) => manager.fileMatch));
    const files = await checkout.readFiles((path) => pathMatches(path, fileMatch));
    // The registry the sandbox has not: each build's tag points to its digest.
    const digests = new Map(builds.map((build) => [build.imageUrl, build.digest]));
    const update = emulateRenovate({
      config,
      files,
      semanticCommits: semanticAuto && semanticCommitsDetected(await checkout.recentSubjects(SEMANTIC_COMMIT_HISTORY)),
      lookupDigest: (depName, tag) => digests.get(`${depName}:${tag}`),
    });
    if (update === undefined) return { component, outcome: 'no-references' };
    const author = gitIdentityOf(config.gitAuthor);
    // Renovate leaves a branch someone else pushed to alone until its rebase box is ticked (the
    // same rule as the direct executor's, src/domain/nudge/direct-decision.ts).
    const open = await this.#forge.findPullRequestByHeadBranch(repo, update.branch);
    if (open?.state === 'open' && rebaseRequested(open.body) !== true) {
      const foreign = foreignCommits(await this.#forge.listCommits(repo, open.number), author.email);
      if (foreign.length > 0) {
        return {
          component,
          outcome: 'unchanged',
          branch: update.branch,
          pullRequest: open.number,
          pullRequestUrl: open.url,
          message: `the branch has ${String(foreign.length)} commit(s) by someone else; left alone until its rebase box is ticked`,
        };
      }
    }
    const commit = await checkout.commitOnBase({
      files: update.files.map((file) => ({ path: file.path, text: file.after })),
      message: update.commitMessage,
      author,
    });
    return this.#publish(component, repo, checkout, commit, {
      base: update.baseBranch,
      branch: update.branch,
      title: update.prTitle,
      body: update.prBody,
      labels: update.labels,
      automerge: update.platformAutomerge,
    });
  }

  /** Pushes `commit` to the branch unless it already holds this change, then opens or updates its PR. */
  async #publish(
    component: string,
    repo: RepositoryRef,
    checkout: BaseCheckout,
    commit: string,
    pr: {
      base: string;
      branch: string;
      title: string;
      body: string;
      labels: readonly string[];
      automerge?: boolean;
    },
  ): Promise<NudgeTargetResult> {
    const remoteHead = await this.#forge.branchHead(repo, pr.branch);
    const same = remoteHead !== undefined && (await this.#sameChange(checkout.directory, commit, repo, remoteHead));
    // Renovate leaves a branch that already holds this very update alone (no push, no build).
    if (!same) await checkout.pushWithLease(pr.branch, remoteHead, commit);
    const existing = await this.#forge.findPullRequestByHeadBranch(repo, pr.branch);
    let opened: PullRequest;
    let outcome: TargetOutcome;
    if (existing?.state === 'open') {
      opened =
        existing.title === pr.title && existing.body === pr.body
          ? existing
          : await this.#forge.updatePullRequest(repo, existing.number, { title: pr.title, body: pr.body });
      outcome = same && opened === existing ? 'unchanged' : 'updated';
    } else {
      opened = await this.#forge.createPullRequest({
        repo,
        base: pr.base,
        head: pr.branch,
        title: pr.title,
        body: pr.body,
        draft: false,
      });
      outcome = 'opened';
    }
    if (pr.labels.length > 0) await this.#forge.addLabels(repo, opened.number, pr.labels);
    if (pr.automerge === true) await this.#forge.enableAutoMerge(repo, opened.number);
    return {
      component,
      outcome,
      branch: pr.branch,
      pullRequest: opened.number,
      pullRequestUrl: opened.url,
      commit: same ? remoteHead : commit,
    };
  }

  /** Same tree and same parent: the branch already is this update on this base. */
  async #sameChange(
    workspace: string,
    commit: string,
    repo: Parameters<LocalForge['gitDirectory']>[0],
    remoteHead: string,
  ): Promise<boolean> {
    const ours = (await localGitRun(workspace)('rev-parse', ['rev-parse', `${commit}^{tree}`, `${commit}^`])).trim();
    const theirs = await localGitRun(this.#forge.gitDirectory(repo))('rev-parse', [
      'rev-parse',
      `${remoteHead}^{tree}`,
      `${remoteHead}^`,
    ]).then(
      (output) => output.trim(),
      () => undefined,
    );
    return ours === theirs;
  }

  /**
   * The builds a run pins: its one build, or for a validated batch each component's (its
   * `nudging-pipelines`), verified as nudger verifies a build (D3); the first refusal as text.
   */
  async #batchBuilds(nudge: NudgePipelineRun, first: VerifiedBuild): Promise<VerifiedBuild[] | string> {
    const batch = batchRunOf(nudge.pipelineRun.annotations);
    if (batch === undefined) return [first];
    const builds = [first];
    // The run announces the first component's image only; each other build is checked without it.
    const { nudgingImage: _first, ...shared } = nudge;
    for (const { component, build } of batch.components) {
      if (component === nudge.nudgingComponent) continue;
      const one = { ...shared, nudgingComponent: component, nudgingPipeline: build };
      const run = await this.#client.get(PIPELINE_RUNS, nudge.namespace, build).catch(whenNotFound(undefined));
      const facts = nudgingComponentFacts(await this.#getComponent(nudge.namespace, component));
      const verified = verifyNudgeBuild(one, run, facts);
      if (!verified.ok) return verified.message;
      builds.push(verified);
    }
    return builds;
  }

  /** The Component, decoded as the manager's informer decodes it; one that does not decode counts as none. */
  async #getComponent(namespace: string, name: string): Promise<ClusterComponent | undefined> {
    const read = await this.#client.get(COMPONENTS, namespace, name).catch(whenNotFound(undefined));
    const decoded = read === undefined ? undefined : decodeComponent(read);
    return decoded?.ok === true ? decoded.object : undefined;
  }

  async #writeStatus(run: PipelineRunObject, status: Record<string, unknown>): Promise<void> {
    const { namespace, name } = names(run);
    await this.#client.patchStatus(PIPELINE_RUNS, namespace, name, 'merge', { status });
  }
}

/** `Name <address>`, Renovate's gitAuthor, as git takes it. */
function gitIdentityOf(gitAuthor: string): GitIdentity {
  const match = /^(.+) <([^<>]+)>$/.exec(gitAuthor);
  if (match?.[1] === undefined || match[2] === undefined) throw new Error('gitAuthor: not "Name <address>"');
  return { name: match[1], email: match[2] };
}

/** What a nudge PipelineRun of the `renovate` executor mounts: its config ConfigMap and token Secret. */
interface ConfigVolumes {
  readonly configMap: string;
  readonly secret?: string;
}

function recordsAt(value: unknown, key: string): Record<string, unknown>[] {
  const list = isRecord(value) ? value[key] : undefined;
  return Array.isArray(list) ? list.filter(isRecord) : [];
}

/** The first ConfigMap volume of the run's inline tasks (and the Secret its steps read), if any. */
export function configVolumes(run: { spec?: Record<string, unknown> }): ConfigVolumes | undefined {
  const pipelineSpec = run.spec?.pipelineSpec;
  for (const task of recordsAt(pipelineSpec, 'tasks')) {
    const taskSpec = task.taskSpec;
    const configMap = recordsAt(taskSpec, 'volumes')
      .map((volume) => volume.configMap)
      .find(isRecord)?.name;
    if (typeof configMap !== 'string') continue;
    const secret = recordsAt(taskSpec, 'steps')
      .flatMap((step) => recordsAt(step, 'envFrom'))
      .map((source) => source.secretRef)
      .find(isRecord)?.name;
    return typeof secret === 'string' ? { configMap, secret } : { configMap };
  }
  return undefined;
}

function names(run: KubeObject): { namespace: string; name: string } {
  return { namespace: run.metadata?.namespace ?? '', name: run.metadata?.name ?? '' };
}

function stringAt(object: Record<string, unknown> | undefined, key: string): string | undefined {
  const value = object?.[key];
  return typeof value === 'string' ? value : undefined;
}

function condition(status: 'True' | 'False' | 'Unknown', reason: string, message: string, at: string): object {
  return { type: 'Succeeded', status, reason, message, lastTransitionTime: at };
}
