// Pipelines-as-Code, as far as the sandbox needs it: which forge events start a pull-request build
// of a component (github.com/openshift-pipelines/pipelines-as-code). PaC builds on
// `opened`, `synchronize` (a push to the head of an open PR) and `ready_for_review`, unless the
// head commit's message holds a skip marker; `edited` (title or description) never triggers. It
// runs on draft PRs too (Konflux's CEL has no draft opt-out). Nothing runs here: a build is
// counted and recorded, which is what the sandbox reports (how many builds a scenario cost).
//
// The PR state needed for `synchronize` (which head branches have an open PR) is rebuilt from the
// log itself, in log order, so a PR closed right after a push still counts that push's build.
//
// On GitLab (docs/decisions.md D12) PaC reads a skip marker in the head commit's title only, and
// leaving draft is a title edit, which starts nothing; an opened MR and a push to its source branch
// build as on GitHub. Which rules apply is the sandbox forge's (`pacRules`); the events come from
// its event log, the local forge's own or the one the sandbox writes for an emulator (N37).
//
// In a monorepo each component's `.tekton/` pull-request PipelineRun may build it only for some
// paths (`"<glob>".pathChanged()` in its on-cel-expression, docs/decisions.md N33): a component
// watched with globs is built only when a file the PR changes (since its merge base with the base
// branch) matches one, as PaC's gobwas/glob matches it.
import { readForgeEventLog, ZERO_SHA, type LoggedForgeEvent } from '../adapters/forges/local/event-log.ts';
import type { RepositoryRef } from '../adapters/forges/repository-url.ts';
import { localGitRun } from '../adapters/git/plumbing.ts';
import { SerialPoller } from './poll-loop.ts';
import { hasSkipMarker } from '../domain/pr-description/skip-markers.ts';
import { pacGlobMatches } from '../domain/monorepo/pac-glob.ts';
import type { PacRules, SandboxForge } from './forges/sandbox-forge.ts';

/** Where PaC's events and commits come from: the local forge, or the sandbox's forge. */
export type PacSource = Pick<SandboxForge, 'eventLogPath' | 'gitDirectory'>;

export type PacTrigger = 'opened' | 'synchronize' | 'ready_for_review';

export interface PacBuild {
  readonly component: string;
  /** `owner/name` of the repository. */
  readonly repository: string;
  readonly pullRequest: number;
  readonly headSha: string;
  readonly trigger: PacTrigger;
  /** Byte offset of the event in the repository's log. */
  readonly eventOffset: number;
}

/** A PR event PaC looked at and did not build, because of a skip marker: for the report. */
export interface PacSkip {
  readonly component: string;
  readonly repository: string;
  readonly pullRequest: number;
  readonly headSha: string;
  readonly trigger: PacTrigger;
}

interface WatchedRepository {
  readonly repo: RepositoryRef;
  readonly components: string[];
  offset: number;
  /** Head branch -> numbers of the open PRs on it, from opened/closed/merged events. */
  readonly openByHead: Map<string, Set<number>>;
  /** Component -> its pull-request PipelineRun's pathChanged globs; absent = built for every change. */
  readonly pathChanged: Map<string, readonly string[]>;
  /** PR number -> its base branch, from its opened event. */
  readonly baseOf: Map<number, string>;
}

const BRANCH_REF = 'refs/heads/';

export class PacStandIn {
  readonly #forge: PacSource;
  readonly #rules: PacRules;
  readonly #watched = new Map<string, WatchedRepository>();
  readonly #builds: PacBuild[] = [];
  readonly #skips: PacSkip[] = [];
  readonly #poller = new SerialPoller<PacBuild[]>(() => this.#pollOnce());

  constructor(forge: PacSource, rules: PacRules = 'github') {
    this.#forge = forge;
    this.#rules = rules;
  }

  /**
   * Counts builds of `component` for PR events of `repo`, from the start of its log (events that
   * happened before the call are counted at the next poll). Several components may share a repo.
   */
  watch(repo: RepositoryRef, component: string, pathChanged?: readonly string[]): void {
    const key = `${repo.owner}/${repo.name}`;
    let known = this.#watched.get(key);
    if (known === undefined) {
      known = { repo, components: [], offset: 0, openByHead: new Map(), pathChanged: new Map(), baseOf: new Map() };
      this.#watched.set(key, known);
    }
    if (!known.components.includes(component)) known.components.push(component);
    if (pathChanged !== undefined) known.pathChanged.set(component, pathChanged);
  }

  /** Every build counted so far, in the order the events happened per repository. */
  get builds(): readonly PacBuild[] {
    return this.#builds;
  }

  get skipped(): readonly PacSkip[] {
    return this.#skips;
  }

  buildCount(component?: string): number {
    return component === undefined
      ? this.#builds.length
      : this.#builds.filter((build) => build.component === component).length;
  }

  /** Reads every watched log from where the last poll stopped; returns the builds it counted. */
  poll(): Promise<PacBuild[]> {
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

  async #pollOnce(): Promise<PacBuild[]> {
    const counted: PacBuild[] = [];
    for (const watched of this.#watched.values()) {
      const batch = await readForgeEventLog(this.#forge.eventLogPath(watched.repo), watched.offset);
      for (const [index, event] of batch.events.entries()) {
        counted.push(...(await this.#handle(watched, event)));
        // Advanced per event: a failure (git) leaves the rest of the batch for the next poll.
        watched.offset = batch.events[index + 1]?.offset ?? batch.nextOffset;
      }
      watched.offset = batch.nextOffset;
    }
    return counted;
  }

  async #handle(watched: WatchedRepository, event: LoggedForgeEvent): Promise<PacBuild[]> {
    switch (event.type) {
      case 'opened':
        openSet(watched, event.headBranch).add(event.number);
        watched.baseOf.set(event.number, event.baseBranch);
        return this.#trigger(watched, event.number, event.headSha, 'opened', event.offset);
      case 'ready_for_review':
        // On GitLab leaving draft is a title edit: no pipeline (D12).
        if (this.#rules === 'gitlab') return [];
        return this.#trigger(watched, event.number, event.headSha, 'ready_for_review', event.offset);
      case 'closed':
      case 'merged':
        openSet(watched, event.headBranch).delete(event.number);
        return [];
      case 'push': {
        if (!event.ref.startsWith(BRANCH_REF) || event.after === ZERO_SHA) return [];
        const open = [...(watched.openByHead.get(event.ref.slice(BRANCH_REF.length)) ?? [])];
        const builds: PacBuild[] = [];
        for (const number of open) {
          builds.push(...(await this.#trigger(watched, number, event.after, 'synchronize', event.offset)));
        }
        return builds;
      }
      case 'edited':
      case 'converted_to_draft':
        return [];
    }
  }

  #changedPaths(watched: WatchedRepository, pullRequest: number, headSha: string): Promise<string[] | undefined> {
    return changedPathsOf(this.#forge, watched, pullRequest, headSha);
  }

  async #trigger(
    watched: WatchedRepository,
    pullRequest: number,
    headSha: string,
    trigger: PacTrigger,
    eventOffset: number,
  ): Promise<PacBuild[]> {
    const repository = `${watched.repo.owner}/${watched.repo.name}`;
    const run = localGitRun(this.#forge.gitDirectory(watched.repo));
    // GitLab reads the marker in the title (D12); GitHub anywhere in the message (D4).
    const format = this.#rules === 'gitlab' ? '--format=%s' : '--format=%B';
    const message = await run('log', ['log', '-1', format, headSha, '--']);
    if (hasSkipMarker(message)) {
      for (const component of watched.components) {
        this.#skips.push({ component, repository, pullRequest, headSha, trigger });
      }
      return [];
    }
    const changed = await this.#changedPaths(watched, pullRequest, headSha);
    const built = watched.components.filter((component) => {
      const globs = watched.pathChanged.get(component);
      if (globs === undefined || changed === undefined) return true;
      return changed.some((path) => globs.some((glob) => pacGlobMatches(glob, path)));
    });
    const builds = built.map((component): PacBuild => ({
      component,
      repository,
      pullRequest,
      headSha,
      trigger,
      eventOffset,
    }));
    this.#builds.push(...builds);
    return builds;
  }
}

/**
 * The paths the PR changes at `headSha`, since its merge base with its base branch; undefined
 * when no component of the repository filters on paths, or the base is not known.
 */
async function changedPathsOf(
  forge: PacSource,
  watched: WatchedRepository,
  pullRequest: number,
  headSha: string,
): Promise<string[] | undefined> {
  const base = watched.baseOf.get(pullRequest);
  if (watched.pathChanged.size === 0 || base === undefined) return undefined;
  const run = localGitRun(forge.gitDirectory(watched.repo));
  const mergeBase = (await run('merge-base', ['merge-base', `refs/heads/${base}`, headSha])).trim();
  const listed = await run('diff', ['diff', '--name-only', '-z', '--no-renames', mergeBase, headSha, '--']);
  return listed.split('\0').filter((path) => path !== '');
}

function openSet(watched: WatchedRepository, headBranch: string): Set<number> {
  let set = watched.openByHead.get(headBranch);
  if (set === undefined) {
    set = new Set();
    watched.openByHead.set(headBranch, set);
  }
  return set;
}
