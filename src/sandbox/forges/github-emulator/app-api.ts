// The emulator's GitHub Apps: Apps registered with their public key, installations on an owner's
// repositories, the two endpoints an App uses to get a token for one repository
// (apps/get-repo-installation and apps/create-installation-access-token, both authenticated by the
// App's JWT) and the installation tokens they mint, which the REST, GraphQL and git endpoints then
// accept for the token's repositories only, until it expires. As on GitHub:
// - the JWT is RS256 over `iss` (the App id), `iat` and `exp`; `exp` in the past or more than ten
//   minutes ahead is refused with GitHub's messages, and so is a signature the App's key does not
//   verify (node:crypto, no JWT library, so that the emulator does not share code with the client);
// - the App endpoints refuse any other kind of token, and other endpoints refuse the JWT;
// - a repository outside an installation token's scope answers 404, as a private one does.
import { createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import { renderRepository, renderUser, type EmulatorUrls } from './render.ts';
import { errorBody, type RestResponse } from './rest-api.ts';
import type { EmulatorState, RepositoryRecord } from './state.ts';

export interface EmulatedApp {
  readonly id: number;
  readonly slug: string;
  /** The id of the App's bot user, `<slug>[bot]`: the number in its noreply commit email. */
  readonly botId: number;
}

interface AppRecord extends EmulatedApp {
  readonly publicKey: KeyObject;
}

interface InstallationRecord {
  readonly id: number;
  readonly appId: number;
  /** The account it is installed on; case-insensitive like every GitHub login. */
  readonly owner: string;
  /** Lower-cased repository names, or every repository of the owner. */
  readonly repositories: ReadonlySet<string> | 'all';
}

interface InstallationToken {
  readonly installationId: number;
  /** `owner/name`, lower-cased. */
  readonly repositories: ReadonlySet<string>;
  readonly expiresAtMs: number;
}

/** Who a request's Authorization header says it is. */
export type Principal =
  | { readonly kind: 'user'; readonly login: string }
  | { readonly kind: 'app'; readonly app: EmulatedApp }
  | { readonly kind: 'installation'; readonly login: string; readonly token: InstallationToken };

export type Authentication =
  { readonly ok: true; readonly principal: Principal } | { readonly ok: false; readonly message: string };

/** GitHub's lifetime of an installation token. */
export const INSTALLATION_TOKEN_LIFETIME_MS = 60 * 60 * 1000;
/** GitHub refuses a JWT whose `exp` is further ahead than this. */
const MAX_JWT_LIFETIME_S = 10 * 60;
const APP_OPERATIONS = new Set(['apps/get-repo-installation', 'apps/create-installation-access-token']);
const APPS_DOCS = 'https://docs.github.com/rest/apps/apps';

const NOT_A_JWT = 'A JSON web token could not be decoded';
const EXPIRED_JWT =
  "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires";
const JWT_TOO_LONG = "'Expiration time' claim ('exp') is too far in the future";
const FUTURE_IAT = "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued";

export class EmulatedApps {
  readonly #state: EmulatorState;
  /** Milliseconds since the epoch: the JWT's and the tokens' clock, which tests may move. */
  readonly #now: () => number;
  readonly #apps = new Map<number, AppRecord>();
  readonly #installations = new Map<number, InstallationRecord>();
  readonly #tokens = new Map<string, InstallationToken>();

  constructor(state: EmulatorState, now: () => number) {
    this.#state = state;
    this.#now = now;
  }

  registerApp(init: {
    readonly slug: string;
    readonly publicKey: KeyObject | string;
    readonly botId?: number;
  }): EmulatedApp {
    const id = this.#state.nextId();
    const app: AppRecord = {
      id,
      slug: init.slug,
      botId: init.botId ?? 40_000_000 + id,
      publicKey: typeof init.publicKey === 'string' ? createPublicKey(init.publicKey) : init.publicKey,
    };
    this.#apps.set(id, app);
    return { id: app.id, slug: app.slug, botId: app.botId };
  }

  /** Installs App `appId` on `owner`'s repositories: those named, or all of them. Returns the installation id. */
  install(appId: number, owner: string, repositories?: readonly string[]): number {
    if (!this.#apps.has(appId)) throw new Error(`emulator: no App ${String(appId)}`);
    const id = this.#state.nextId();
    this.#installations.set(id, {
      id,
      appId,
      owner: owner.toLowerCase(),
      repositories: repositories === undefined ? 'all' : new Set(repositories.map((name) => name.toLowerCase())),
    });
    return id;
  }

  /** Every installation token minted so far, oldest first: tests count them and look for leaks. */
  get mintedTokens(): readonly string[] {
    return [...this.#tokens.keys()];
  }

  /** `token X` / `Bearer X`: the user token, an App JWT or an installation token. */
  authenticate(header: string | undefined, userToken: string, userLogin: string): Authentication {
    if (header === undefined) return { ok: false, message: 'Requires authentication' };
    const presented = /^(?:token|bearer)\s+(\S+)$/i.exec(header.trim())?.[1];
    if (presented === undefined) return { ok: false, message: 'Bad credentials' };
    if (presented === userToken) return { ok: true, principal: { kind: 'user', login: userLogin } };
    const installation = this.#installationToken(presented);
    if (installation !== undefined) return { ok: true, principal: installation };
    if (presented.split('.').length === 3) return this.#verifyJwt(presented);
    return { ok: false, message: 'Bad credentials' };
  }

  /** git's HTTP Basic: the password is the user token or an installation token for `owner/name`. */
  gitAuthorized(header: string | undefined, userToken: string, owner: string, name: string): boolean {
    const match = /^basic\s+(\S+)$/i.exec(header?.trim() ?? '');
    if (match?.[1] === undefined) return false;
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon <= 0) return false;
    const password = decoded.slice(colon + 1);
    if (password === userToken) return true;
    const installation = this.#installationToken(password);
    return installation !== undefined && this.canAccess(installation, owner, name);
  }

  /**
   * Whether `principal` may use REST operation `operationId` on `owner/name` (either undefined when
   * the operation names no repository). An answer to send when not.
   */
  authorizeRest(principal: Principal, operationId: string, owner?: string, name?: string): RestResponse | undefined {
    const appOperation = APP_OPERATIONS.has(operationId);
    if (appOperation !== (principal.kind === 'app')) {
      // GitHub's answers: an App endpoint cannot decode anything but a JWT, and a JWT is no
      // installation: it reaches nothing else.
      return appOperation
        ? { status: 401, body: errorBody(401, NOT_A_JWT) }
        : { status: 403, body: errorBody(403, 'Resource not accessible by integration') };
    }
    if (owner !== undefined && name !== undefined && !this.canAccess(principal, owner, name)) {
      return { status: 404, body: errorBody(404, 'Not Found') };
    }
    return undefined;
  }

  /** Installation tokens reach their own repositories only; the user token (and an App's JWT) all. */
  canAccess(principal: Principal, owner: string, name: string): boolean {
    if (principal.kind !== 'installation') return true;
    return principal.token.repositories.has(repositoryKey(owner, name));
  }

  /**
   * A view of `state` that holds only the repositories `principal` may reach: GraphQL resolves
   * nodes through it, so a node of another repository is NOT_FOUND, as on GitHub.
   */
  scopedState(state: EmulatorState, principal: Principal): EmulatorState {
    if (principal.kind !== 'installation') return state;
    const visible = (repository: RepositoryRecord | undefined): RepositoryRecord | undefined =>
      repository !== undefined && this.canAccess(principal, repository.owner, repository.name) ? repository : undefined;
    const overrides: Partial<Record<keyof EmulatorState, unknown>> = {
      repository: (owner: string, name: string) => visible(state.repository(owner, name)),
      pullRequest: (owner: string, name: string, number: number) =>
        visible(state.repository(owner, name)) === undefined ? undefined : state.pullRequest(owner, name, number),
      byNodeId: (id: string) => {
        const found = state.byNodeId(id);
        return found !== undefined && visible(found.repository) !== undefined ? found : undefined;
      },
    };
    return new Proxy(state, {
      get(target, property, receiver) {
        if (typeof property === 'string' && property in overrides) return overrides[property as keyof EmulatorState];
        const value: unknown = Reflect.get(target, property, receiver);
        // Methods run on the real object: its private fields are not reachable through a proxy.
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
  }

  /** The App endpoints and the bot user lookup, by operationId. */
  handlers(urls: EmulatorUrls): Map<string, AppRestHandler> {
    const handlers = new Map<string, AppRestHandler>();
    handlers.set('apps/get-repo-installation', (request) => {
      const app = request.principal.kind === 'app' ? request.principal.app : undefined;
      const owner = request.pathParams.owner ?? '';
      const name = request.pathParams.repo ?? '';
      const repository = this.#state.repository(owner, name);
      const installation =
        app === undefined || repository === undefined ? undefined : this.#installationFor(app.id, repository);
      if (app === undefined || installation === undefined) {
        return Promise.resolve({ status: 404, body: errorBody(404, 'Not Found', APPS_DOCS) });
      }
      return Promise.resolve({ status: 200, body: this.#renderInstallation(urls, app, installation) });
    });
    handlers.set('apps/create-installation-access-token', (request) => {
      const app = request.principal.kind === 'app' ? request.principal.app : undefined;
      const installation = this.#installations.get(Number(request.pathParams.installation_id));
      if (app === undefined || installation?.appId !== app.id) {
        return Promise.resolve({ status: 404, body: errorBody(404, 'Not Found', APPS_DOCS) });
      }
      const body = (request.body ?? {}) as { repositories?: string[]; repository_ids?: number[] };
      const reachable = this.#repositoriesOf(installation);
      let chosen = reachable;
      if (body.repositories !== undefined || body.repository_ids !== undefined) {
        const wanted = [
          ...(body.repositories ?? []).map((name) => reachable.find((repo) => sameName(repo.name, name))),
          ...(body.repository_ids ?? []).map((id) => reachable.find((repo) => repo.id === id)),
        ];
        if (wanted.some((repo) => repo === undefined)) {
          return Promise.resolve({
            status: 422,
            body: errorBody(
              422,
              'There is at least one repository that does not exist or is not accessible to the parent installation.',
              APPS_DOCS,
            ),
          });
        }
        chosen = wanted.filter((repo): repo is RepositoryRecord => repo !== undefined);
      }
      const token = `ghs_${randomBytes(18).toString('base64url')}`;
      const expiresAtMs = this.#now() + INSTALLATION_TOKEN_LIFETIME_MS;
      this.#tokens.set(token, {
        installationId: installation.id,
        repositories: new Set(chosen.map((repo) => repositoryKey(repo.owner, repo.name))),
        expiresAtMs,
      });
      return Promise.resolve({
        status: 201,
        body: {
          token,
          expires_at: new Date(expiresAtMs).toISOString().replace(/\.\d{3}Z$/, 'Z'),
          permissions: INSTALLATION_PERMISSIONS,
          repository_selection: 'selected',
          repositories: chosen.map((repo) => renderRepository(urls, repo)),
        },
      });
    });
    handlers.set('users/get-by-username', (request) => {
      const username = request.pathParams.username ?? '';
      const app = [...this.#apps.values()].find((candidate) => sameName(`${candidate.slug}[bot]`, username));
      const user = { ...renderUser(urls, username), ...PUBLIC_USER_FIELDS };
      const body = app === undefined ? user : { ...user, id: app.botId, type: 'Bot', login: `${app.slug}[bot]` };
      return Promise.resolve({ status: 200, body });
    });
    return handlers;
  }

  #installationToken(token: string): Principal | undefined {
    const record = this.#tokens.get(token);
    if (record === undefined || record.expiresAtMs <= this.#now()) return undefined;
    const installation = this.#installations.get(record.installationId);
    const app = installation === undefined ? undefined : this.#apps.get(installation.appId);
    if (app === undefined) return undefined;
    return { kind: 'installation', login: `${app.slug}[bot]`, token: record };
  }

  #verifyJwt(jwt: string): Authentication {
    const [headerPart = '', payloadPart = '', signaturePart = ''] = jwt.split('.');
    const header = decodeJson(headerPart);
    const payload = decodeJson(payloadPart);
    if (header?.alg !== 'RS256' || payload === undefined) return { ok: false, message: NOT_A_JWT };
    const app = this.#apps.get(Number(payload.iss));
    if (app === undefined) return { ok: false, message: NOT_A_JWT };
    const signed = verify(
      'RSA-SHA256',
      Buffer.from(`${headerPart}.${payloadPart}`),
      app.publicKey,
      Buffer.from(signaturePart, 'base64url'),
    );
    if (!signed) return { ok: false, message: NOT_A_JWT };
    const nowS = Math.floor(this.#now() / 1000);
    const { exp, iat } = payload;
    if (typeof exp !== 'number' || exp <= nowS) return { ok: false, message: EXPIRED_JWT };
    if (exp - nowS > MAX_JWT_LIFETIME_S) return { ok: false, message: JWT_TOO_LONG };
    if (!Number.isInteger(iat) || (iat as number) > nowS) return { ok: false, message: FUTURE_IAT };
    return { ok: true, principal: { kind: 'app', app: { id: app.id, slug: app.slug, botId: app.botId } } };
  }

  #installationFor(appId: number, repository: RepositoryRecord): InstallationRecord | undefined {
    return [...this.#installations.values()].find(
      (installation) =>
        installation.appId === appId &&
        sameName(installation.owner, repository.owner) &&
        (installation.repositories === 'all' || installation.repositories.has(repository.name.toLowerCase())),
    );
  }

  #repositoriesOf(installation: InstallationRecord): RepositoryRecord[] {
    return this.#state
      .repositories()
      .filter(
        (repo) =>
          sameName(repo.owner, installation.owner) &&
          (installation.repositories === 'all' || installation.repositories.has(repo.name.toLowerCase())),
      );
  }

  #renderInstallation(urls: EmulatorUrls, app: EmulatedApp, installation: InstallationRecord): object {
    const account = renderUser(urls, installation.owner);
    const created = new Date(this.#now()).toISOString().replace(/\.\d{3}Z$/, 'Z');
    return {
      id: installation.id,
      account,
      repository_selection: installation.repositories === 'all' ? 'all' : 'selected',
      access_tokens_url: `${urls.api}/app/installations/${String(installation.id)}/access_tokens`,
      repositories_url: `${urls.api}/installation/repositories`,
      html_url: `${urls.web}/organizations/${installation.owner}/settings/installations/${String(installation.id)}`,
      app_id: app.id,
      app_slug: app.slug,
      target_id: account.id,
      target_type: 'Organization',
      permissions: INSTALLATION_PERMISSIONS,
      events: ['push', 'pull_request'],
      created_at: created,
      updated_at: created,
      single_file_name: null,
      suspended_by: null,
      suspended_at: null,
    };
  }
}

/** What an App handler is given: the request and who sent it. */
export interface AppRestRequest {
  readonly pathParams: Readonly<Record<string, string>>;
  readonly body: unknown;
  readonly principal: Principal;
}

export type AppRestHandler = (request: AppRestRequest) => Promise<RestResponse>;

const INSTALLATION_PERMISSIONS = { contents: 'write', pull_requests: 'write', metadata: 'read' } as const;

/** The fields `public-user` requires beyond `simple-user`. */
const PUBLIC_USER_FIELDS = {
  name: null,
  company: null,
  blog: null,
  location: null,
  email: null,
  hireable: null,
  bio: null,
  public_repos: 0,
  public_gists: 0,
  followers: 0,
  following: 0,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
} as const;

function repositoryKey(owner: string, name: string): string {
  return `${owner.toLowerCase()}/${name.toLowerCase()}`;
}

function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}

function decodeJson(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
