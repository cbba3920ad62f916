// The fields of GitHub's answers that the provider reads, as schemas checked at the boundary, and
// their mapping to the forge-neutral types. Only these fields are checked: GitHub adds fields
// often and they must not break nudger; a missing or mistyped one that nudger reads yields a
// ForgeError naming it rather than a TypeError later.
import { Ajv, type ValidateFunction } from 'ajv';
import Type, { type Static, type TSchema } from 'typebox';
import type { PullRequest, PullRequestCommit } from '../types.ts';

const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

/** Shared by `pull-request` (get/create/update) and `pull-request-simple` (list). */
const PullRequestResponse = Type.Object({
  number: Type.Integer({ minimum: 1 }),
  node_id: Type.String({ minLength: 1 }),
  html_url: Type.String({ minLength: 1 }),
  state: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
  title: Type.String(),
  body: Nullable(Type.String()),
  draft: Type.Optional(Type.Boolean()),
  merged: Type.Optional(Type.Boolean()),
  merged_at: Nullable(Type.String()),
  /** The commit the merge left on the base (pre-merge nudges find its push build by it, D11). */
  merge_commit_sha: Type.Optional(Nullable(Type.String())),
  created_at: Type.String(),
  head: Type.Object({ ref: Type.String(), sha: Type.String({ minLength: 1 }) }),
  base: Type.Object({ ref: Type.String() }),
});
export type PullRequestResponse = Static<typeof PullRequestResponse>;

const GitUser = Nullable(Type.Object({ name: Type.Optional(Type.String()), email: Type.Optional(Type.String()) }));

const CommitResponse = Type.Object({
  sha: Type.String({ minLength: 1 }),
  commit: Type.Object({ message: Type.String(), author: GitUser, committer: Type.Optional(GitUser) }),
});

const LabelListResponse = Type.Array(Type.Object({ name: Type.String() }));

const RepositoryMergeSettingsResponse = Type.Object({
  repository: Type.Object({
    autoMergeAllowed: Type.Boolean(),
    rebaseMergeAllowed: Type.Boolean(),
    squashMergeAllowed: Type.Boolean(),
    mergeCommitAllowed: Type.Boolean(),
  }),
});
export type RepositoryMergeSettings = Static<typeof RepositoryMergeSettingsResponse>['repository'];

const AutoMergeMutationResponse = Type.Object({
  enablePullRequestAutoMerge: Type.Object({
    pullRequest: Type.Object({ autoMergeRequest: Nullable(Type.Object({ mergeMethod: Type.String() })) }),
  }),
});

const DraftMutationResponse = (field: string) =>
  Type.Object({
    [field]: Type.Object({ pullRequest: Type.Object({ isDraft: Type.Boolean() }) }),
  });

let ajv: Ajv | undefined;
const compiled = new Map<string, ValidateFunction>();

function validator(key: string, schema: TSchema): ValidateFunction {
  const existing = compiled.get(key);
  if (existing !== undefined) return existing;
  ajv ??= new Ajv({ allErrors: false, strict: true, logger: false });
  const validate = ajv.compile(schema);
  compiled.set(key, validate);
  return validate;
}

/** Thrown by the parse functions; the provider turns it into a ForgeError. */
export class ResponseShapeError extends Error {
  override readonly name = 'ResponseShapeError';
  /** `pull request`, `commit`, … */
  readonly what: string;
  /** e.g. `head.sha must be string`. */
  readonly problem: string;

  constructor(what: string, problem: string) {
    super(`unexpected ${what}: ${problem}`);
    this.what = what;
    this.problem = problem;
  }
}

/** `value` as `schema` says, or a ResponseShapeError naming the first field that is not (shared with gitlab/). */
export function checkShape<S extends TSchema>(
  key: string,
  schema: S,
  what: string,
  value: unknown,
  prefix = '',
): Static<S> {
  const validate = validator(key, schema);
  if (validate(value)) return value as Static<S>;
  const error = validate.errors?.[0];
  const inner = (error?.instancePath ?? '').replace(/^\//, '').replace(/\//g, '.');
  const field = [prefix, inner].filter((part) => part.length > 0).join('.');
  if (error?.keyword === 'required') {
    const missing = String((error.params as { missingProperty?: unknown }).missingProperty);
    throw new ResponseShapeError(what, `${field.length > 0 ? `${field}.` : ''}${missing} is missing`);
  }
  throw new ResponseShapeError(what, `${field.length > 0 ? field : 'the response'} ${error?.message ?? 'is invalid'}`);
}

export function parsePullRequest(value: unknown): PullRequestResponse {
  return checkShape('pull-request', PullRequestResponse, 'pull request', value);
}

export function parsePullRequestList(value: unknown): PullRequestResponse[] {
  if (!Array.isArray(value)) throw new ResponseShapeError('pull request list', 'the response must be an array');
  return value.map((item, index) =>
    checkShape('pull-request', PullRequestResponse, 'pull request list', item, `[${String(index)}]`),
  );
}

export function parseCommitList(value: unknown): PullRequestCommit[] {
  if (!Array.isArray(value)) throw new ResponseShapeError('commit list', 'the response must be an array');
  return value.map((item, index) => {
    const commit = checkShape('commit', CommitResponse, 'commit list', item, `[${String(index)}]`);
    return {
      sha: commit.sha,
      message: commit.commit.message,
      authorName: commit.commit.author?.name ?? '',
      authorEmail: commit.commit.author?.email ?? '',
      // Absent when GitHub names no committer: then only the author can be compared.
      ...(commit.commit.committer?.email === undefined ? {} : { committerEmail: commit.commit.committer.email }),
    };
  });
}

/** The names of the labels an add-labels answer lists (every label the PR carries now). */
export function parseLabelList(value: unknown): string[] {
  return checkShape('label-list', LabelListResponse, 'label list', value).map((label) => label.name);
}

/** Which merge methods, and whether auto-merge, the repository allows. */
export function parseRepositoryMergeSettings(value: unknown): RepositoryMergeSettings {
  return checkShape('query repository merge settings', RepositoryMergeSettingsResponse, 'repository settings', value)
    .repository;
}

/** Whether the PR enablePullRequestAutoMerge returned now has an auto-merge request. */
export function parseAutoMergeMutation(value: unknown): boolean {
  const parsed = checkShape(
    'mutation enablePullRequestAutoMerge',
    AutoMergeMutationResponse,
    'auto-merge result',
    value,
  );
  return parsed.enablePullRequestAutoMerge.pullRequest.autoMergeRequest !== null;
}

/** `isDraft` of the PR a draft mutation returned. */
export function parseDraftMutation(field: string, value: unknown): boolean {
  const parsed = checkShape(`mutation ${field}`, DraftMutationResponse(field), `${field} result`, value);
  const result = parsed[field];
  if (result === undefined) throw new ResponseShapeError(`${field} result`, `${field} is missing`);
  return result.pullRequest.isDraft;
}

/** GitHub says `closed` + merged; the forge vocabulary has `merged` as a state of its own. */
export function toPullRequest(response: PullRequestResponse): PullRequest {
  const merged = response.merged === true || response.merged_at !== null;
  return {
    number: response.number,
    url: response.html_url,
    state: response.state === 'open' ? 'open' : merged ? 'merged' : 'closed',
    draft: response.draft ?? false,
    title: response.title,
    body: response.body ?? '',
    headBranch: response.head.ref,
    headSha: response.head.sha,
    baseBranch: response.base.ref,
    ...(merged && typeof response.merge_commit_sha === 'string' && response.merge_commit_sha !== ''
      ? { mergeCommitSha: response.merge_commit_sha }
      : {}),
  };
}
