// Emulator state as GitHub's JSON: `pull-request`, `repository`, `simple-user` and `commit` with
// every field their OpenAPI schemas require. Values the controller never reads (counts, avatar
// URLs, repository settings) are plausible constants; the contract check only needs them present
// and of the right type.
import type { GitCommitInfo } from './git-backend.ts';
import type { IssueCommentRecord, PullRequestRecord, RepositoryRecord } from './state.ts';

export interface EmulatorUrls {
  /** REST root, e.g. `http://127.0.0.1:1234/api/v3`. */
  readonly api: string;
  /** Web pages and git, e.g. `http://127.0.0.1:1234`. */
  readonly web: string;
}

type JsonObject = Record<string, unknown>;

export function renderUser(urls: EmulatorUrls, login: string): JsonObject {
  let id = 7;
  for (let index = 0; index < login.length; index++) id = (id * 31 + login.charCodeAt(index)) % 1_000_000;
  // GitHub escapes the brackets of an App's bot login (`x[bot]`) in its URLs: `x%5Bbot%5D`.
  const path = encodeURIComponent(login);
  const api = `${urls.api}/users/${path}`;
  return {
    login,
    id,
    node_id: `U_${Buffer.from(login).toString('base64url')}`,
    avatar_url: `${urls.web}/avatars/${path}`,
    gravatar_id: '',
    url: api,
    html_url: `${urls.web}/${path}`,
    followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`,
    gists_url: `${api}/gists{/gist_id}`,
    starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`,
    organizations_url: `${api}/orgs`,
    repos_url: `${api}/repos`,
    events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`,
    type: 'User',
    site_admin: false,
    user_view_type: 'public',
  };
}

export function renderRepository(urls: EmulatorUrls, repo: RepositoryRecord): JsonObject {
  const fullName = `${repo.owner}/${repo.name}`;
  const api = `${urls.api}/repos/${fullName}`;
  const templated: Record<string, string> = {
    archive_url: '{archive_format}{/ref}',
    assignees_url: 'assignees{/user}',
    blobs_url: 'git/blobs{/sha}',
    branches_url: 'branches{/branch}',
    collaborators_url: 'collaborators{/collaborator}',
    comments_url: 'comments{/number}',
    commits_url: 'commits{/sha}',
    compare_url: 'compare/{base}...{head}',
    contents_url: 'contents/{+path}',
    contributors_url: 'contributors',
    deployments_url: 'deployments',
    downloads_url: 'downloads',
    events_url: 'events',
    forks_url: 'forks',
    git_commits_url: 'git/commits{/sha}',
    git_refs_url: 'git/refs{/sha}',
    git_tags_url: 'git/tags{/sha}',
    hooks_url: 'hooks',
    issue_comment_url: 'issues/comments{/number}',
    issue_events_url: 'issues/events{/number}',
    issues_url: 'issues{/number}',
    keys_url: 'keys{/key_id}',
    labels_url: 'labels{/name}',
    languages_url: 'languages',
    merges_url: 'merges',
    milestones_url: 'milestones{/number}',
    notifications_url: 'notifications{?since,all,participating}',
    pulls_url: 'pulls{/number}',
    releases_url: 'releases{/id}',
    stargazers_url: 'stargazers',
    statuses_url: 'statuses/{sha}',
    subscribers_url: 'subscribers',
    subscription_url: 'subscription',
    tags_url: 'tags',
    teams_url: 'teams',
    trees_url: 'git/trees{/sha}',
  };
  const links = Object.fromEntries(Object.entries(templated).map(([field, suffix]) => [field, `${api}/${suffix}`]));
  const host = new URL(urls.web).host;
  return {
    id: repo.id,
    node_id: repo.nodeId,
    name: repo.name,
    full_name: fullName,
    owner: renderUser(urls, repo.owner),
    private: false,
    html_url: `${urls.web}/${fullName}`,
    description: null,
    fork: false,
    url: api,
    ...links,
    git_url: `git://${host}/${fullName}.git`,
    ssh_url: `git@${host}:${fullName}.git`,
    clone_url: `${urls.web}/${fullName}.git`,
    svn_url: `${urls.web}/${fullName}`,
    mirror_url: null,
    homepage: null,
    language: null,
    forks: 0,
    forks_count: 0,
    stargazers_count: 0,
    watchers: 0,
    watchers_count: 0,
    size: 0,
    default_branch: repo.defaultBranch,
    open_issues: repo.pulls.filter((pull) => pull.state === 'open').length,
    open_issues_count: repo.pulls.filter((pull) => pull.state === 'open').length,
    has_issues: true,
    has_projects: false,
    has_wiki: false,
    has_pages: false,
    has_downloads: false,
    archived: false,
    disabled: false,
    license: null,
    pushed_at: repo.createdAt,
    created_at: repo.createdAt,
    updated_at: repo.createdAt,
    visibility: 'public',
  };
}

/** The full `pull-request` object (also a valid `pull-request-simple` for list responses). */
export function renderPullRequest(
  urls: EmulatorUrls,
  repo: RepositoryRecord,
  pull: PullRequestRecord,
  headSha: string,
): JsonObject {
  const fullName = `${repo.owner}/${repo.name}`;
  const api = `${urls.api}/repos/${fullName}`;
  const self = `${api}/pulls/${String(pull.number)}`;
  const html = `${urls.web}/${fullName}/pull/${String(pull.number)}`;
  const issue = `${api}/issues/${String(pull.number)}`;
  const repository = renderRepository(urls, repo);
  const owner = renderUser(urls, repo.owner);
  return {
    url: self,
    id: pull.id,
    node_id: pull.nodeId,
    html_url: html,
    diff_url: `${html}.diff`,
    patch_url: `${html}.patch`,
    issue_url: issue,
    commits_url: `${self}/commits`,
    review_comments_url: `${self}/comments`,
    review_comment_url: `${api}/pulls/comments{/number}`,
    comments_url: `${issue}/comments`,
    statuses_url: `${api}/statuses/${headSha}`,
    number: pull.number,
    state: pull.state,
    locked: false,
    title: pull.title,
    user: renderUser(urls, pull.author),
    body: pull.body,
    labels: pull.labels.map((name) => renderLabel(urls, repo, name, repo.labels.get(name) ?? 0)),
    milestone: null,
    active_lock_reason: null,
    created_at: pull.createdAt,
    updated_at: pull.updatedAt,
    closed_at: pull.closedAt,
    merged_at: pull.mergedAt,
    merge_commit_sha: pull.mergeCommitSha,
    assignee: null,
    assignees: [],
    requested_reviewers: [],
    requested_teams: [],
    head: { label: `${repo.owner}:${pull.headRef}`, ref: pull.headRef, sha: headSha, user: owner, repo: repository },
    base: {
      label: `${repo.owner}:${pull.baseRef}`,
      ref: pull.baseRef,
      sha: pull.baseSha,
      user: owner,
      repo: repository,
    },
    _links: {
      self: { href: self },
      html: { href: html },
      issue: { href: issue },
      comments: { href: `${issue}/comments` },
      review_comments: { href: `${self}/comments` },
      review_comment: { href: `${api}/pulls/comments{/number}` },
      commits: { href: `${self}/commits` },
      statuses: { href: `${api}/statuses/${headSha}` },
    },
    author_association: pull.author === repo.owner ? 'OWNER' : 'CONTRIBUTOR',
    auto_merge:
      pull.autoMerge === null
        ? null
        : {
            enabled_by: renderUser(urls, pull.autoMerge.enabledBy),
            merge_method: pull.autoMerge.method.toLowerCase(),
            commit_title: `${pull.title} (#${String(pull.number)})`,
            commit_message: '',
          },
    draft: pull.draft,
    merged: pull.merged,
    mergeable: pull.state === 'open' ? true : null,
    rebaseable: pull.state === 'open' ? true : null,
    mergeable_state: pull.state === 'open' ? (pull.draft ? 'draft' : 'clean') : 'unknown',
    merged_by: pull.merged ? renderUser(urls, repo.owner) : null,
    comments: 0,
    review_comments: 0,
    maintainer_can_modify: false,
    commits: 1,
    additions: 1,
    deletions: 1,
    changed_files: 1,
  };
}

/**
 * A `label`: GitHub gives a label it creates on first use the colour ededed and no description.
 * The description is '' rather than null: `pull-request-simple` (pulls/list) documents it as a
 * string, where `label` and `pull-request` allow null.
 */
/** GitHub's `issue-comment` for a comment on pull request `number` (pull requests are issues). */
export function renderIssueComment(
  urls: EmulatorUrls,
  repo: RepositoryRecord,
  number: number,
  comment: IssueCommentRecord,
): JsonObject {
  const issue = `${urls.api}/repos/${repo.owner}/${repo.name}/issues/${String(number)}`;
  return {
    id: comment.id,
    node_id: `IC_${Buffer.from(`comment:${String(comment.id)}`).toString('base64url')}`,
    url: `${urls.api}/repos/${repo.owner}/${repo.name}/issues/comments/${String(comment.id)}`,
    html_url: `${urls.web}/${repo.owner}/${repo.name}/pull/${String(number)}#issuecomment-${String(comment.id)}`,
    body: comment.body,
    user: renderUser(urls, comment.author),
    created_at: comment.createdAt,
    updated_at: comment.createdAt,
    issue_url: issue,
    author_association: comment.author === repo.owner ? 'OWNER' : 'NONE',
  };
}

export function renderLabel(urls: EmulatorUrls, repo: RepositoryRecord, name: string, id: number): JsonObject {
  return {
    id,
    node_id: `LA_${Buffer.from(`label:${String(id)}`).toString('base64url')}`,
    url: `${urls.api}/repos/${repo.owner}/${repo.name}/labels/${encodeURIComponent(name)}`,
    name,
    description: '',
    color: 'ededed',
    default: false,
  };
}

export function renderCommit(urls: EmulatorUrls, repo: RepositoryRecord, commit: GitCommitInfo): JsonObject {
  const fullName = `${repo.owner}/${repo.name}`;
  const api = `${urls.api}/repos/${fullName}`;
  return {
    url: `${api}/commits/${commit.sha}`,
    sha: commit.sha,
    node_id: `C_${Buffer.from(commit.sha).toString('base64url')}`,
    html_url: `${urls.web}/${fullName}/commit/${commit.sha}`,
    comments_url: `${api}/commits/${commit.sha}/comments`,
    commit: {
      url: `${api}/git/commits/${commit.sha}`,
      author: { name: commit.authorName, email: commit.authorEmail, date: commit.authorDate },
      committer: { name: commit.committerName, email: commit.committerEmail, date: commit.committerDate },
      message: commit.message,
      comment_count: 0,
      tree: { sha: commit.tree, url: `${api}/git/trees/${commit.tree}` },
      verification: { verified: false, reason: 'unsigned', payload: null, signature: null, verified_at: null },
    },
    // GitHub links commits to accounts by email; the emulator has no accounts to link.
    author: null,
    committer: null,
    parents: commit.parents.map((sha) => ({
      sha,
      url: `${api}/commits/${sha}`,
      html_url: `${urls.web}/${fullName}/commit/${sha}`,
    })),
  };
}
