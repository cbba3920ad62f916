// The dashboard's HTTP server (docs/decisions.md D14, N46): read-only, server-rendered HTML from the
// informer caches, live through server-sent events, every view behind the request's own Kubernetes
// credentials (auth.ts). Plain node:http, or node:https with a certificate directory (reloaded like
// the webhook's). Routes:
//   GET /                               namespaces the credential may see
//   GET /ns/<ns>/graph[?component=<c>]  the nudge graph (and what <c>'s last build nudged)
//   GET /ns/<ns>/changegroups[/<name>]  ChangeGroups, one ChangeGroup
//   GET /ns/<ns>/nudges                 nudges in flight
//   GET /korifi                         Korifi spaces (only when the korifi controllers run)
//   GET /events?view=<path>             the view at <path> as server-sent events
//   GET /assets/dashboard.css|js        static, public (they hold no data)
//   GET /login, POST /login             the sign-in form; a token for a session cookie
// Anything else is 404; any other method 405. Every response carries the security headers.
import { readFile } from 'node:fs/promises';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Registry } from 'prom-client';
import type { LayoutOutcome } from '../domain/dashboard/graph-layout.ts';
import { graphLayoutInput } from '../domain/dashboard/graph-view.ts';
import { dashboardPath, html, type SafeHtml } from '../domain/dashboard/html.ts';
import type { DashboardTab, PageInput } from '../domain/dashboard/page.ts';
import type { KorifiSnapshot, NamespaceSnapshot, ViewContext } from '../domain/dashboard/inputs.ts';
import { bearerToken } from '../runtime/access-review.ts';
import { closeNow, listenOn } from '../runtime/health-server.ts';
import type { Logger } from '../runtime/logger.ts';
import { dns1123LabelProblem, dns1123SubdomainProblem } from '../schema/names.ts';
import { CertWatcher } from '../webhooks/cert-watcher.ts';
import { SessionStore, type Access, type DashboardAuthorizer } from './auth.ts';
import { LayoutWorker, type GraphLayouts } from './layout-worker.ts';
import { LiveUpdates, type LiveRender } from './live.ts';
import type { DashboardData } from './snapshots.ts';

/** What renderPage frames; `live` is '' for a page that is not live. */
export type PageFrame = PageInput;

/** The pure views (src/domain/dashboard/), injected so the server can be tested on its own. */
export interface DashboardViews {
  /** A whole document around a view's `<main>` content. */
  page(frame: PageFrame): SafeHtml;
  /** A whole 404 document. */
  notFound(what: string): SafeHtml;
  /** A whole sign-in document. */
  loginForm(error?: string): SafeHtml;
  namespaces(namespaces: readonly NamespaceSnapshot[], context: ViewContext): SafeHtml;
  /** `layout`: graphLayoutInput(snapshot, selected) laid out by the layout worker (N47). */
  graph(
    snapshot: NamespaceSnapshot,
    context: ViewContext,
    selected: string | undefined,
    layout: LayoutOutcome,
  ): SafeHtml;
  changeGroups(snapshot: NamespaceSnapshot, context: ViewContext): SafeHtml;
  changeGroup(snapshot: NamespaceSnapshot, name: string, context: ViewContext): SafeHtml | undefined;
  nudges(snapshot: NamespaceSnapshot, context: ViewContext): SafeHtml;
  korifi(spaces: readonly KorifiSnapshot[], context: ViewContext): SafeHtml;
}

export interface DashboardServerOptions {
  /** 0 picks a free port (tests). */
  readonly port: number;
  /** Default 127.0.0.1: reach it with `kubectl port-forward` (N46). */
  readonly host?: string;
  /** Holds tls.crt and tls.key: HTTPS, reloaded on change. Absent: plain HTTP. */
  readonly certDir?: string;
  readonly authorizer: DashboardAuthorizer;
  readonly data: DashboardData;
  readonly views: DashboardViews;
  readonly logger: Logger;
  readonly registry?: Registry;
  readonly now?: () => number;
  /** Event streams open at once; default 100, past it 503. */
  readonly maxLiveClients?: number;
  readonly coalesceMs?: number;
  readonly heartbeatMs?: number;
  /** Where dashboard.css and dashboard.js are; default the repository's assets/dashboard/. */
  readonly assetsDir?: URL;
  readonly sessions?: SessionStore;
  /** Lays graphs out off the event loop (N47); default a LayoutWorker. Stopped with the server. */
  readonly layouts?: GraphLayouts;
}

export const DEFAULT_DASHBOARD_HOST = '127.0.0.1';
export const SESSION_COOKIE = 'nudger-session';
/** A sign-in form holds one token: Kubernetes tokens are a few KiB at most. */
export const MAX_LOGIN_BODY_BYTES = 4 * 1024;

/** On every response (the views write no inline script or style, so the CSP can forbid both). */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'cache-control': 'no-store',
};

const HTML = 'text/html; charset=utf-8';
const TEXT = 'text/plain; charset=utf-8';
const ASSETS: Readonly<Record<string, string>> = {
  'dashboard.css': 'text/css; charset=utf-8',
  'dashboard.js': 'text/javascript; charset=utf-8',
};
const HEADERS_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;
const RETRY_AFTER_SECONDS = '5';

/** A view the dashboard renders, from its path. */
export type ViewRoute =
  | { readonly kind: 'namespaces' }
  | { readonly kind: 'graph'; readonly namespace: string; readonly component?: string }
  | { readonly kind: 'changegroups'; readonly namespace: string }
  | { readonly kind: 'changegroup'; readonly namespace: string; readonly name: string }
  | { readonly kind: 'nudges'; readonly namespace: string }
  | { readonly kind: 'korifi' };

/** The view at `pathname` (with its query), or undefined: not a view path (404). */
export function viewRoute(pathname: string, query: URLSearchParams): ViewRoute | undefined {
  if (pathname === '/') return { kind: 'namespaces' };
  if (pathname === '/korifi') return { kind: 'korifi' };
  const segments = pathname.split('/').slice(1).map(decodeSegment);
  if (segments.length < 3 || segments[0] !== 'ns' || segments.some((s) => s === undefined)) return undefined;
  const [, namespace = '', view, name] = segments as string[];
  if (dns1123LabelProblem(namespace) !== undefined) return undefined;
  if (segments.length === 3 && view === 'graph') {
    const component = query.get('component');
    if (component === null) return { kind: 'graph', namespace };
    return dns1123SubdomainProblem(component) === undefined ? { kind: 'graph', namespace, component } : undefined;
  }
  if (segments.length === 3 && view === 'changegroups') return { kind: 'changegroups', namespace };
  if (segments.length === 3 && view === 'nudges') return { kind: 'nudges', namespace };
  if (segments.length === 4 && view === 'changegroups' && name !== undefined) {
    return dns1123SubdomainProblem(name) === undefined ? { kind: 'changegroup', namespace, name } : undefined;
  }
  return undefined;
}

/** The one path of a view: what its page subscribes to, and what /events?view= accepts. */
export function viewPath(route: ViewRoute): string {
  switch (route.kind) {
    case 'namespaces':
      return '/';
    case 'korifi':
      return '/korifi';
    case 'graph':
      return route.component === undefined
        ? dashboardPath('ns', route.namespace, 'graph')
        : `${dashboardPath('ns', route.namespace, 'graph')}?${new URLSearchParams({ component: route.component }).toString()}`;
    case 'changegroup':
      return dashboardPath('ns', route.namespace, 'changegroups', route.name);
    default:
      return dashboardPath('ns', route.namespace, route.kind);
  }
}

function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** What rendering a view for one credential came to. */
type Rendered =
  | {
      readonly kind: 'view';
      readonly title: string;
      readonly main: SafeHtml;
      readonly namespace?: string;
      readonly tab?: DashboardTab;
      readonly section?: 'namespaces' | 'korifi';
    }
  | { readonly kind: 'not-found'; readonly what: string }
  | { readonly kind: 'refused'; readonly access: Exclude<Access, 'allowed'>; readonly what: string };

interface Credentials {
  readonly token: string;
  /** The session the token came from, if it came from the cookie. */
  readonly session?: string;
}

export class DashboardServer {
  readonly #options: DashboardServerOptions;
  readonly #views: DashboardViews;
  readonly #data: DashboardData;
  readonly #authorizer: DashboardAuthorizer;
  readonly #sessions: SessionStore;
  readonly #live: LiveUpdates;
  readonly #layouts: GraphLayouts;
  readonly #now: () => number;
  readonly #certs: CertWatcher | undefined;
  readonly #assets = new Map<string, Buffer>();
  #server: Server | undefined;

  constructor(options: DashboardServerOptions) {
    this.#options = options;
    this.#views = options.views;
    this.#data = options.data;
    this.#authorizer = options.authorizer;
    this.#sessions = options.sessions ?? new SessionStore();
    this.#now = options.now ?? Date.now;
    this.#layouts = options.layouts ?? new LayoutWorker({ logger: options.logger });
    this.#live = new LiveUpdates({
      sources: options.data.sources,
      logger: options.logger,
      ...(options.maxLiveClients === undefined ? {} : { maxClients: options.maxLiveClients }),
      ...(options.coalesceMs === undefined ? {} : { coalesceMs: options.coalesceMs }),
      ...(options.heartbeatMs === undefined ? {} : { heartbeatMs: options.heartbeatMs }),
    });
    this.#certs =
      options.certDir === undefined
        ? undefined
        : new CertWatcher({
            dir: options.certDir,
            logger: options.logger,
            ...(options.registry === undefined ? {} : { registry: options.registry }),
            onChange: (pair) => {
              (this.#server as { setSecureContext?: (o: object) => void } | undefined)?.setSecureContext?.({
                cert: pair.cert,
                key: pair.key,
                minVersion: 'TLSv1.2',
              });
            },
          });
  }

  /** Event streams open now. */
  get liveClients(): number {
    return this.#live.clients;
  }

  async start(): Promise<{ port: number }> {
    if (this.#server !== undefined) throw new Error('dashboard server already started');
    const handler = (request: IncomingMessage, response: ServerResponse): void => {
      this.#route(request, response).catch((error: unknown) => {
        this.#options.logger.error({ err: error }, 'dashboard request failed');
        if (!response.headersSent) send(response, 500, TEXT, 'internal error\n');
        else response.end();
      });
    };
    const pair = await this.#certs?.start();
    const server =
      pair === undefined
        ? createHttpServer(handler)
        : createHttpsServer(
            { cert: pair.cert, key: pair.key, minVersion: 'TLSv1.2', ALPNProtocols: ['http/1.1'] },
            handler,
          );
    // Pages and the sign-in form are small: a client that dawdles over its request is no browser.
    server.headersTimeout = HEADERS_TIMEOUT_MS;
    server.requestTimeout = REQUEST_TIMEOUT_MS;
    this.#server = server;
    let port: number;
    try {
      port = await listenOn(server, this.#options.port, this.#options.host ?? DEFAULT_DASHBOARD_HOST);
    } catch (error) {
      this.#certs?.stop();
      this.#server = undefined;
      throw error;
    }
    this.#live.start();
    this.#options.logger.info(
      {
        port,
        host: this.#options.host ?? DEFAULT_DASHBOARD_HOST,
        tls: pair !== undefined,
        auth: this.#authorizer.mode,
      },
      'dashboard listening',
    );
    return { port };
  }

  async stop(): Promise<void> {
    this.#live.stop();
    this.#certs?.stop();
    await this.#layouts.stop();
    const server = this.#server;
    if (server === undefined) return;
    this.#server = undefined;
    await closeNow(server);
  }

  async #route(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://dashboard');
    const { pathname } = url;
    if (pathname === '/login') {
      if (request.method === 'POST') return this.#postLogin(request, response);
      if (request.method !== 'GET') {
        methodNotAllowed(response, 'GET, POST');
        return;
      }
      return this.#getLogin(request, response, url.searchParams);
    }
    if (request.method !== 'GET') {
      methodNotAllowed(response, 'GET');
      return;
    }
    if (pathname.startsWith('/assets/')) return this.#asset(response, pathname.slice('/assets/'.length));
    if (pathname === '/events') return this.#events(request, response, url.searchParams.get('view'));
    const route = viewRoute(pathname, url.searchParams);
    if (route === undefined || (route.kind === 'korifi' && !this.#data.korifi)) {
      send(response, 404, HTML, this.#views.notFound(`The page ${pathname}`).text);
      return;
    }
    const credentials = this.#credentials(request);
    if (credentials === undefined) {
      this.#unauthenticated(response, { page: true, bearer: false, staleCookie: hasSessionCookie(request) });
      return;
    }
    const context = this.#context();
    const rendered = await this.#render(route, credentials.token, context);
    switch (rendered.kind) {
      case 'refused': {
        this.#refused(response, rendered, credentials, true);
        return;
      }
      case 'not-found': {
        send(response, 404, HTML, this.#views.notFound(rendered.what).text);
        return;
      }
      case 'view': {
        const { kind: _kind, ...frame } = rendered;
        const page = this.#views.page({ ...frame, live: viewPath(route), context });
        send(response, 200, HTML, page.text);
        return;
      }
    }
  }

  #context(): ViewContext {
    return { now: this.#now(), korifi: this.#data.korifi };
  }

  /** Renders `route` for the credential's token, after the same authorization a page gets. */
  async #render(
    route: ViewRoute,
    token: string,
    context: ViewContext,
    memo?: Map<string, SafeHtml>,
  ): Promise<Rendered> {
    const views = this.#views;
    const data = this.#data;
    if (route.kind === 'namespaces' || route.kind === 'korifi') {
      const guarded = route.kind === 'namespaces' ? 'changegroups' : 'cfapps';
      const all = route.kind === 'namespaces' ? data.namespaces() : data.korifiSpaces();
      const visible = await this.#authorizer.visible(token, guarded, all);
      if (visible.access !== 'allowed') return { kind: 'refused', access: visible.access, what: '' };
      const key = `${viewPath(route)}\n${visible.namespaces.join(',')}`;
      const main = remembered(memo, key, () =>
        route.kind === 'namespaces'
          ? views.namespaces(
              visible.namespaces.map((ns) => data.namespace(ns)),
              context,
            )
          : views.korifi(
              visible.namespaces.map((ns) => data.korifiSpace(ns)),
              context,
            ),
      );
      return route.kind === 'namespaces'
        ? { kind: 'view', title: 'Namespaces', main, section: 'namespaces' }
        : { kind: 'view', title: 'Korifi', main, section: 'korifi' };
    }
    const { namespace } = route;
    const access = await this.#authorizer.namespace(token, 'changegroups', namespace);
    if (access !== 'allowed') return { kind: 'refused', access, what: `ChangeGroups in namespace ${namespace}` };
    const snapshot = (): NamespaceSnapshot => data.namespace(namespace);
    const path = viewPath(route);
    switch (route.kind) {
      case 'graph': {
        // dagre runs in the layout worker, never on this event loop, which also answers admission
        // webhooks (N47); the view renders the snapshot the layout was asked for.
        let main = memo?.get(path);
        if (main === undefined) {
          const shown = snapshot();
          const layout = await this.#layouts.layout(graphLayoutInput(shown, route.component));
          main = views.graph(shown, context, route.component, layout);
          memo?.set(path, main);
        }
        return { kind: 'view', title: `${namespace} · nudge graph`, namespace, tab: 'graph', main };
      }
      case 'changegroups':
        return {
          kind: 'view',
          title: `${namespace} · ChangeGroups`,
          namespace,
          tab: 'changegroups',
          main: remembered(memo, path, () => views.changeGroups(snapshot(), context)),
        };
      case 'nudges':
        return {
          kind: 'view',
          title: `${namespace} · nudges`,
          namespace,
          tab: 'nudges',
          main: remembered(memo, path, () => views.nudges(snapshot(), context)),
        };
      case 'changegroup': {
        const main = views.changeGroup(snapshot(), route.name, context);
        if (main === undefined) return { kind: 'not-found', what: `ChangeGroup ${namespace}/${route.name}` };
        return { kind: 'view', title: `${namespace} · ${route.name}`, namespace, tab: 'changegroups', main };
      }
    }
  }

  async #events(request: IncomingMessage, response: ServerResponse, view: string | null): Promise<void> {
    const target = view === null || !view.startsWith('/') || view.startsWith('//') ? undefined : safeUrl(view);
    const route = target === undefined ? undefined : viewRoute(target.pathname, target.searchParams);
    if (route === undefined || (route.kind === 'korifi' && !this.#data.korifi)) {
      send(response, 404, TEXT, 'no such view\n');
      return;
    }
    const credentials = this.#credentials(request);
    if (credentials === undefined) {
      this.#unauthenticated(response, { page: false, bearer: false, staleCookie: hasSessionCookie(request) });
      return;
    }
    // The stream opens only for a view the credential may see now; each re-render asks again
    // (answered from the ~30 s decision cache), so revoked access ends the stream.
    const first = await this.#render(route, credentials.token, this.#context());
    if (first.kind === 'refused') {
      this.#refused(response, first, credentials, false);
      return;
    }
    if (this.#live.full) {
      send(response, 503, TEXT, 'too many live views are open; reload later\n', {
        'retry-after': RETRY_AFTER_SECONDS,
      });
      return;
    }
    response.writeHead(200, {
      ...SECURITY_HEADERS,
      'content-type': 'text/event-stream; charset=utf-8',
      // Proxies (nginx, the OpenShift router) must pass events on at once.
      'x-accel-buffering': 'no',
    });
    const { token } = credentials;
    const fragment = (rendered: Exclude<Rendered, { kind: 'refused' }>): string =>
      rendered.kind === 'view' ? rendered.main.text : notFoundFragment(rendered.what);
    // The render that authorized the stream is its first message: no second render (nor layout).
    this.#live.open(
      response,
      async (memo): Promise<LiveRender> => {
        const rendered = await this.#render(route, token, this.#context(), memo);
        return rendered.kind === 'refused' ? { kind: 'end' } : { kind: 'view', html: fragment(rendered) };
      },
      fragment(first),
    );
  }

  #credentials(request: IncomingMessage): Credentials | undefined {
    const bearer = bearerToken(request.headers.authorization);
    if (bearer !== undefined) return { token: bearer };
    const session = cookie(request.headers.cookie, SESSION_COOKIE);
    const token = session === undefined ? undefined : this.#sessions.token(session);
    return token === undefined || session === undefined ? undefined : { token, session };
  }

  /**
   * No usable credential: a browser's page request goes to the sign-in form (kubernetes) or gets
   * 401 (token); a refused bearer token, the event stream and everything else get 401. A session
   * cookie that no longer stands for a token is cleared.
   */
  #unauthenticated(
    response: ServerResponse,
    { page, bearer, staleCookie }: { readonly page: boolean; readonly bearer: boolean; readonly staleCookie: boolean },
  ): void {
    const clear: Record<string, string> = staleCookie ? { 'set-cookie': this.#cookie('', 0) } : {};
    if (page && !bearer && this.#authorizer.mode === 'kubernetes') {
      send(response, 303, TEXT, 'sign in at /login\n', { location: '/login', ...clear });
      return;
    }
    const text =
      this.#authorizer.mode === 'token'
        ? 'This dashboard needs the token the sandbox printed: open the URL it printed, with ?token=.'
        : 'This dashboard needs a Kubernetes bearer token: sign in at /login or send Authorization: Bearer.';
    const body = page ? this.#message('Unauthorized', text).text : `${text}\n`;
    send(response, 401, page ? HTML : TEXT, body, { 'www-authenticate': 'Bearer realm="nudger-dashboard"', ...clear });
  }

  #refused(
    response: ServerResponse,
    refused: Extract<Rendered, { kind: 'refused' }>,
    credentials: Credentials,
    page: boolean,
  ): void {
    if (refused.access === 'unauthenticated') {
      // A session whose token no longer passes the TokenReview (expired, revoked) is forgotten.
      if (credentials.session !== undefined) this.#sessions.delete(credentials.session);
      this.#unauthenticated(response, {
        page,
        bearer: credentials.session === undefined,
        staleCookie: credentials.session !== undefined,
      });
      return;
    }
    const [status, title, text, headers] =
      refused.access === 'forbidden'
        ? ([403, 'Forbidden', `This identity may not list ${refused.what}.`, {}] as const)
        : ([
            503,
            'Cannot check access',
            'The Kubernetes API server did not answer a TokenReview or SubjectAccessReview, so the dashboard cannot tell what this identity may see. Retry shortly.',
            { 'retry-after': RETRY_AFTER_SECONDS },
          ] as const);
    if (page) send(response, status, HTML, this.#message(title, text).text, headers);
    else send(response, status, TEXT, `${text}\n`, headers);
  }

  #message(title: string, text: string): SafeHtml {
    return this.#views.page({
      title,
      main: html`<section class="panel">
        <h1>${title}</h1>
        <p>${text}</p>
      </section>`,
      live: '',
      context: this.#context(),
    });
  }

  async #getLogin(request: IncomingMessage, response: ServerResponse, query: URLSearchParams): Promise<void> {
    const token = query.get('token');
    if (token === null) {
      send(response, 200, HTML, this.#views.loginForm().text);
      return;
    }
    if (this.#authorizer.mode !== 'token') {
      // A token in a URL ends up in browser history and proxy logs: only the sandbox's one-run token may.
      send(
        response,
        400,
        HTML,
        this.#views.loginForm('Tokens are not accepted in the URL here: paste the token into the form.').text,
      );
      return;
    }
    return this.#signIn(request, response, token);
  }

  async #postLogin(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== 'null' && !sameOrigin(origin, request)) {
      send(response, 403, TEXT, 'sign-in from another site is refused\n');
      return;
    }
    const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
    if (type !== 'application/x-www-form-urlencoded') {
      send(response, 415, TEXT, 'send the sign-in form (application/x-www-form-urlencoded)\n', {
        connection: 'close',
      });
      return;
    }
    const declared = Number(request.headers['content-length'] ?? '0');
    if (declared > MAX_LOGIN_BODY_BYTES) {
      tooLarge(response);
      return;
    }
    const body = await readSmallBody(request, MAX_LOGIN_BODY_BYTES);
    if (body === 'too-large') {
      tooLarge(response);
      return;
    }
    if (body === undefined) return;
    const token = new URLSearchParams(body.text).get('token')?.trim() ?? '';
    if (token === '') {
      send(response, 400, HTML, this.#views.loginForm('Paste a token to sign in.').text);
      return;
    }
    return this.#signIn(request, response, token);
  }

  async #signIn(request: IncomingMessage, response: ServerResponse, token: string): Promise<void> {
    if (bearerToken(`Bearer ${token}`) === undefined) {
      send(response, 401, HTML, this.#views.loginForm('This is not a token.').text);
      return;
    }
    const access = await this.#authorizer.login(token);
    if (access === 'unavailable') {
      send(
        response,
        503,
        HTML,
        this.#views.loginForm('The Kubernetes API server did not answer the TokenReview; retry shortly.').text,
        { 'retry-after': RETRY_AFTER_SECONDS },
      );
      return;
    }
    if (access !== 'allowed') {
      const reason =
        this.#authorizer.mode === 'token'
          ? 'This is not the token the sandbox printed.'
          : 'The Kubernetes API server does not accept this token.';
      send(response, 401, HTML, this.#views.loginForm(reason).text);
      return;
    }
    const previous = cookie(request.headers.cookie, SESSION_COOKIE);
    if (previous !== undefined) this.#sessions.delete(previous);
    const session = this.#sessions.create(token);
    send(response, 303, TEXT, 'signed in\n', { location: '/', 'set-cookie': this.#cookie(session) });
  }

  #cookie(value: string, maxAge?: number): string {
    const secure = this.#certs === undefined ? '' : '; Secure';
    const age = maxAge === undefined ? '' : `; Max-Age=${String(maxAge)}`;
    return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict${secure}${age}`;
  }

  async #asset(response: ServerResponse, name: string): Promise<void> {
    const type = ASSETS[name];
    if (type === undefined) {
      send(response, 404, TEXT, 'not found\n');
      return;
    }
    let content = this.#assets.get(name);
    if (content === undefined) {
      const dir = this.#options.assetsDir ?? new URL('../../assets/dashboard/', import.meta.url);
      content = await readFile(new URL(name, dir)).catch(() => undefined);
      if (content === undefined) {
        send(response, 404, TEXT, 'not found\n');
        return;
      }
      this.#assets.set(name, content);
    }
    send(response, 200, type, content);
  }
}

function remembered(memo: Map<string, SafeHtml> | undefined, key: string, render: () => SafeHtml): SafeHtml {
  const known = memo?.get(key);
  if (known !== undefined) return known;
  const rendered = render();
  memo?.set(key, rendered);
  return rendered;
}

/** What a live view shows once its object is gone (a deleted ChangeGroup). */
function notFoundFragment(what: string): string {
  return html`<section class="panel">
    <h1>Not found</h1>
    <p>${what} was not found.</p>
  </section>`.text;
}

function send(
  response: ServerResponse,
  status: number,
  type: string,
  body: string | Buffer,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, {
    ...SECURITY_HEADERS,
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  response.end(body);
}

function methodNotAllowed(response: ServerResponse, allow: string): void {
  send(response, 405, TEXT, 'method not allowed: the dashboard is read-only\n', { allow });
}

function tooLarge(response: ServerResponse): void {
  // Closing the connection is what lets the server skip the rest of the body.
  send(response, 413, TEXT, `the sign-in form is at most ${String(MAX_LOGIN_BODY_BYTES)} bytes\n`, {
    connection: 'close',
  });
}

function safeUrl(path: string): URL | undefined {
  try {
    return new URL(path, 'http://dashboard');
  } catch {
    return undefined;
  }
}

function hasSessionCookie(request: IncomingMessage): boolean {
  return cookie(request.headers.cookie, SESSION_COOKIE) !== undefined;
}

/** One cookie's value from a Cookie header. */
export function cookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const equals = part.indexOf('=');
    if (equals !== -1 && part.slice(0, equals).trim() === name) {
      const value = part.slice(equals + 1).trim();
      return value === '' ? undefined : value;
    }
  }
  return undefined;
}

/** A form posted from this dashboard's own pages: its Origin names the host the request went to. */
function sameOrigin(origin: string, request: IncomingMessage): boolean {
  const host = request.headers.host;
  if (host === undefined) return false;
  try {
    return new URL(origin).host === host;
  } catch {
    return false;
  }
}

/** The body as text, at most `maxBytes`; undefined when the client went away. */
function readSmallBody(
  request: IncomingMessage,
  maxBytes: number,
): Promise<{ readonly text: string } | 'too-large' | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (result: { readonly text: string } | 'too-large' | undefined): void => {
      if (done) return;
      done = true;
      resolve(result);
    };
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        request.pause();
        finish('too-large');
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      finish({ text: Buffer.concat(chunks).toString('utf8') });
    });
    request.on('error', () => {
      finish(undefined);
    });
    request.on('close', () => {
      finish(undefined);
    });
  });
}
