// `forge: github` and `forge: gitlab` (docs/decisions.md N37): the sandbox's forge on the GitHub
// or GitLab emulator, which checks every request nudger sends against the official descriptions.
// nudger's manager reaches the emulator as a configured forge host (`--github-host` /
// `--gitlab-host`), with the emulator's token in an SCM Secret of the tenant's namespace, as on a
// cluster; the sandbox's human side acts through the emulator's own handle (merge, close, edit)
// and, where the emulator has none (opening a PR, editing an MR's description), through the same
// provider nudger uses, over the API.
//
// Pipelines-as-Code's events: the emulator calls back after every API request, push and human
// action, one at a time and in order; each call compares the pull requests with the last call and
// appends what changed to the repository's event log (the local forge's format: opened, edited,
// ready_for_review, converted_to_draft, closed, merged), and a `post-receive` hook in each bare
// repository appends every push. Pushes run in the same one-at-a-time order as API calls
// (serveGitHttpInOrder), so the log is in the order things happened.
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Credentials } from '../../adapters/credentials/credentials.ts';
import {
  appendForgeEvent,
  installPostReceiveHook,
  type PullRequestAction,
} from '../../adapters/forges/local/event-log.ts';
import { FORGE_REGISTRY, type HostedForge } from '../../adapters/forges/registry.ts';
import type { RepositoryRef } from '../../adapters/forges/repository-url.ts';
import type { ForgeProvider, PullRequest } from '../../adapters/forges/types.ts';
import { GITLAB_GIT_USERNAME } from '../../adapters/forges/gitlab/index.ts';
import { localGitRun } from '../../adapters/git/plumbing.ts';
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import { readyTitle } from '../../domain/pr-description/draft-title.ts';
import { startGitHubEmulator, type GitHubEmulator } from './github-emulator/emulator.ts';
import { startGitLabEmulator, type GitLabEmulator } from './gitlab-emulator/emulator.ts';
import type { OpenPullRequestInput, SandboxForge, SandboxPullRequest } from './sandbox-forge.ts';

/** What both emulators' handles have alike. */
type CommonHandle = Pick<
  EmulatorHandle,
  'apiUrl' | 'gitBaseUrl' | 'projectRoot' | 'contractViolations' | 'createRepository' | 'stop'
>;

function commonHandle(emulator: GitHubEmulator | GitLabEmulator): CommonHandle {
  return {
    apiUrl: emulator.apiUrl,
    gitBaseUrl: emulator.gitBaseUrl,
    projectRoot: emulator.projectRoot,
    contractViolations: emulator.contractViolations,
    createRepository: (owner, name, files, branch) => emulator.createRepository(owner, name, files, branch),
    stop: () => emulator.close(),
  };
}

export type EmulatedForgeKind = 'github' | 'gitlab';

/** The SCM Secret the sandbox creates in each tenant namespace (Konflux's labels). */
export const SANDBOX_SCM_SECRET = 'nudger-sandbox-scm-token';

/** One pull request as an emulator shows it, in the sandbox's terms. */
interface EmulatedPull {
  readonly number: number;
  readonly title: string;
  readonly body: string;
  readonly draft: boolean;
  readonly state: 'open' | 'closed' | 'merged';
  readonly headBranch: string;
  readonly baseBranch: string;
  /** For an open one, possibly stale: read the branch. */
  readonly recordedSha: string;
  readonly mergeCommitSha: string | null;
  readonly labels: readonly string[];
}

/** What differs between the two emulators' handles. */
interface EmulatorHandle {
  readonly apiUrl: string;
  readonly gitBaseUrl: string;
  readonly projectRoot: string;
  readonly contractViolations: readonly string[];
  createRepository: SandboxForge['createRepository'];
  pulls(owner: string, name: string): EmulatedPull[];
  pullUrl(owner: string, name: string, number: number): string;
  merge(owner: string, name: string, number: number): Promise<void>;
  close(owner: string, name: string, number: number): Promise<void>;
  editBody(repo: RepositoryRef, number: number, body: string): Promise<void>;
  stop(): Promise<void>;
}

export interface EmulatedSandboxForge extends SandboxForge {
  /** The manager's configured forge hosts: the emulator's. */
  readonly managerHosts: ReadonlyMap<string, HostedForge>;
}

export async function startEmulatedForge(kind: EmulatedForgeKind, directory: string): Promise<EmulatedSandboxForge> {
  const token = `${kind === 'github' ? 'ghp_' : 'glpat-'}${randomBytes(20).toString('hex')}`;
  const credentials = new Credentials({
    token,
    ...(kind === 'gitlab' ? { username: GITLAB_GIT_USERNAME } : {}),
  });
  const logRoot = join(directory, 'forge-events');
  const repositories = new Map<string, RepositoryRef>();
  // The emulator calls back from its first request on; the recorder needs the emulator's handle.
  const events: { recorder?: PullRequestEventRecorder } = {};
  const onChange = async (): Promise<void> => {
    await events.recorder?.record([...repositories.values()]);
  };
  const handle = kind === 'github' ? await githubHandle(token, onChange) : await gitlabHandle(token, onChange);
  const logPath = (repo: RepositoryRef): string => join(logRoot, repo.owner, `${repo.name}.events.jsonl`);
  const gitDirectory = (repo: RepositoryRef): string => join(handle.projectRoot, repo.owner, `${repo.name}.git`);
  events.recorder = new PullRequestEventRecorder(handle, logPath, gitDirectory);
  const provider: ForgeProvider = FORGE_REGISTRY[kind].create({
    apiUrl: handle.apiUrl,
    gitBaseUrl: handle.gitBaseUrl,
    credentials,
  });
  const host = new URL(handle.gitBaseUrl).host;
  const repositoryUrl = (owner: string, name: string): string => `${handle.gitBaseUrl}/${owner}/${name}.git`;
  const pullRequests = async (repo: RepositoryRef): Promise<SandboxPullRequest[]> => {
    const out: SandboxPullRequest[] = [];
    for (const pull of handle.pulls(repo.owner, repo.name)) {
      out.push({
        number: pull.number,
        url: handle.pullUrl(repo.owner, repo.name, pull.number),
        state: pull.state,
        draft: pull.draft,
        title: readyTitle(pull.title, kind),
        body: pull.body,
        headBranch: pull.headBranch,
        headSha: await liveHead(gitDirectory(repo), pull),
        baseBranch: pull.baseBranch,
        ...(pull.mergeCommitSha === null ? {} : { mergeCommitSha: pull.mergeCommitSha }),
        labels: pull.labels,
      });
    }
    return out;
  };
  const find = async (repo: RepositoryRef, number: number): Promise<PullRequest> => {
    const found = (await pullRequests(repo)).find((pr) => pr.number === number);
    if (found === undefined) throw new Error(`${repo.owner}/${repo.name} has no pull request #${String(number)}`);
    return found;
  };
  return {
    kind,
    pacRules: kind,
    managerHosts: new Map([[host, { kind, apiUrl: handle.apiUrl, gitBaseUrl: handle.gitBaseUrl }]]),
    contractViolations: handle.contractViolations,
    repositoryUrl,
    async createRepository(owner, name, files, branch) {
      const repo = await handle.createRepository(owner, name, files, branch);
      await mkdir(join(logRoot, owner), { recursive: true });
      await installPostReceiveHook(gitDirectory(repo), logPath(repo));
      repositories.set(`${owner}/${name}`, repo);
      return repo;
    },
    gitDirectory,
    eventLogPath: logPath,
    humanRemote: (repo) => ({ url: repositoryUrl(repo.owner, repo.name), credentials }),
    // The host label carries no port (docs/decisions.md N9); without a username git goes as the
    // forge's default (GitLab: oauth2, N32).
    tenantObjects: (namespace) => [scmSecret(namespace, new URL(handle.gitBaseUrl).hostname, token)],
    branchHead: (repo, branch) =>
      localGitRun(gitDirectory(repo))('rev-parse', ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`]).then(
        (out) => out.trim() || undefined,
        () => undefined,
      ),
    listPullRequests: pullRequests,
    async commitCount(repo, pullRequest) {
      if (pullRequest.state === 'merged') return 0;
      const run = localGitRun(gitDirectory(repo));
      const out = await run('rev-list', [
        'rev-list',
        '--count',
        pullRequest.headSha,
        `^refs/heads/${pullRequest.baseBranch}`,
        '--',
      ]);
      return Number.parseInt(out.trim(), 10);
    },
    async openPullRequest(input: OpenPullRequestInput) {
      return provider.createPullRequest({ ...input, draft: false });
    },
    async merge(repo, number) {
      await handle.merge(repo.owner, repo.name, number);
      return find(repo, number);
    },
    close: (repo, number) => handle.close(repo.owner, repo.name, number),
    editBody: (repo, number, body) => handle.editBody(repo, number, body),
    shutdown: () => handle.stop(),
  };
}

/** The open PR's head now (its branch), else the head the emulator kept when it closed. */
async function liveHead(gitDir: string, pull: EmulatedPull): Promise<string> {
  if (pull.state !== 'open') return pull.recordedSha;
  const out = await localGitRun(gitDir)('rev-parse', [
    'rev-parse',
    '--verify',
    '--quiet',
    `refs/heads/${pull.headBranch}`,
  ]).catch(() => '');
  return out.trim() || pull.recordedSha;
}

async function githubHandle(token: string, onChange: () => Promise<void>): Promise<EmulatorHandle> {
  const emulator: GitHubEmulator = await startGitHubEmulator({ token, onChange });
  return {
    ...commonHandle(emulator),
    pulls: (owner, name) =>
      emulator.pullRequests(owner, name).map((pull) => ({
        number: pull.number,
        title: pull.title,
        body: pull.body ?? '',
        draft: pull.draft,
        state: pull.merged ? 'merged' : pull.state,
        headBranch: pull.headRef,
        baseBranch: pull.baseRef,
        recordedSha: pull.headSha,
        mergeCommitSha: pull.mergeCommitSha,
        labels: pull.labels,
      })),
    pullUrl: (owner, name, number) => `${emulator.gitBaseUrl}/${owner}/${name}/pull/${String(number)}`,
    merge: (owner, name, number) => emulator.mergePullRequest(owner, name, number),
    close: (owner, name, number) => emulator.closePullRequest(owner, name, number),
    editBody: (repo, number, body) => emulator.editPullRequestBody(repo.owner, repo.name, number, body),
  };
}

async function gitlabHandle(token: string, onChange: () => Promise<void>): Promise<EmulatorHandle> {
  const emulator: GitLabEmulator = await startGitLabEmulator({ token, onChange });
  // GitLab's UI edits a description through the same API the provider calls; the emulator has no
  // separate human handle for it.
  const provider = FORGE_REGISTRY.gitlab.create({
    apiUrl: emulator.apiUrl,
    gitBaseUrl: emulator.gitBaseUrl,
    credentials: new Credentials({ token, username: GITLAB_GIT_USERNAME }),
  });
  return {
    ...commonHandle(emulator),
    pulls: (owner, name) =>
      emulator.mergeRequests(owner, name).map((mr) => ({
        number: mr.iid,
        title: mr.title,
        body: mr.description ?? '',
        draft: mr.draft,
        state: mr.state === 'opened' ? 'open' : mr.state,
        headBranch: mr.sourceBranch,
        baseBranch: mr.targetBranch,
        recordedSha: mr.sha,
        mergeCommitSha: mr.mergeCommitSha,
        labels: mr.labels,
      })),
    pullUrl: (owner, name, number) => `${emulator.gitBaseUrl}/${owner}/${name}/-/merge_requests/${String(number)}`,
    merge: (owner, name, number) => emulator.mergeMergeRequest(owner, name, number),
    close: (owner, name, number) => emulator.closeMergeRequest(owner, name, number),
    editBody: async (repo, number, body) => {
      await provider.updatePullRequest(repo, number, { body });
    },
  };
}

/** What the recorder remembers of a pull request between two calls. */
interface SeenPull {
  readonly state: EmulatedPull['state'];
  readonly draft: boolean;
  readonly title: string;
  readonly body: string;
}

/** Turns the difference between two looks at an emulator's pull requests into webhook-like events. */
class PullRequestEventRecorder {
  readonly #handle: EmulatorHandle;
  readonly #logPath: (repo: RepositoryRef) => string;
  readonly #gitDirectory: (repo: RepositoryRef) => string;
  readonly #seen = new Map<string, SeenPull>();

  constructor(
    handle: EmulatorHandle,
    logPath: (repo: RepositoryRef) => string,
    gitDirectory: (repo: RepositoryRef) => string,
  ) {
    this.#handle = handle;
    this.#logPath = logPath;
    this.#gitDirectory = gitDirectory;
  }

  async record(repositories: readonly RepositoryRef[]): Promise<void> {
    for (const repo of repositories) {
      for (const pull of this.#handle.pulls(repo.owner, repo.name)) {
        const key = `${repo.owner}/${repo.name}#${String(pull.number)}`;
        const before = this.#seen.get(key);
        const now: SeenPull = { state: pull.state, draft: pull.draft, title: pull.title, body: pull.body };
        const actions = changes(before, now);
        if (actions.length === 0) continue;
        this.#seen.set(key, now);
        const headSha = await liveHead(this.#gitDirectory(repo), pull);
        for (const type of actions) {
          await appendForgeEvent(this.#logPath(repo), {
            type,
            number: pull.number,
            headBranch: pull.headBranch,
            baseBranch: pull.baseBranch,
            headSha,
            draft: pull.draft,
            at: new Date().toISOString(),
          });
        }
      }
    }
  }
}

/** The pull_request actions between two looks at one PR, in the order GitHub would send them. */
function changes(before: SeenPull | undefined, now: SeenPull): PullRequestAction[] {
  if (before === undefined) return now.state === 'open' ? ['opened'] : [];
  const actions: PullRequestAction[] = [];
  if (before.title !== now.title || before.body !== now.body) actions.push('edited');
  if (before.state === 'open' && now.state === 'open' && before.draft !== now.draft) {
    actions.push(now.draft ? 'converted_to_draft' : 'ready_for_review');
  }
  if (before.state === 'open' && now.state === 'merged') actions.push('merged');
  if (before.state === 'open' && now.state === 'closed') actions.push('closed');
  return actions;
}

function scmSecret(namespace: string, host: string, token: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: SANDBOX_SCM_SECRET,
      namespace,
      labels: { 'appstudio.redhat.com/credentials': 'scm', 'appstudio.redhat.com/scm.host': host },
    },
    type: 'kubernetes.io/basic-auth',
    stringData: { password: token },
  } as KubeObject;
}
