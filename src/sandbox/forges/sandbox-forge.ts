// The sandbox's forge (docs/decisions.md N37): what a scenario's repositories are on, seen from
// the sandbox's side only. nudger itself never sees this interface: the manager reaches the local
// forge through its resolver, and an emulator as a configured forge host, with the token from the
// tenant's SCM Secret, exactly as on a cluster. The sandbox needs three things of it:
//
// - where Pipelines-as-Code's events come from: a webhook-like event log per repository (the local
//   forge's own; for an emulator, one the sandbox writes from what the emulator did, with pushes from
//   a `post-receive` hook in its bare repositories), and the bare repository to read commits from;
// - the human side: open, merge, close a pull request, edit its description, push as a person;
// - what the result reports: every pull request with its URL, state, draft flag and labels.
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import type { Credentials } from '../../adapters/credentials/credentials.ts';
import type { PullRequest } from '../../adapters/forges/types.ts';
import type { RepositoryRef } from '../../adapters/forges/repository-url.ts';
import type { LocalForge } from '../../adapters/forges/local/local-forge.ts';
import type { ScenarioForge } from '../scenario/schema.ts';

/** Which builds Pipelines-as-Code starts for which event: GitHub's (and the local forge's) or GitLab's (D12). */
export type PacRules = 'github' | 'gitlab';

/** A pull request as the sandbox reports it. */
export interface SandboxPullRequest extends PullRequest {
  readonly labels: readonly string[];
}

export interface OpenPullRequestInput {
  readonly repo: RepositoryRef;
  readonly base: string;
  readonly head: string;
  readonly title: string;
  readonly body: string;
}

export interface SandboxForge {
  readonly kind: ScenarioForge;
  readonly pacRules: PacRules;
  /**
   * What the forge found outside its official API description so far, in order (an emulator
   * checks every request and answer, N37); always empty for the local forge.
   */
  readonly contractViolations: readonly string[];
  /** The repository's URL, for a Component's `spec.source.git.url` and PaC's `repo-url`. */
  repositoryUrl(owner: string, name: string): string;
  /** A new repository whose `branch` holds `files` in one commit. */
  createRepository(
    owner: string,
    name: string,
    files: Readonly<Record<string, string>>,
    branch: string,
  ): Promise<RepositoryRef>;
  /** The bare repository on disk. */
  gitDirectory(repo: RepositoryRef): string;
  /** The repository's event log (the local forge's format, `event-log.ts`). */
  eventLogPath(repo: RepositoryRef): string;
  /** Where a person clones and pushes, and as whom (none on the local forge). */
  humanRemote(repo: RepositoryRef): { readonly url: string; readonly credentials?: Credentials };
  /** Objects the tenant's namespace needs to reach this forge (an emulator's SCM Secret). */
  tenantObjects(namespace: string): readonly KubeObject[];
  branchHead(repo: RepositoryRef, branch: string): Promise<string | undefined>;
  /** Oldest first. */
  listPullRequests(repo: RepositoryRef): Promise<SandboxPullRequest[]>;
  /** Commits on the PR's branch that its base does not have now. */
  commitCount(repo: RepositoryRef, pullRequest: SandboxPullRequest): Promise<number>;
  openPullRequest(input: OpenPullRequestInput): Promise<PullRequest>;
  merge(repo: RepositoryRef, number: number): Promise<PullRequest>;
  close(repo: RepositoryRef, number: number): Promise<void>;
  /** A person edits the description (ticks a box). */
  editBody(repo: RepositoryRef, number: number, body: string): Promise<void>;
  shutdown(): Promise<void>;
}

/** The open pull request from `branch`, else the newest one, else undefined. */
export async function pullRequestByHeadBranch(
  forge: SandboxForge,
  repo: RepositoryRef,
  branch: string,
): Promise<SandboxPullRequest | undefined> {
  const matching = (await forge.listPullRequests(repo)).filter((pr) => pr.headBranch === branch);
  return matching.find((pr) => pr.state === 'open') ?? matching.at(-1);
}

export async function pullRequestByNumber(
  forge: SandboxForge,
  repo: RepositoryRef,
  number: number,
): Promise<SandboxPullRequest> {
  const found = (await forge.listPullRequests(repo)).find((pr) => pr.number === number);
  if (found === undefined) throw new Error(`${repo.owner}/${repo.name} has no pull request #${String(number)}`);
  return found;
}

/** nudger's local forge, as the sandbox has always played it. */
export class LocalSandboxForge implements SandboxForge {
  readonly kind = 'local';
  readonly pacRules = 'github';
  readonly contractViolations: readonly string[] = [];
  readonly forge: LocalForge;

  constructor(forge: LocalForge) {
    this.forge = forge;
  }

  repositoryUrl(owner: string, name: string): string {
    return this.forge.repositoryUrl(owner, name);
  }

  createRepository(owner: string, name: string, files: Readonly<Record<string, string>>): Promise<RepositoryRef> {
    return this.forge.createRepository(owner, name, files);
  }

  gitDirectory(repo: RepositoryRef): string {
    return this.forge.gitDirectory(repo);
  }

  eventLogPath(repo: RepositoryRef): string {
    return this.forge.eventLogPath(repo);
  }

  humanRemote(repo: RepositoryRef): { url: string } {
    return { url: this.forge.cloneUrl(repo) };
  }

  tenantObjects(): readonly KubeObject[] {
    return [];
  }

  branchHead(repo: RepositoryRef, branch: string): Promise<string | undefined> {
    return this.forge.branchHead(repo, branch);
  }

  async listPullRequests(repo: RepositoryRef): Promise<SandboxPullRequest[]> {
    const out: SandboxPullRequest[] = [];
    for (const pr of await this.forge.listPullRequests(repo)) {
      out.push({ ...pr, labels: [...((await this.forge.pullRequestExtras(repo, pr.number)).labels ?? [])] });
    }
    return out;
  }

  async commitCount(repo: RepositoryRef, pullRequest: SandboxPullRequest): Promise<number> {
    return (await this.forge.listCommits(repo, pullRequest.number)).length;
  }

  openPullRequest(input: OpenPullRequestInput): Promise<PullRequest> {
    return this.forge.createPullRequest({ ...input, draft: false });
  }

  merge(repo: RepositoryRef, number: number): Promise<PullRequest> {
    return this.forge.merge(repo, number);
  }

  async close(repo: RepositoryRef, number: number): Promise<void> {
    await this.forge.close(repo, number);
  }

  async editBody(repo: RepositoryRef, number: number, body: string): Promise<void> {
    await this.forge.updatePullRequest(repo, number, { body });
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
