// The REST operations the emulator implements, by OpenAPI operationId. Requests reach these only
// after the contract check, so bodies and parameters have the documented types; what is checked
// here is what GitHub checks against its own state (branches exist, one open PR per head and base).
import { renderCommit, renderIssueComment, renderLabel, renderPullRequest, type EmulatorUrls } from './render.ts';
import type { EmulatorState, PullRequestRecord, RepositoryRecord } from './state.ts';
import { nodeId } from './state.ts';

export interface RestRequest {
  readonly operationId: string;
  readonly pathParams: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly body: unknown;
  /** The token's user. */
  readonly login: string;
  /** Path relative to the API root, for pagination links. */
  readonly path: string;
}

export interface RestResponse {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
}

export type RestHandler = (request: RestRequest) => Promise<RestResponse>;

const PULLS_DOCS = 'https://docs.github.com/rest/pulls/pulls';
const LABELS_DOCS = 'https://docs.github.com/rest/issues/labels#add-labels-to-an-issue';
const COMMENTS_DOCS = 'https://docs.github.com/rest/issues/comments#create-an-issue-comment';
/** GitHub's cap on pulls.listCommits. */
const MAX_PR_COMMITS = 250;

export function errorBody(status: number, message: string, documentationUrl = 'https://docs.github.com/rest'): object {
  return { message, documentation_url: documentationUrl, status: String(status) };
}

export function validationFailed(errors: readonly object[]): RestResponse {
  return {
    status: 422,
    body: { message: 'Validation Failed', errors, documentation_url: PULLS_DOCS, status: '422' },
  };
}

const NOT_FOUND: RestResponse = { status: 404, body: errorBody(404, 'Not Found', PULLS_DOCS) };

export function restHandlers(state: EmulatorState, urls: EmulatorUrls): Map<string, RestHandler> {
  const repositoryOf = (request: RestRequest): RepositoryRecord | undefined =>
    state.repository(request.pathParams.owner ?? '', request.pathParams.repo ?? '');
  const headSha = async (repo: RepositoryRecord, pull: PullRequestRecord): Promise<string> =>
    pull.state === 'open' ? ((await repo.git.branchHead(pull.headRef)) ?? pull.headSha) : pull.headSha;
  const render = async (repo: RepositoryRecord, pull: PullRequestRecord): Promise<object> =>
    renderPullRequest(urls, repo, pull, await headSha(repo, pull));
  const pullOf = (request: RestRequest): { repo: RepositoryRecord; pull: PullRequestRecord } | undefined => {
    const repo = repositoryOf(request);
    const number = Number(request.pathParams.pull_number);
    const pull = repo?.pulls.find((candidate) => candidate.number === number);
    return repo === undefined || pull === undefined ? undefined : { repo, pull };
  };

  const handlers = new Map<string, RestHandler>();

  handlers.set('pulls/list', async (request) => {
    const repo = repositoryOf(request);
    if (repo === undefined) return NOT_FOUND;
    const wantedState = request.query.get('state') ?? 'open';
    const head = request.query.get('head');
    const base = request.query.get('base');
    let pulls = repo.pulls.filter((pull) => wantedState === 'all' || pull.state === wantedState);
    if (head !== null) {
      const [owner, ref] = head.includes(':') ? head.split(':', 2) : [undefined, head];
      pulls = pulls.filter(
        (pull) => pull.headRef === ref && (owner === undefined || owner.toLowerCase() === repo.owner.toLowerCase()),
      );
    }
    if (base !== null) pulls = pulls.filter((pull) => pull.baseRef === base);
    const sort = request.query.get('sort') ?? 'created';
    const direction = request.query.get('direction') ?? (sort === 'created' ? 'desc' : 'asc');
    const field = sort === 'updated' ? 'updatedAt' : 'createdAt';
    pulls = [...pulls].sort((a, b) => a[field].localeCompare(b[field]) || a.number - b.number);
    if (direction === 'desc') pulls.reverse();
    const page = paginate(pulls, request, urls.api);
    return {
      status: 200,
      body: await Promise.all(page.items.map((pull) => render(repo, pull))),
      headers: page.headers,
    };
  });

  handlers.set('pulls/create', async (request) => {
    const repo = repositoryOf(request);
    if (repo === undefined) return NOT_FOUND;
    const body = asRecord(request.body);
    const title = stringField(body, 'title');
    const base = stringField(body, 'base') ?? '';
    const rawHead = stringField(body, 'head') ?? '';
    // `owner:branch` names a fork's branch; only same-repository heads exist here.
    const head = rawHead.startsWith(`${repo.owner}:`) ? rawHead.slice(repo.owner.length + 1) : rawHead;
    if (title === undefined)
      return validationFailed([{ resource: 'PullRequest', field: 'title', code: 'missing_field' }]);
    const baseSha = await repo.git.branchHead(base);
    if (baseSha === undefined) return validationFailed([{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
    const sha = await repo.git.branchHead(head);
    if (sha === undefined) return validationFailed([{ resource: 'PullRequest', field: 'head', code: 'invalid' }]);
    if (repo.pulls.some((pull) => pull.state === 'open' && pull.headRef === head && pull.baseRef === base)) {
      return validationFailed([
        {
          resource: 'PullRequest',
          code: 'custom',
          message: `A pull request already exists for ${repo.owner}:${head}.`,
        },
      ]);
    }
    if (await repo.git.isAncestor(sha, baseSha)) {
      return validationFailed([
        { resource: 'PullRequest', code: 'custom', message: `No commits between ${base} and ${head}` },
      ]);
    }
    const id = state.nextId();
    const now = state.now();
    const pull: PullRequestRecord = {
      number: repo.pulls.length + 1,
      id,
      nodeId: nodeId('PR', id),
      title,
      // GitHub stores an empty description as null.
      body: emptyToNull(stringField(body, 'body')),
      draft: body.draft === true,
      state: 'open',
      merged: false,
      mergedAt: null,
      closedAt: null,
      mergeCommitSha: null,
      headRef: head,
      headSha: sha,
      baseRef: base,
      baseSha,
      createdAt: now,
      updatedAt: now,
      author: request.login,
      labels: [],
      autoMerge: null,
      comments: [],
    };
    repo.pulls.push(pull);
    const rendered = await render(repo, pull);
    return { status: 201, body: rendered, headers: { location: `${urls.api}${request.path}/${String(pull.number)}` } };
  });

  handlers.set('pulls/get', async (request) => {
    const found = pullOf(request);
    if (found === undefined) return NOT_FOUND;
    return { status: 200, body: await render(found.repo, found.pull) };
  });

  handlers.set('pulls/update', async (request) => {
    const found = pullOf(request);
    if (found === undefined) return NOT_FOUND;
    const { repo, pull } = found;
    const body = asRecord(request.body);
    const title = stringField(body, 'title');
    const text = stringField(body, 'body');
    const nextState = stringField(body, 'state');
    const base = stringField(body, 'base');
    if (base !== undefined && (await repo.git.branchHead(base)) === undefined) {
      return validationFailed([{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
    }
    if (nextState === 'open' && pull.state === 'closed') {
      if (pull.merged) return validationFailed([{ resource: 'PullRequest', field: 'state', code: 'invalid' }]);
      if (
        repo.pulls.some(
          (other) => other.state === 'open' && other.headRef === pull.headRef && other.baseRef === pull.baseRef,
        )
      ) {
        return validationFailed([
          {
            resource: 'PullRequest',
            code: 'custom',
            message: `A pull request already exists for ${repo.owner}:${pull.headRef}.`,
          },
        ]);
      }
    }
    if (title !== undefined) pull.title = title;
    if (text !== undefined) pull.body = emptyToNull(text);
    if (base !== undefined) pull.baseRef = base;
    if (nextState === 'closed' && pull.state === 'open') await closeRecord(state, repo, pull);
    if (nextState === 'open' && pull.state === 'closed') {
      pull.state = 'open';
      pull.closedAt = null;
    }
    pull.updatedAt = state.now();
    return { status: 200, body: await render(repo, pull) };
  });

  handlers.set('pulls/list-commits', async (request) => {
    const found = pullOf(request);
    if (found === undefined) return NOT_FOUND;
    const { repo, pull } = found;
    const exclude = pull.state === 'open' ? await repo.git.branchHead(pull.baseRef) : pull.baseSha;
    const commits = (await repo.git.commitsBetween(exclude, await headSha(repo, pull))).slice(0, MAX_PR_COMMITS);
    const page = paginate(commits, request, urls.api);
    return { status: 200, body: page.items.map((commit) => renderCommit(urls, repo, commit)), headers: page.headers };
  });

  // Pull requests are issues to the label API; the emulator has no other issues.
  handlers.set('issues/add-labels', (request) => {
    const repo = repositoryOf(request);
    const number = Number(request.pathParams.issue_number);
    const pull = repo?.pulls.find((candidate) => candidate.number === number);
    if (repo === undefined || pull === undefined) {
      return Promise.resolve({ status: 404, body: errorBody(404, 'Not Found', LABELS_DOCS) });
    }
    const body = request.body;
    const items = Array.isArray(body) ? body : asRecord(body).labels;
    const names = (Array.isArray(items) ? items : []).flatMap((item: unknown) => {
      if (typeof item === 'string') return [item];
      const name = asRecord(item).name;
      return typeof name === 'string' ? [name] : [];
    });
    if (names.length === 0) {
      return Promise.resolve(validationFailed([{ resource: 'Label', field: 'labels', code: 'missing_field' }]));
    }
    for (const name of names) {
      if (!repo.labels.has(name)) repo.labels.set(name, state.nextId());
      if (!pull.labels.includes(name)) pull.labels.push(name);
    }
    pull.updatedAt = state.now();
    return Promise.resolve({
      status: 200,
      body: pull.labels.map((name) => renderLabel(urls, repo, name, repo.labels.get(name) ?? 0)),
    });
  });

  // A pull request's conversation is its issue's: comments go through the issues API.
  handlers.set('issues/create-comment', (request) => {
    const repo = repositoryOf(request);
    const number = Number(request.pathParams.issue_number);
    const pull = repo?.pulls.find((candidate) => candidate.number === number);
    if (repo === undefined || pull === undefined) {
      return Promise.resolve({ status: 404, body: errorBody(404, 'Not Found', COMMENTS_DOCS) });
    }
    const text = stringField(asRecord(request.body), 'body') ?? '';
    if (text === '') {
      return Promise.resolve(validationFailed([{ resource: 'IssueComment', field: 'body', code: 'missing_field' }]));
    }
    const comment = { id: state.nextId(), body: text, author: request.login, createdAt: state.now() };
    pull.comments.push(comment);
    pull.updatedAt = comment.createdAt;
    const rendered = renderIssueComment(urls, repo, pull.number, comment);
    return Promise.resolve({ status: 201, body: rendered, headers: { location: String(rendered.url) } });
  });

  return handlers;
}

/** Closes an open PR without merging: the head is frozen where the branch is now. */
export async function closeRecord(
  state: EmulatorState,
  repo: RepositoryRecord,
  pull: PullRequestRecord,
): Promise<void> {
  pull.headSha = (await repo.git.branchHead(pull.headRef)) ?? pull.headSha;
  pull.baseSha = (await repo.git.branchHead(pull.baseRef)) ?? pull.baseSha;
  pull.state = 'closed';
  pull.closedAt = state.now();
  pull.updatedAt = pull.closedAt;
}

/** `per_page` (≤ 100, default 30) and `page`, with a Link header as GitHub sends it. */
function paginate<T>(
  items: readonly T[],
  request: RestRequest,
  apiRoot: string,
): { items: T[]; headers: Record<string, string> } {
  const perPage = Math.min(Math.max(Number(request.query.get('per_page') ?? 30), 1), 100);
  const page = Math.max(Number(request.query.get('page') ?? 1), 1);
  const last = Math.max(Math.ceil(items.length / perPage), 1);
  const link = (target: number): string => {
    const query = new URLSearchParams(request.query);
    query.set('page', String(target));
    return `${apiRoot}${request.path}?${query.toString()}`;
  };
  const links: string[] = [];
  if (page < last) links.push(`<${link(page + 1)}>; rel="next"`, `<${link(last)}>; rel="last"`);
  if (page > 1) links.push(`<${link(1)}>; rel="first"`, `<${link(page - 1)}>; rel="prev"`);
  return {
    items: items.slice((page - 1) * perPage, page * perPage),
    headers: links.length === 0 ? {} : { link: links.join(', ') },
  };
}

function emptyToNull(text: string | undefined): string | null {
  return text === undefined || text === '' ? null : text;
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function stringField(record: Record<string, unknown>, key: string): string | undefined {
  const value = record[key];
  return typeof value === 'string' ? value : undefined;
}
