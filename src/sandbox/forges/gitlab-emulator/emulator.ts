// A local stand-in for a GitLab instance on 127.0.0.1: the merge-request REST operations nudger
// uses, every request and response held to GitLab's official OpenAPI description (contract.ts,
// with the hand-written additions of hand-written.ts where it is silent), and git smart HTTP over
// real bare repositories with token auth (any user name, the token as password, as GitLab takes
// `oauth2:<token>`). Tests drive the human side (merge, close, retitle) through the returned
// handle and assert afterwards that `contractViolations` is empty.
import { observedQueue } from '../observed-queue.ts';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseRepositoryUrl, type RepositoryRef } from '../../../adapters/forges/repository-url.ts';
import { BareRepository, serveGitHttpInOrder } from '../github-emulator/git-backend.ts';
import { gitLabContract } from './contract.ts';
import {
  message,
  MergeRequestApi,
  type MergeRequestRecord,
  type ProjectRecord,
  type RestAnswer,
} from './merge-requests.ts';

export interface GitLabEmulatorOptions {
  /** The one token the emulator accepts, for the API (PRIVATE-TOKEN or Bearer) and for git. */
  readonly token: string;
  /** The user the token belongs to; the author of the MRs it opens. Default `nudger-bot`. */
  readonly login?: string;
  /**
   * Called after every API request and human action, in the same one-at-a-time order, before the
   * next one starts: the sandbox turns what changed into webhook-like events (docs/decisions.md N37).
   */
  readonly onChange?: () => Promise<void>;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  /** The OpenAPI operationId or `git`; undefined for an undocumented route. */
  readonly operationId: string | undefined;
  readonly status: number;
}

/** One MR as the GitLab UI would show it. */
export interface EmulatedMergeRequest {
  readonly iid: number;
  /** The full title, `Draft: ` prefix included. */
  readonly title: string;
  readonly description: string | null;
  readonly draft: boolean;
  readonly state: 'opened' | 'closed' | 'merged';
  readonly sourceBranch: string;
  readonly targetBranch: string;
  /** The head when merged or closed; while open, the source branch's head (read it from git). */
  readonly sha: string;
  /** Once merged, the commit the merge left at the target's tip. */
  readonly mergeCommitSha: string | null;
  readonly author: string;
  readonly labels: readonly string[];
  /** Note bodies, oldest first. */
  readonly notes: readonly string[];
  readonly autoMerge: { readonly squash: boolean } | null;
}

export interface GitLabEmulator {
  /** REST root: `http://127.0.0.1:<port>/api/v4`. */
  readonly apiUrl: string;
  /** Where projects are cloned: `${gitBaseUrl}/<group>/<name>.git`. */
  readonly gitBaseUrl: string;
  /** The bare repositories: `<projectRoot>/<group>/<name>.git`. */
  readonly projectRoot: string;
  readonly requests: RecordedRequest[];
  readonly contractViolations: string[];
  createRepository(
    owner: string,
    name: string,
    files: Readonly<Record<string, string>>,
    defaultBranch?: string,
  ): Promise<RepositoryRef>;
  branchHead(owner: string, name: string, branch: string): Promise<string | undefined>;
  mergeRequests(owner: string, name: string): EmulatedMergeRequest[];
  mergeMergeRequest(owner: string, name: string, iid: number): Promise<void>;
  closeMergeRequest(owner: string, name: string, iid: number): Promise<void>;
  /** A human edits the title in the UI (e.g. removes `Draft: `). */
  retitleMergeRequest(owner: string, name: string, iid: number, title: string): Promise<void>;
  /**
   * Every API and git request on `owner/name` is answered `status` with a message quoting the
   * request's credentials, as a misbehaving proxy might; `undefined` heals the project.
   */
  failProject(owner: string, name: string, status: 401 | 500 | undefined): void;
  close(): Promise<void>;
}

const API_PREFIX = '/api/v4';
const GIT_CHALLENGE = { 'www-authenticate': 'Basic realm="GitLab"', 'content-type': 'text/plain' };

export async function startGitLabEmulator(options: GitLabEmulatorOptions): Promise<GitLabEmulator> {
  const projectRoot = await mkdtemp(join(tmpdir(), 'nudger-gitlab-emulator-'));
  const login = options.login ?? 'nudger-bot';
  const contract = gitLabContract();
  const projects = new Map<string, ProjectRecord>();
  const failing = new Map<string, 401 | 500>();
  const requests: RecordedRequest[] = [];
  const contractViolations: string[] = [];
  // API calls and the human actions run one at a time: a check-then-create cannot race.
  const serialized = observedQueue(options.onChange);
  const echoed = (request: IncomingMessage): string =>
    `Upstream refused the request (PRIVATE-TOKEN: ${String(request.headers['private-token'] ?? 'none')}, Authorization: ${request.headers.authorization ?? 'none'})`;

  const server = createServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    let operationId: string | undefined;
    const method = request.method ?? 'GET';
    const path = url.pathname + url.search;
    response.on('finish', () => requests.push({ method, path, operationId, status: response.statusCode }));
    const handle = async (): Promise<void> => {
      if (url.pathname.startsWith(`${API_PREFIX}/`)) {
        await serialized(() =>
          serveRest(request, response, url, (id) => {
            operationId = id;
          }),
        );
        return;
      }
      operationId = 'git';
      // `/<group>[/<subgroup>...]/<name>.git/...`: the project's full path.
      const failed = failing.get(/^\/(.+?)\.git(?:\/|$)/.exec(url.pathname)?.[1] ?? '');
      if (failed !== undefined) {
        response.writeHead(failed, { 'content-type': 'text/plain' }).end(`${echoed(request)}\n`);
        return;
      }
      if (gitAuthorized(request.headers.authorization, options.token))
        await serveGitHttpInOrder(projectRoot, request, response, url, serialized);
      else response.writeHead(401, GIT_CHALLENGE).end('HTTP Basic: Access denied.\n');
    };
    handle().catch((error: unknown) => {
      contractViolations.push(`emulator failure on ${method} ${url.pathname}: ${String(error)}`);
      if (!response.headersSent) sendJson(response, 500, { message: '500 Internal Server Error' });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const web = `http://127.0.0.1:${String(port)}`;
  const api = new MergeRequestApi(web);

  async function serveRest(
    request: IncomingMessage,
    response: ServerResponse,
    url: URL,
    label: (id: string | undefined) => void,
  ): Promise<void> {
    const raw = await readBody(request);
    const operation = contract.match(request.method ?? 'GET', url.pathname);
    label(operation?.operationId);
    const reply = (answer: RestAnswer): void => {
      if (operation !== undefined) {
        for (const problem of contract.checkResponse(operation, answer.status, answer.body)) {
          contractViolations.push(`emulator response: ${problem}`);
        }
      }
      sendJson(response, answer.status, answer.body, { ...answer.headers });
    };
    const projectPath = operation?.pathParams.id ?? '';
    const failed = failing.get(projectPath);
    if (failed !== undefined) {
      reply(message(failed, echoed(request)));
      return;
    }
    if (!apiAuthorized(request, options.token)) {
      reply(message(401, '401 Unauthorized'));
      return;
    }
    if (operation === undefined) {
      contractViolations.push(`${request.method ?? ''} ${url.pathname}: no such operation in GitLab's official subset`);
      reply(message(404, '404 Not Found'));
      return;
    }
    const body = raw.length === 0 ? undefined : jsonOrFailure(raw);
    if (body === NOT_JSON) {
      contractViolations.push(`${operation.operationId}: request body is not JSON`);
      reply(message(400, 'Bad Request'));
      return;
    }
    const problems = contract.checkRequest(operation, url.searchParams, body);
    if (problems.length > 0) {
      contractViolations.push(...problems.map((problem) => `client request: ${problem}`));
      reply(message(400, problems.join('; ')));
      return;
    }
    const project = projects.get(projectPath);
    if (project === undefined) {
      reply(message(404, '404 Project Not Found'));
      return;
    }
    const iidText = operation.pathParams.merge_request_iid ?? operation.pathParams.noteable_id;
    reply(
      await api.handle({
        operationId: operation.operationId,
        project,
        iid: iidText === undefined ? undefined : Number(iidText),
        query: url.searchParams,
        body: typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {},
        login,
      }),
    );
  }

  const requireProject = (owner: string, name: string): ProjectRecord => {
    const project = projects.get(`${owner}/${name}`);
    if (project === undefined) throw new Error(`emulator: no project ${owner}/${name}`);
    return project;
  };
  const requireMr = (owner: string, name: string, iid: number): { project: ProjectRecord; mr: MergeRequestRecord } => {
    const project = requireProject(owner, name);
    const mr = project.mergeRequests.find((candidate) => candidate.iid === iid);
    if (mr === undefined) throw new Error(`emulator: no merge request ${owner}/${name}!${String(iid)}`);
    return { project, mr };
  };

  return {
    apiUrl: `${web}${API_PREFIX}`,
    gitBaseUrl: web,
    projectRoot,
    requests,
    contractViolations,
    async createRepository(owner, name, files, defaultBranch = 'main') {
      const path = `${owner}/${name}`;
      if (projects.has(path)) throw new Error(`emulator: ${path} exists`);
      const git = await BareRepository.create(join(projectRoot, owner, `${name}.git`), files, defaultBranch);
      projects.set(path, { id: api.nextId(), path, defaultBranch, git, mergeRequests: [] });
      return parseRepositoryUrl(`${web}/${path}`);
    },
    branchHead: (owner, name, branch) => requireProject(owner, name).git.branchHead(branch),
    mergeRequests: (owner, name) =>
      requireProject(owner, name).mergeRequests.map((mr) => ({
        iid: mr.iid,
        title: mr.title,
        description: mr.description,
        draft: /^\s*(?:draft:|\[draft\]|\(draft\))/i.test(mr.title),
        state: mr.state,
        sourceBranch: mr.sourceBranch,
        targetBranch: mr.targetBranch,
        sha:
          mr.state === 'opened' ? (requireProject(owner, name).git.branchHeadNow(mr.sourceBranch) ?? mr.sha) : mr.sha,
        mergeCommitSha: mr.mergeCommitSha,
        author: mr.author,
        labels: [...mr.labels],
        notes: [...mr.notes],
        autoMerge: mr.autoMerge,
      })),
    mergeMergeRequest: (owner, name, iid) =>
      serialized(async () => {
        const { project, mr } = requireMr(owner, name, iid);
        if (mr.state !== 'opened') throw new Error(`emulator: !${String(iid)} is not open`);
        await api.merge(project, mr);
      }),
    closeMergeRequest: (owner, name, iid) =>
      serialized(async () => {
        const { project, mr } = requireMr(owner, name, iid);
        if (mr.state === 'opened') await api.close(project, mr);
      }),
    retitleMergeRequest: (owner, name, iid, title) =>
      serialized(() => {
        const { mr } = requireMr(owner, name, iid);
        mr.title = title;
        mr.updatedAt = api.now();
        return Promise.resolve();
      }),
    failProject(owner, name, status) {
      if (status === undefined) failing.delete(`${owner}/${name}`);
      else failing.set(`${owner}/${name}`, status);
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) =>
        server.close(() => {
          resolve();
        }),
      );
      await rm(projectRoot, { recursive: true, force: true });
    },
  };
}

/** GitLab takes a personal, project or group token as PRIVATE-TOKEN or as an OAuth-style Bearer. */
function apiAuthorized(request: IncomingMessage, token: string): boolean {
  return request.headers['private-token'] === token || request.headers.authorization === `Bearer ${token}`;
}

/** git over HTTPS: Basic auth with any user name and the token as password. */
function gitAuthorized(header: string | undefined, token: string): boolean {
  const encoded = /^Basic (.+)$/i.exec(header ?? '')?.[1];
  if (encoded === undefined) return false;
  const decoded = Buffer.from(encoded, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon > 0 && decoded.slice(colon + 1) === token;
}

const NOT_JSON = Symbol('not JSON');

function jsonOrFailure(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return NOT_JSON;
  }
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Response(Readable.toWeb(request) as ReadableStream<Uint8Array>).text();
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
}
