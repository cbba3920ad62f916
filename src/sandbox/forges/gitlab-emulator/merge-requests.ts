// The GitLab emulator's projects and merge requests, and the REST operations on them, answered
// from live repository state (branch heads, commits) the way GitLab does: MR numbers are per
// project `iid`s, draft is derived from the title prefix (GitLab has no draft field to set), a
// second open MR from one source branch is refused with 409, a missing branch with 422.
import { isDraftTitle } from '../../../domain/pr-description/draft-title.ts';
import type { BareRepository } from '../github-emulator/git-backend.ts';

export interface MergeRequestRecord {
  readonly id: number;
  readonly iid: number;
  title: string;
  description: string | null;
  state: 'opened' | 'closed' | 'merged';
  readonly sourceBranch: string;
  targetBranch: string;
  readonly author: string;
  readonly createdAt: string;
  updatedAt: string;
  mergedAt: string | null;
  closedAt: string | null;
  /** The head when merged or closed; the branch head is read live while open. */
  sha: string;
  /** The target's head when merged: the MR's commits are those between it and `sha`. */
  mergeBaseSha: string | null;
  mergeCommitSha: string | null;
  labels: string[];
  /** Note bodies, oldest first. */
  readonly notes: string[];
  /** Set by PUT .../merge with auto_merge: the project merges once its pipeline passes. */
  autoMerge: { readonly squash: boolean } | null;
}

export interface ProjectRecord {
  readonly id: number;
  readonly path: string;
  readonly defaultBranch: string;
  readonly git: BareRepository;
  readonly mergeRequests: MergeRequestRecord[];
}

export interface RestAnswer {
  readonly status: number;
  readonly body: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface RestCall {
  readonly operationId: string;
  readonly project: ProjectRecord;
  /** The `merge_request_iid` (or `noteable_id`) path parameter, when the path has one. */
  readonly iid: number | undefined;
  readonly query: URLSearchParams;
  readonly body: Record<string, unknown>;
  readonly login: string;
}

/** GitLab's error body: a string, or a list (or field map) of validation messages. */
export const message = (status: number, text: string | readonly string[]): RestAnswer => ({
  status,
  body: { message: text },
});

export class MergeRequestApi {
  readonly #web: string;
  #nextId = 1;
  #clock = Date.parse('2026-01-01T00:00:00Z');

  constructor(web: string) {
    this.#web = web;
  }

  nextId(): number {
    return this.#nextId++;
  }

  /** Strictly increasing timestamps, so "newest first" never ties. */
  now(): string {
    this.#clock += 1000;
    return new Date(this.#clock).toISOString();
  }

  async handle(call: RestCall): Promise<RestAnswer> {
    const { project } = call;
    const mr = call.iid === undefined ? undefined : project.mergeRequests.find((m) => m.iid === call.iid);
    switch (call.operationId) {
      case 'getApiV4ProjectsIdMergeRequests':
        return this.#list(call);
      case 'postApiV4ProjectsIdMergeRequests':
        return this.#create(call);
      case 'getApiV4ProjectsIdMergeRequestsMergeRequestIid':
        return mr === undefined ? message(404, '404 Not found') : { status: 200, body: await this.render(project, mr) };
      case 'putApiV4ProjectsIdMergeRequestsMergeRequestIid':
        return mr === undefined ? message(404, '404 Not found') : this.#update(call, mr);
      case 'getApiV4ProjectsIdMergeRequestsMergeRequestIidCommits':
        return mr === undefined ? message(404, '404 Not found') : this.#commits(project, mr);
      case 'postApiV4ProjectsIdMergeRequestsNoteableIdNotes':
        return mr === undefined ? message(404, '404 Not found') : this.#note(call, mr);
      case 'putApiV4ProjectsIdMergeRequestsMergeRequestIidMerge':
        return mr === undefined ? message(404, '404 Not found') : this.#merge(call, mr);
      default:
        return message(404, `emulator: ${call.operationId} is documented but not emulated`);
    }
  }

  async #list(call: RestCall): Promise<RestAnswer> {
    const source = call.query.get('source_branch');
    const state = call.query.get('state') ?? 'all';
    const matching = call.project.mergeRequests
      .filter((mr) => source === null || mr.sourceBranch === source)
      .filter((mr) => state === 'all' || mr.state === state)
      .sort((a, b) => b.createdAt.localeCompare(a.createdAt));
    const body = await Promise.all(matching.map((mr) => this.render(call.project, mr)));
    return { status: 200, body, headers: { 'x-total': String(body.length), 'x-total-pages': '1', 'x-page': '1' } };
  }

  async #create(call: RestCall): Promise<RestAnswer> {
    const { project, body } = call;
    const source = String(body.source_branch);
    const target = String(body.target_branch);
    const head = await project.git.branchHead(source);
    const problem = await this.#branchProblem(project, source, target);
    if (problem !== undefined) return message(422, [problem]);
    const open = project.mergeRequests.find((mr) => mr.sourceBranch === source && mr.state === 'opened');
    if (open !== undefined) {
      return message(409, [`Another open merge request already exists for this source branch: !${String(open.iid)}`]);
    }
    const now = this.now();
    const labels = Array.isArray(body.labels) ? body.labels.map(String) : [];
    const mr: MergeRequestRecord = {
      id: this.nextId(),
      iid: project.mergeRequests.reduce((max, m) => Math.max(max, m.iid), 0) + 1,
      title: String(body.title),
      description: typeof body.description === 'string' ? body.description : null,
      state: 'opened',
      sourceBranch: source,
      targetBranch: target,
      author: call.login,
      createdAt: now,
      updatedAt: now,
      mergedAt: null,
      closedAt: null,
      sha: head ?? '',
      mergeBaseSha: null,
      mergeCommitSha: null,
      labels,
      notes: [],
      autoMerge: null,
    };
    project.mergeRequests.push(mr);
    return { status: 201, body: await this.render(project, mr) };
  }

  async #update(call: RestCall, mr: MergeRequestRecord): Promise<RestAnswer> {
    const { body, project } = call;
    if (typeof body.target_branch === 'string') {
      const problem = await this.#branchProblem(project, mr.sourceBranch, body.target_branch);
      if (problem !== undefined) return message(422, [problem]);
      mr.targetBranch = body.target_branch;
    }
    if (typeof body.title === 'string') mr.title = body.title;
    if (typeof body.description === 'string') mr.description = body.description;
    if (Array.isArray(body.add_labels)) {
      for (const label of body.add_labels.map(String)) if (!mr.labels.includes(label)) mr.labels.push(label);
    }
    if (body.state_event === 'close' && mr.state === 'opened') await this.close(project, mr);
    if (body.state_event === 'reopen' && mr.state === 'closed') mr.state = 'opened';
    mr.updatedAt = this.now();
    return { status: 200, body: await this.render(project, mr) };
  }

  async #commits(project: ProjectRecord, mr: MergeRequestRecord): Promise<RestAnswer> {
    const head = mr.state === 'opened' ? ((await project.git.branchHead(mr.sourceBranch)) ?? mr.sha) : mr.sha;
    const base = mr.state === 'merged' ? (mr.mergeBaseSha ?? undefined) : await project.git.branchHead(mr.targetBranch);
    const commits = head === '' ? [] : await project.git.commitsBetween(base, head);
    // GitLab lists an MR's commits newest first.
    const body = commits.reverse().map((commit) => ({
      id: commit.sha,
      short_id: commit.sha.slice(0, 8),
      created_at: commit.committerDate,
      parent_ids: [...commit.parents],
      title: commit.message.split('\n')[0] ?? '',
      message: `${commit.message}\n`,
      author_name: commit.authorName,
      author_email: commit.authorEmail,
      authored_date: commit.authorDate,
      committer_name: commit.committerName,
      committer_email: commit.committerEmail,
      committed_date: commit.committerDate,
      web_url: `${this.#web}/${project.path}/-/commit/${commit.sha}`,
    }));
    return { status: 200, body };
  }

  #note(call: RestCall, mr: MergeRequestRecord): RestAnswer {
    const body = String(call.body.body);
    mr.notes.push(body);
    const now = this.now();
    return {
      status: 201,
      body: {
        id: this.nextId(),
        type: 'Note',
        body,
        author: { id: 1, username: call.login, name: call.login, state: 'active' },
        created_at: now,
        updated_at: now,
        system: false,
        noteable_id: mr.id,
        noteable_type: 'MergeRequest',
        noteable_iid: mr.iid,
        internal: false,
      },
    };
  }

  /** Auto-merge is recorded as if a pipeline were running; a plain merge merges now. */
  async #merge(call: RestCall, mr: MergeRequestRecord): Promise<RestAnswer> {
    const { body, project } = call;
    if (mr.state !== 'opened') return message(405, '405 Method Not Allowed');
    const head = await project.git.branchHead(mr.sourceBranch);
    if (typeof body.sha === 'string' && body.sha !== head) {
      return message(409, 'SHA does not match HEAD of source branch');
    }
    if (body.auto_merge === true || body.merge_when_pipeline_succeeds === true) {
      mr.autoMerge = { squash: body.squash === true };
    } else {
      await this.merge(project, mr);
    }
    mr.updatedAt = this.now();
    return { status: 200, body: await this.render(project, mr) };
  }

  async #branchProblem(project: ProjectRecord, source: string, target: string): Promise<string | undefined> {
    if ((await project.git.branchHead(source)) === undefined) return `Source branch "${source}" does not exist`;
    if ((await project.git.branchHead(target)) === undefined) return `Target branch "${target}" does not exist`;
    return undefined;
  }

  /** The merge button: fast-forward when possible, else a merge commit on the target. */
  async merge(project: ProjectRecord, mr: MergeRequestRecord): Promise<void> {
    const head = await project.git.branchHead(mr.sourceBranch);
    const base = await project.git.branchHead(mr.targetBranch);
    if (head === undefined || base === undefined) throw new Error('emulator: source or target branch is gone');
    mr.mergeCommitSha = await project.git.merge(
      mr.targetBranch,
      head,
      `Merge branch '${mr.sourceBranch}' into '${mr.targetBranch}'`,
    );
    const now = this.now();
    Object.assign(mr, { sha: head, mergeBaseSha: base, state: 'merged', mergedAt: now, updatedAt: now });
  }

  async close(project: ProjectRecord, mr: MergeRequestRecord): Promise<void> {
    mr.sha = (await project.git.branchHead(mr.sourceBranch)) ?? mr.sha;
    const now = this.now();
    Object.assign(mr, { state: 'closed', closedAt: now, updatedAt: now });
  }

  /**
   * An APIEntitiesMergeRequest. GitLab sends `null` for unset fields, but the official description
   * marks none of these nullable, so unset fields are left out instead (docs/decisions.md N32).
   */
  async render(project: ProjectRecord, mr: MergeRequestRecord): Promise<Record<string, unknown>> {
    const sha = mr.state === 'opened' ? ((await project.git.branchHead(mr.sourceBranch)) ?? mr.sha) : mr.sha;
    const draft = isDraftTitle(mr.title, 'gitlab');
    const optional: Record<string, unknown> = {
      description: mr.description,
      merged_at: mr.mergedAt,
      closed_at: mr.closedAt,
      merge_commit_sha: mr.mergeCommitSha,
    };
    return {
      id: mr.id,
      iid: mr.iid,
      project_id: project.id,
      title: mr.title,
      state: mr.state,
      created_at: mr.createdAt,
      updated_at: mr.updatedAt,
      target_branch: mr.targetBranch,
      source_branch: mr.sourceBranch,
      source_project_id: project.id,
      target_project_id: project.id,
      author: { id: 1, username: mr.author, name: mr.author, state: 'active' },
      labels: [...mr.labels],
      draft,
      work_in_progress: draft,
      merge_when_pipeline_succeeds: mr.autoMerge !== null,
      merge_status: 'can_be_merged',
      detailed_merge_status: draft ? 'draft_status' : 'mergeable',
      sha,
      squash: mr.autoMerge?.squash ?? false,
      reference: `!${String(mr.iid)}`,
      web_url: `${this.#web}/${project.path}/-/merge_requests/${String(mr.iid)}`,
      ...Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== null)),
    };
  }
}
