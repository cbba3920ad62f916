// A local stand-in for github.com on 127.0.0.1: the REST operations nudger uses (held to GitHub's
// official OpenAPI description, see openapi-contract.ts), the GraphQL draft mutations (validated
// against GitHub's published schema) and git smart HTTP over real bare repositories. Tests drive
// the human side (merge, close, edit) through the returned handle and assert afterwards that
// `contractViolations` is empty: a violation means either the client sent something GitHub would
// reject or the emulator answered something GitHub would not.
import { observedQueue } from '../observed-queue.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRepositoryUrl, type RepositoryRef } from '../../../adapters/forges/repository-url.ts';
import { EmulatedApps, type Principal } from './app-api.ts';
import { BareRepository, serveGitHttpInOrder } from './git-backend.ts';
import { runGraphql } from './graphql-api.ts';
import { gitHubContract, type MatchedOperation } from './openapi-contract.ts';
import type { EmulatorUrls } from './render.ts';
import { closeRecord, errorBody, restHandlers, type RestResponse } from './rest-api.ts';
import {
  EmulatorState,
  NEW_REPOSITORY_SETTINGS,
  nodeId,
  type PullRequestRecord,
  type RepositoryRecord,
  type RepositorySettings,
} from './state.ts';

export interface GitHubEmulatorOptions {
  /** The one token the emulator accepts, for the API and for git. */
  readonly token: string;
  /** Where bare repositories live; a temp directory (removed by close()) when omitted. */
  readonly projectRoot?: string;
  /** The login the token belongs to; the author of the PRs it opens. Default `nudger-bot`. */
  readonly login?: string;
  /** Milliseconds since the epoch for App JWTs and installation token expiry; default Date.now. */
  readonly clock?: () => number;
  /**
   * Called after every API request and human action, in the same one-at-a-time order, before the
   * next one starts: the sandbox turns what changed into webhook-like events (docs/decisions.md N37).
   */
  readonly onChange?: () => Promise<void>;
}

export interface RecordedRequest {
  readonly method: string;
  /** Path and query as received. */
  readonly path: string;
  /** The OpenAPI operationId, `graphql:<fields>` or `git`; undefined for unknown REST routes. */
  readonly operationId: string | undefined;
  readonly status: number;
}

/** A snapshot of one PR for assertions. */
export interface EmulatedPullRequest {
  readonly number: number;
  readonly nodeId: string;
  readonly title: string;
  readonly body: string | null;
  readonly draft: boolean;
  readonly state: 'open' | 'closed';
  readonly merged: boolean;
  readonly mergedAt: string | null;
  readonly headRef: string;
  readonly headSha: string;
  readonly baseRef: string;
  /** Once merged, the commit the merge left at the base's tip. */
  readonly mergeCommitSha: string | null;
  readonly author: string;
  readonly labels: readonly string[];
  readonly autoMerge: { readonly method: 'MERGE' | 'SQUASH' | 'REBASE'; readonly enabledBy: string } | null;
  /** The bodies of its comments, in the order added. */
  readonly comments: readonly string[];
}

export interface GitHubEmulator {
  /** REST root, GHES-style: `http://127.0.0.1:<port>/api/v3`. */
  readonly apiUrl: string;
  readonly graphqlUrl: string;
  /** Where repositories are cloned: `${gitBaseUrl}/<owner>/<name>.git`. */
  readonly gitBaseUrl: string;
  readonly projectRoot: string;
  readonly requests: RecordedRequest[];
  readonly contractViolations: string[];
  /** GitHub Apps: register one with its public key, install it, count the tokens minted (app-api.ts). */
  readonly apps: EmulatedApps;
  /**
   * A repository whose `defaultBranch` holds `files` in one commit; its ref has the emulator as
   * host. `settings` change GitHub's defaults for a new repository (NEW_REPOSITORY_SETTINGS).
   */
  createRepository(
    owner: string,
    name: string,
    files: Readonly<Record<string, string>>,
    defaultBranch?: string,
    settings?: Partial<RepositorySettings>,
  ): Promise<RepositoryRef>;
  branchHead(owner: string, name: string, branch: string): Promise<string | undefined>;
  pullRequests(owner: string, name: string): EmulatedPullRequest[];
  /** What the merge button does: fast-forward when possible, else a merge commit on the base. */
  mergePullRequest(owner: string, name: string, number: number): Promise<void>;
  closePullRequest(owner: string, name: string, number: number): Promise<void>;
  editPullRequestBody(owner: string, name: string, number: number, body: string): Promise<void>;
  /** The next `count` API requests are refused as rate limited, with `retry-after: <seconds>`. */
  rateLimitNext(count: number, retryAfterSeconds: number, status?: 403 | 429): void;
  /**
   * Every REST and git request naming `owner/name` is answered `failure.status`, with a message
   * that quotes the request's Authorization header, as a misbehaving proxy might: what a client
   * does with an echoed credential. The App endpoints (the installation lookup, whose header is
   * the App's JWT) fail too only with `appEndpoints`. `undefined` heals the repository.
   */
  failRepository(owner: string, name: string, failure: RepositoryFailure | undefined): void;
  close(): Promise<void>;
}

export interface RepositoryFailure {
  readonly status: 401 | 500;
  readonly appEndpoints?: boolean;
}

const API_PREFIX = '/api/v3';
const GRAPHQL_PATH = '/api/graphql';

export async function startGitHubEmulator(options: GitHubEmulatorOptions): Promise<GitHubEmulator> {
  const ownsRoot = options.projectRoot === undefined;
  const projectRoot = options.projectRoot ?? (await mkdtemp(join(tmpdir(), 'nudger-github-emulator-')));
  const login = options.login ?? 'nudger-bot';
  const contract = gitHubContract();
  const state = new EmulatorState();
  const apps = new EmulatedApps(state, options.clock ?? Date.now);
  const requests: RecordedRequest[] = [];
  const contractViolations: string[] = [];
  let rateLimited: { remaining: number; retryAfterSeconds: number; status: 403 | 429 } | undefined;
  const failing = new Map<string, RepositoryFailure>();
  const failureOf = (owner: string | undefined, name: string | undefined, app: boolean): number | undefined => {
    const failure = failing.get(`${owner ?? ''}/${name ?? ''}`.toLowerCase());
    return failure === undefined || (app && failure.appEndpoints !== true) ? undefined : failure.status;
  };
  const echoed = (request: IncomingMessage): string =>
    `Upstream refused the request (Authorization: ${request.headers.authorization ?? 'none'})`;
  // API requests run one at a time, so a check-then-create (one open PR per head) cannot race.
  const serialized = observedQueue(options.onChange);

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    let operationId: string | undefined;
    response.on('finish', () => {
      requests.push({
        method: request.method ?? 'GET',
        path: url.pathname + url.search,
        operationId,
        status: response.statusCode,
      });
    });
    const label = (id: string | undefined): void => {
      operationId = id;
    };
    const handle = async (): Promise<void> => {
      if (url.pathname === GRAPHQL_PATH) {
        await serialized(() => serveGraphql(request, response, label));
      } else if (url.pathname === API_PREFIX || url.pathname.startsWith(`${API_PREFIX}/`)) {
        await serialized(() => serveRest(request, response, url, label));
      } else {
        label('git');
        const [owner = '', name = ''] = url.pathname.split('/').slice(1, 3);
        const failed = failureOf(owner, name.replace(/\.git$/, ''), false);
        if (failed !== undefined) {
          response.writeHead(failed, { 'content-type': 'text/plain' });
          response.end(`${echoed(request)}\n`);
          return;
        }
        if (!apps.gitAuthorized(request.headers.authorization, options.token, owner, name.replace(/\.git$/, ''))) {
          response.writeHead(401, { 'www-authenticate': 'Basic realm="GitHub"', 'content-type': 'text/plain' });
          response.end('Invalid username or token. Password authentication is not supported for Git operations.\n');
          return;
        }
        await serveGitHttpInOrder(projectRoot, request, response, url, serialized);
      }
    };
    handle().catch((error: unknown) => {
      contractViolations.push(`emulator failure on ${request.method ?? ''} ${url.pathname}: ${String(error)}`);
      if (!response.headersSent) sendJson(response, 500, errorBody(500, 'Server Error'));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const web = `http://127.0.0.1:${String(port)}`;
  const urls: EmulatorUrls = { api: `${web}${API_PREFIX}`, web };
  const handlers = restHandlers(state, urls);
  const appHandlers = apps.handlers(urls);

  async function serveRest(
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
    label: (id: string | undefined) => void,
  ): Promise<void> {
    const raw = await readBody(request);
    const path = url.pathname.slice(API_PREFIX.length) || '/';
    const operation = contract.match(request.method ?? 'GET', path);
    label(operation?.operationId);
    const reply = (result: RestResponse): void => {
      if (operation !== undefined) {
        for (const problem of contract.checkResponse(operation, result.status, result.body)) {
          contractViolations.push(`emulator response: ${problem}`);
        }
      }
      sendJson(response, result.status, result.body, result.headers);
    };
    const failed =
      operation === undefined
        ? undefined
        : failureOf(operation.pathParams.owner, operation.pathParams.repo, operation.operationId.startsWith('apps/'));
    if (failed !== undefined) {
      reply({ status: failed, body: errorBody(failed, echoed(request)) });
      return;
    }
    const auth = apps.authenticate(request.headers.authorization, options.token, login);
    if (!auth.ok) {
      reply({ status: 401, body: errorBody(401, auth.message) });
      return;
    }
    if (operation === undefined) {
      contractViolations.push(`${request.method ?? ''} ${path}: no such operation in GitHub's REST description`);
      reply({ status: 404, body: errorBody(404, 'Not Found') });
      return;
    }
    if (rateLimited !== undefined && rateLimited.remaining > 0) {
      rateLimited.remaining--;
      reply({
        status: rateLimited.status,
        body: errorBody(
          rateLimited.status,
          'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.',
        ),
        headers: { 'retry-after': String(rateLimited.retryAfterSeconds) },
      });
      return;
    }
    let body: unknown;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw);
      } catch {
        contractViolations.push(`${operation.operationId}: request body is not JSON`);
        reply({ status: 400, body: errorBody(400, 'Problems parsing JSON') });
        return;
      }
    }
    const problems = [
      ...contract.checkParameters(operation, url.searchParams),
      ...contract.checkRequestBody(operation, body),
    ];
    if (problems.length > 0) {
      contractViolations.push(...problems.map((problem) => `client request: ${problem}`));
      reply({ status: 422, body: errorBody(422, `Invalid request.\n\n${problems.join('\n')}`) });
      return;
    }
    const refused = apps.authorizeRest(
      auth.principal,
      operation.operationId,
      operation.pathParams.owner,
      operation.pathParams.repo,
    );
    if (refused !== undefined) {
      reply(refused);
      return;
    }
    const appHandler = appHandlers.get(operation.operationId);
    if (appHandler !== undefined) {
      reply(await appHandler({ pathParams: operation.pathParams, body, principal: auth.principal }));
      return;
    }
    const handler = handlers.get(operation.operationId);
    if (handler === undefined) {
      contractViolations.push(`${operation.operationId}: documented but not emulated`);
      reply({ status: 404, body: errorBody(404, 'Not Found') });
      return;
    }
    reply(await handler(restRequest(operation, url, path, body, loginOf(auth.principal))));
  }

  async function serveGraphql(
    request: IncomingMessage,
    response: ServerResponse,
    label: (id: string | undefined) => void,
  ): Promise<void> {
    const raw = await readBody(request);
    label('graphql');
    const auth = apps.authenticate(request.headers.authorization, options.token, login);
    if (!auth.ok || auth.principal.kind === 'app') {
      const message = auth.ok ? 'Resource not accessible by integration' : auth.message;
      sendJson(response, auth.ok ? 403 : 401, { message, documentation_url: 'https://docs.github.com/graphql' });
      return;
    }
    if (request.method !== 'POST') {
      sendJson(response, 404, errorBody(404, 'Not Found'));
      return;
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(raw);
    } catch {
      contractViolations.push('GraphQL: request body is not JSON');
      sendJson(response, 400, { message: 'Problems parsing JSON' });
      return;
    }
    const outcome = await runGraphql(apps.scopedState(state, auth.principal), web, parsed, loginOf(auth.principal));
    label(`graphql:${outcome.fields.join(',')}`);
    contractViolations.push(...outcome.violations);
    sendJson(response, outcome.status, outcome.body);
  }

  const requireRepository = (owner: string, name: string): RepositoryRecord => {
    const repository = state.repository(owner, name);
    if (repository === undefined) throw new Error(`emulator: no repository ${owner}/${name}`);
    return repository;
  };
  const requirePull = (
    owner: string,
    name: string,
    number: number,
  ): { repo: RepositoryRecord; pull: PullRequestRecord } => {
    const repo = requireRepository(owner, name);
    const pull = repo.pulls.find((candidate) => candidate.number === number);
    if (pull === undefined) throw new Error(`emulator: no pull request ${owner}/${name}#${String(number)}`);
    return { repo, pull };
  };

  return {
    apiUrl: urls.api,
    graphqlUrl: `${web}${GRAPHQL_PATH}`,
    gitBaseUrl: web,
    projectRoot,
    requests,
    contractViolations,
    apps,
    async createRepository(owner, name, files, defaultBranch = 'main', settings = {}) {
      if (state.repository(owner, name) !== undefined) throw new Error(`emulator: ${owner}/${name} exists`);
      const git = await BareRepository.create(join(projectRoot, owner, `${name}.git`), files, defaultBranch);
      const id = state.nextId();
      state.addRepository({
        owner,
        name,
        id,
        nodeId: nodeId('R', id),
        defaultBranch,
        git,
        pulls: [],
        createdAt: state.now(),
        labels: new Map(),
        settings: { ...NEW_REPOSITORY_SETTINGS, ...settings },
      });
      return parseRepositoryUrl(`${web}/${owner}/${name}`);
    },
    branchHead: (owner, name, branch) => requireRepository(owner, name).git.branchHead(branch),
    pullRequests: (owner, name) => {
      const repo = requireRepository(owner, name);
      return repo.pulls.map((pull) => ({
        number: pull.number,
        nodeId: pull.nodeId,
        title: pull.title,
        body: pull.body,
        draft: pull.draft,
        state: pull.state,
        merged: pull.merged,
        mergedAt: pull.mergedAt,
        headRef: pull.headRef,
        // An open PR's head is its branch now, as the API answers it: a push tells the record nothing.
        headSha: pull.state === 'open' ? (repo.git.branchHeadNow(pull.headRef) ?? pull.headSha) : pull.headSha,
        baseRef: pull.baseRef,
        mergeCommitSha: pull.mergeCommitSha,
        author: pull.author,
        labels: [...pull.labels],
        autoMerge: pull.autoMerge,
        comments: pull.comments.map((comment) => comment.body),
      }));
    },
    mergePullRequest: (owner, name, number) =>
      serialized(async () => {
        const { repo, pull } = requirePull(owner, name, number);
        if (pull.state !== 'open') throw new Error(`emulator: #${String(number)} is not open`);
        const head = await repo.git.branchHead(pull.headRef);
        const base = await repo.git.branchHead(pull.baseRef);
        if (head === undefined || base === undefined) throw new Error('emulator: head or base branch is gone');
        const merged = await repo.git.merge(
          pull.baseRef,
          head,
          `Merge pull request #${String(number)} from ${owner}/${pull.headRef}`,
        );
        const now = state.now();
        Object.assign(pull, {
          headSha: head,
          baseSha: base,
          state: 'closed',
          merged: true,
          mergedAt: now,
          closedAt: now,
          updatedAt: now,
          mergeCommitSha: merged,
        });
      }),
    closePullRequest: (owner, name, number) =>
      serialized(async () => {
        const { repo, pull } = requirePull(owner, name, number);
        if (pull.state === 'open') await closeRecord(state, repo, pull);
      }),
    editPullRequestBody: (owner, name, number, body) =>
      serialized(() => {
        const { pull } = requirePull(owner, name, number);
        pull.body = body;
        pull.updatedAt = state.now();
        return Promise.resolve();
      }),
    rateLimitNext(count, retryAfterSeconds, status = 429) {
      rateLimited = { remaining: count, retryAfterSeconds, status };
    },
    failRepository(owner, name, failure) {
      const key = `${owner}/${name}`.toLowerCase();
      if (failure === undefined) failing.delete(key);
      else failing.set(key, failure);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
      if (ownsRoot) await rm(projectRoot, { recursive: true, force: true });
    },
  };
}

function restRequest(operation: MatchedOperation, url: URL, path: string, body: unknown, login: string) {
  return {
    operationId: operation.operationId,
    pathParams: operation.pathParams,
    query: url.searchParams,
    body,
    login,
    path,
  };
}

/** Who opens PRs and enables auto-merge: the token's user, or an installation's `<slug>[bot]`. */
function loginOf(principal: Principal): string {
  return principal.kind === 'app' ? `${principal.app.slug}[bot]` : principal.login;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Readonly<Record<string, string>> = {},
): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'x-github-media-type': 'github.v3; format=json',
    ...headers,
  });
  response.end(text);
}
