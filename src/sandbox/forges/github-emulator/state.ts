// What the emulator remembers: repositories (each a bare git repository) and their pull requests.
// Branch heads are never copied into this state while a PR is open; they are read from git when
// a response is built, as GitHub does.
import type { BareRepository } from './git-backend.ts';

export interface PullRequestRecord {
  readonly number: number;
  readonly id: number;
  readonly nodeId: string;
  title: string;
  body: string | null;
  draft: boolean;
  state: 'open' | 'closed';
  merged: boolean;
  mergedAt: string | null;
  closedAt: string | null;
  mergeCommitSha: string | null;
  readonly headRef: string;
  /** Frozen when the PR closes; while it is open the live branch head wins. */
  headSha: string;
  baseRef: string;
  /** The base branch tip when the PR was opened or last changed state. */
  baseSha: string;
  readonly createdAt: string;
  updatedAt: string;
  /** Who opened it: the token's user. */
  readonly author: string;
  /** Label names, in the order first added. */
  labels: string[];
  /** Set by enablePullRequestAutoMerge; who asked, and how it is to be merged. */
  autoMerge: { readonly method: 'MERGE' | 'SQUASH' | 'REBASE'; readonly enabledBy: string } | null;
  /** Its conversation's comments (issues.createComment), in the order added. */
  readonly comments: IssueCommentRecord[];
}

export interface IssueCommentRecord {
  readonly id: number;
  readonly body: string;
  /** Who wrote it: the token's user. */
  readonly author: string;
  readonly createdAt: string;
}

export interface RepositoryRecord {
  readonly owner: string;
  readonly name: string;
  readonly id: number;
  readonly nodeId: string;
  readonly defaultBranch: string;
  readonly git: BareRepository;
  readonly pulls: PullRequestRecord[];
  readonly createdAt: string;
  /** The repository's labels by name: GitHub creates one the first time it is added to an issue. */
  readonly labels: Map<string, number>;
  readonly settings: RepositorySettings;
}

/** The merge settings of a repository (Settings → General → Pull Requests). */
export interface RepositorySettings {
  /** "Allow auto-merge": off on a new GitHub repository. */
  readonly autoMergeAllowed: boolean;
  readonly mergeCommitAllowed: boolean;
  readonly squashMergeAllowed: boolean;
  readonly rebaseMergeAllowed: boolean;
}

/** What GitHub gives a new repository: every merge method, no auto-merge. */
export const NEW_REPOSITORY_SETTINGS: RepositorySettings = {
  autoMergeAllowed: false,
  mergeCommitAllowed: true,
  squashMergeAllowed: true,
  rebaseMergeAllowed: true,
};

export class EmulatorState {
  readonly #repositories = new Map<string, RepositoryRecord>();
  #nextId = 1000;
  /** GitHub timestamps have second precision; a logical clock keeps creation order visible in them. */
  #clock = Date.parse('2026-01-01T00:00:00Z');

  nextId(): number {
    return this.#nextId++;
  }

  now(): string {
    this.#clock += 1000;
    return new Date(this.#clock).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  addRepository(record: RepositoryRecord): void {
    this.#repositories.set(key(record.owner, record.name), record);
  }

  repositories(): RepositoryRecord[] {
    return [...this.#repositories.values()];
  }

  repository(owner: string, name: string): RepositoryRecord | undefined {
    return this.#repositories.get(key(owner, name));
  }

  pullRequest(owner: string, name: string, number: number): PullRequestRecord | undefined {
    return this.repository(owner, name)?.pulls.find((pull) => pull.number === number);
  }

  /** The PR and its repository for a GraphQL global id. */
  byNodeId(nodeId: string): { repository: RepositoryRecord; pull: PullRequestRecord } | undefined {
    for (const repository of this.#repositories.values()) {
      const pull = repository.pulls.find((candidate) => candidate.nodeId === nodeId);
      if (pull !== undefined) return { repository, pull };
    }
    return undefined;
  }
}

/** GitHub matches owner and repository names case-insensitively. */
function key(owner: string, name: string): string {
  return `${owner.toLowerCase()}/${name.toLowerCase()}`;
}

/** A GitHub-style global id (`PR_kw…`): opaque to clients, unique per object here. */
export function nodeId(prefix: string, id: number): string {
  return `${prefix}_kwDO${Buffer.from(`emulator:${String(id)}`).toString('base64url')}`;
}
