// The dashboard server on its own (docs/decisions.md D14, N46), with stand-in views and data:
// routes, 404/405, the security headers on every answer, sign-in in both modes, request limits,
// the event stream's framing, coalescing and cap. The real views have their own tests
// (test/domain/dashboard/); the real cluster is in test/integration/dashboard-server.test.ts.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import {
  KubernetesDashboardAuthorizer,
  TokenDashboardAuthorizer,
  type DashboardAuthorizer,
} from '../../src/dashboard/auth.ts';
import { sseMessage } from '../../src/dashboard/live.ts';
import {
  DashboardServer,
  SECURITY_HEADERS,
  viewPath,
  viewRoute,
  type DashboardViews,
} from '../../src/dashboard/server.ts';
import type { ChangeSource, DashboardData } from '../../src/dashboard/snapshots.ts';
import { html, joinHtml } from '../../src/domain/dashboard/html.ts';
import type { KorifiSnapshot, NamespaceSnapshot } from '../../src/domain/dashboard/inputs.ts';
import type { InformerHandlers } from '../../src/runtime/informer.ts';
import { createLogger } from '../../src/runtime/logger.ts';
import {
  ReviewUnavailableError,
  type AccessAttributes,
  type AccessReviewer,
  type ReviewedUser,
} from '../../src/runtime/access-review.ts';
import { buildNamespaceGraph } from '../../src/domain/graph.ts';

const TOKEN = 'sandbox-token-1f2e3d';
const logger = createLogger({ level: 'silent' });

/** A cache that changes when the test says so. */
class ManualSource implements ChangeSource {
  readonly #handlers = new Set<InformerHandlers<KubeObject>>();
  addHandlers(handlers: InformerHandlers<KubeObject>): () => void {
    this.#handlers.add(handlers);
    return () => this.#handlers.delete(handlers);
  }
  change(): void {
    for (const handlers of this.#handlers) handlers.update?.({}, {}, { initialList: false });
  }
  get subscribers(): number {
    return this.#handlers.size;
  }
}

/** Namespaces with a component count the test sets. */
class FakeData implements DashboardData {
  readonly korifi: boolean;
  readonly source = new ManualSource();
  readonly sources = [this.source];
  readonly counts = new Map<string, number>([
    ['team-a', 1],
    ['team-b', 2],
  ]);
  constructor(korifi = false) {
    this.korifi = korifi;
  }
  namespaces(): readonly string[] {
    return [...this.counts.keys()];
  }
  namespace(name: string): NamespaceSnapshot {
    const count = this.counts.get(name) ?? 0;
    const components = Array.from({ length: count }, (_, i) => ({
      metadata: { name: `c${String(i)}`, namespace: name },
    })) as unknown as NamespaceSnapshot['components'];
    return {
      namespace: name,
      components,
      nudgeConfig: undefined,
      graph: buildNamespaceGraph(name, { components: [], nudgeConfigs: [] }),
      changeGroups:
        name === 'team-a' ? ([{ metadata: { name: 'cg-1' } }] as unknown as NamespaceSnapshot['changeGroups']) : [],
      buildRuns: [],
      nudgeRuns: [],
    };
  }
  korifiSpaces(): readonly string[] {
    return ['space-1'];
  }
  korifiSpace(name: string): KorifiSnapshot {
    return { namespace: name, apps: [], builds: [], buildWorkloads: [], images: [], builders: [], clusterBuilders: [] };
  }
}

let graphRenders = 0;

/** The html tag under a name the formatter leaves alone: the stand-in's line breaks are the test's. */
const markup = html;

/** Each view says what it rendered, with its (escaped) inputs, over several lines. */
const VIEWS: DashboardViews = {
  page: (frame) =>
    html`<!doctype html><title>${frame.title}</title>
      <main id="view" data-live="${frame.live}">${frame.main}</main>`,
  notFound: (what) =>
    html`<!doctype html>
      <p>not found: ${what}</p>`,
  loginForm: (error) =>
    html`<!doctype html>
      <form method="post" action="/login">${error}</form>`,
  // One line per namespace (joined by a newline, whatever the formatter does to the template).
  namespaces: (snapshots) =>
    markup`<ul>${joinHtml(
      snapshots.map((s) => markup`<li>${s.namespace}: ${s.components.length}</li>`),
      '\n',
    )}</ul>`,
  graph: (snapshot, _context, selected) => {
    graphRenders++;
    return html`<p>graph ${snapshot.namespace} ${snapshot.components.length} ${selected ?? '-'}</p>`;
  },
  changeGroups: (snapshot) => html`<p>changegroups ${snapshot.namespace}</p>`,
  changeGroup: (snapshot, name) =>
    snapshot.changeGroups.some((g) => g.metadata?.name === name)
      ? html`<p>changegroup ${snapshot.namespace}/${name}</p>`
      : undefined,
  nudges: (snapshot) => html`<p>nudges ${snapshot.namespace}</p>`,
  korifi: (spaces) => html`<p>korifi ${spaces.map((s) => s.namespace)}</p>`,
};

/** `tenant` may list ChangeGroups in team-a only; `reader` everywhere. */
class Reviewer implements AccessReviewer {
  down = false;
  user(token: string): Promise<ReviewedUser | undefined> {
    if (this.down) return Promise.reject(new ReviewUnavailableError('TokenReview', new Error('down')));
    return Promise.resolve(token === 'tenant' || token === 'reader' ? { username: token } : undefined);
  }
  allowed(user: ReviewedUser, attributes: AccessAttributes): Promise<boolean> {
    const namespace = 'resource' in attributes ? attributes.resource.namespace : undefined;
    return Promise.resolve(user.username === 'reader' || namespace === 'team-a');
  }
}

async function started(
  authorizer: DashboardAuthorizer,
  data = new FakeData(),
  extra: { maxLiveClients?: number } = {},
): Promise<{ server: DashboardServer; url: string; data: FakeData }> {
  const server = new DashboardServer({
    port: 0,
    authorizer,
    data,
    views: VIEWS,
    logger,
    coalesceMs: 5,
    ...extra,
  });
  const { port } = await server.start();
  return { server, url: `http://127.0.0.1:${String(port)}`, data };
}

function assertHeaders(response: Response): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    assert.equal(response.headers.get(name), value, `${name} on ${String(response.status)} ${response.url}`);
  }
}

async function fetchText(
  url: string,
  init: RequestInit = {},
): Promise<{ status: number; body: string; response: Response }> {
  const response = await fetch(url, { redirect: 'manual', ...init });
  const body = await response.text();
  assertHeaders(response);
  return { status: response.status, body, response };
}

const auth = (token: string): RequestInit => ({ headers: { authorization: `Bearer ${token}` } });

/** The `event: view` payloads of a stream, one at a time. */
class Events {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = '';
  constructor(response: Response) {
    assert.ok(response.body !== null);
    this.#reader = response.body.getReader();
  }
  async next(): Promise<string> {
    for (;;) {
      const end = this.#buffer.indexOf('\n\n');
      if (end !== -1) {
        const lines = this.#buffer.slice(0, end).split('\n');
        this.#buffer = this.#buffer.slice(end + 2);
        if (lines[0] !== 'event: view') continue;
        return lines
          .slice(1)
          .map((line) => line.replace(/^data: /, ''))
          .join('\n');
      }
      const { done, value } = await this.#reader.read();
      if (done) return '(ended)';
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }
  async close(): Promise<void> {
    await this.#reader.cancel();
  }
}

describe('viewRoute and viewPath', () => {
  it('reads every view path and writes it back the same', () => {
    const paths = [
      '/',
      '/korifi',
      '/ns/team-a/graph',
      '/ns/team-a/graph?component=front.end',
      '/ns/team-a/changegroups',
      '/ns/team-a/changegroups/cg-1',
      '/ns/team-a/nudges',
    ];
    for (const path of paths) {
      const url = new URL(path, 'http://x');
      const route = viewRoute(url.pathname, url.searchParams);
      assert.ok(route !== undefined, path);
      assert.equal(viewPath(route), path);
    }
  });

  it('refuses what is no view: other paths, invalid names, trailing slashes', () => {
    for (const path of [
      '/ns',
      '/ns/team-a',
      '/ns/team-a/graph/',
      '/ns/Team-A/graph',
      '/ns/team-a/secrets',
      '/ns/team-a/changegroups/UPPER',
      '/ns/team-a/graph?component=%3Cscript%3E',
      '/ns/%E0%A4%A/graph',
      '/events',
      '/ns/team-a/changegroups/a/b',
    ]) {
      const url = new URL(path, 'http://x');
      assert.equal(viewRoute(url.pathname, url.searchParams), undefined, path);
    }
  });
});

describe('sseMessage', () => {
  it('puts every line of the data on its own data: line, whatever the line ends', () => {
    assert.equal(sseMessage('view', 'a\nb\r\nc\rd'), 'event: view\ndata: a\ndata: b\ndata: c\ndata: d\n\n');
    assert.equal(sseMessage('view', ''), 'event: view\ndata: \n\n');
  });
});

describe('DashboardServer in token mode (the sandbox)', () => {
  let server: DashboardServer;
  let url: string;
  before(async () => {
    ({ server, url } = await started(new TokenDashboardAuthorizer(TOKEN), new FakeData(true)));
  });
  after(() => server.stop());

  it('serves each view to the token, with the security headers', async () => {
    const cases: [string, RegExp][] = [
      ['/', /<li>team-a: 1<\/li>/],
      ['/ns/team-a/graph', /graph team-a 1 -/],
      ['/ns/team-a/graph?component=c0', /graph team-a 1 c0/],
      ['/ns/team-a/changegroups', /changegroups team-a/],
      ['/ns/team-a/changegroups/cg-1', /changegroup team-a\/cg-1/],
      ['/ns/team-a/nudges', /nudges team-a/],
      ['/korifi', /korifi space-1/],
    ];
    for (const [path, expected] of cases) {
      const { status, body, response } = await fetchText(`${url}${path}`, auth(TOKEN));
      assert.equal(status, 200, path);
      assert.equal(response.headers.get('content-type'), 'text/html; charset=utf-8');
      assert.match(body, expected, path);
      assert.ok(body.includes(`data-live="${path.replace('&', '&amp;')}"`), path);
    }
  });

  it('answers 404 for anything else and for a ChangeGroup that does not exist', async () => {
    for (const path of ['/nope', '/ns/team-a/graph/', '/ns/team-a/changegroups/cg-2', '/assets/other.js']) {
      assert.equal((await fetchText(`${url}${path}`, auth(TOKEN))).status, 404, path);
    }
  });

  it('answers 405 to every method but GET (and POST /login): it is read-only', async () => {
    for (const [method, path] of [
      ['POST', '/'],
      ['PUT', '/ns/team-a/graph'],
      ['DELETE', '/ns/team-a/changegroups/cg-1'],
      ['PUT', '/login'],
      ['POST', '/events'],
    ] as const) {
      const { status, response } = await fetchText(`${url}${path}`, { method, ...auth(TOKEN) });
      assert.equal(status, 405, `${method} ${path}`);
      assert.ok(response.headers.get('allow')?.includes('GET'));
    }
  });

  it('refuses a request without the token, or with another: 401', async () => {
    assert.equal((await fetchText(`${url}/`)).status, 401);
    assert.equal((await fetchText(`${url}/ns/team-a/graph`, auth('guess'))).status, 401);
    assert.equal((await fetchText(`${url}/events?view=/`)).status, 401);
  });

  it('exchanges the token at /login?token= for an HttpOnly SameSite=Strict session cookie', async () => {
    const wrong = await fetchText(`${url}/login?token=guess`);
    assert.equal(wrong.status, 401);
    assert.equal(wrong.response.headers.get('set-cookie'), null);
    const right = await fetchText(`${url}/login?token=${TOKEN}`);
    assert.equal(right.status, 303);
    assert.equal(right.response.headers.get('location'), '/');
    const cookie = right.response.headers.get('set-cookie') ?? '';
    assert.match(cookie, /^nudger-session=[\w-]+; Path=\/; HttpOnly; SameSite=Strict$/);
    assert.ok(!cookie.includes(TOKEN));
    const page = await fetchText(`${url}/ns/team-a/nudges`, { headers: { cookie: cookie.split(';')[0] ?? '' } });
    assert.equal(page.status, 200);
    const stale = await fetchText(`${url}/`, { headers: { cookie: 'nudger-session=forgotten' } });
    assert.equal(stale.status, 401);
    assert.match(stale.response.headers.get('set-cookie') ?? '', /Max-Age=0/);
  });

  it('serves the assets to anyone, with their types', async () => {
    const script = await fetchText(`${url}/assets/dashboard.js`);
    assert.equal(script.status, 200);
    assert.equal(script.response.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.match(script.body, /EventSource/);
    const style = await fetchText(`${url}/assets/dashboard.css`);
    assert.equal(style.status, 200);
    assert.equal(style.response.headers.get('content-type'), 'text/css; charset=utf-8');
  });
});

describe('DashboardServer in kubernetes mode', () => {
  const reviewer = new Reviewer();
  let server: DashboardServer;
  let url: string;
  before(async () => {
    ({ server, url } = await started(new KubernetesDashboardAuthorizer({ reviewer, ttlMs: 0 })));
  });
  after(() => server.stop());

  it('sends a browser without credentials to /login, and answers 401 to the event stream and a bad bearer', async () => {
    const page = await fetchText(`${url}/ns/team-a/graph`);
    assert.equal(page.status, 303);
    assert.equal(page.response.headers.get('location'), '/login');
    assert.equal((await fetchText(`${url}/events?view=/ns/team-a/graph`)).status, 401);
    assert.equal((await fetchText(`${url}/ns/team-a/graph`, auth('forged'))).status, 401);
    const form = await fetchText(`${url}/login`);
    assert.equal(form.status, 200);
    assert.match(form.body, /<form method="post" action="\/login">/);
  });

  it('shows a namespace only to an identity that may list its ChangeGroups (403 otherwise)', async () => {
    assert.equal((await fetchText(`${url}/ns/team-a/graph`, auth('tenant'))).status, 200);
    const denied = await fetchText(`${url}/ns/team-b/graph`, auth('tenant'));
    assert.equal(denied.status, 403);
    assert.doesNotMatch(denied.body, /graph team-b/);
    assert.equal((await fetchText(`${url}/events?view=/ns/team-b/graph`, auth('tenant'))).status, 403);
    const list = await fetchText(`${url}/`, auth('tenant'));
    assert.match(list.body, /team-a/);
    assert.doesNotMatch(list.body, /team-b/);
    assert.match((await fetchText(`${url}/`, auth('reader'))).body, /team-b/);
  });

  it('answers 503 with Retry-After when the API server cannot review, never the page', async () => {
    reviewer.down = true;
    try {
      const page = await fetchText(`${url}/ns/team-a/graph`, auth('tenant'));
      assert.equal(page.status, 503);
      assert.equal(page.response.headers.get('retry-after'), '5');
      assert.match(page.body, /did not answer a TokenReview or SubjectAccessReview/);
      assert.doesNotMatch(page.body, /graph team-a/);
      const login = await fetchText(`${url}/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'token=tenant',
      });
      assert.equal(login.status, 503);
    } finally {
      reviewer.down = false;
    }
  });

  it('signs in by POST /login, and keeps the sign-in form small and same-site', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const signIn = await fetchText(`${url}/login`, { method: 'POST', headers: form, body: 'token=tenant' });
    assert.equal(signIn.status, 303);
    const cookie = (signIn.response.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    assert.equal((await fetchText(`${url}/ns/team-a/nudges`, { headers: { cookie } })).status, 200);
    const wrong = await fetchText(`${url}/login`, { method: 'POST', headers: form, body: 'token=forged' });
    assert.equal(wrong.status, 401);
    assert.doesNotMatch(wrong.body, /forged/);
    const big = await fetchText(`${url}/login`, { method: 'POST', headers: form, body: `token=${'x'.repeat(5000)}` });
    assert.equal(big.status, 413);
    const json = await fetchText(`${url}/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"token":"tenant"}',
    });
    assert.equal(json.status, 415);
    const elsewhere = await fetchText(`${url}/login`, {
      method: 'POST',
      headers: { ...form, origin: 'https://evil.example' },
      body: 'token=tenant',
    });
    assert.equal(elsewhere.status, 403);
    // Only the sandbox's token may travel in a URL.
    assert.equal((await fetchText(`${url}/login?token=tenant`)).status, 400);
  });
});

describe('the event stream', () => {
  it('sends the view at once, then a new fragment after a change, and nothing for a change that renders the same', async () => {
    const { server, url, data } = await started(new TokenDashboardAuthorizer(TOKEN));
    try {
      const response = await fetch(`${url}/events?view=${encodeURIComponent('/')}`, auth(TOKEN));
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      assertHeaders(response);
      const events = new Events(response);
      const first = await events.next();
      assert.equal(first, '<ul><li>team-a: 1</li>\n<li>team-b: 2</li></ul>');
      // A change that renders the same HTML sends nothing; the next event is the real change.
      data.source.change();
      await new Promise((resolve) => setTimeout(resolve, 30));
      data.counts.set('team-c', 3);
      data.source.change();
      assert.equal(await events.next(), '<ul><li>team-a: 1</li>\n<li>team-b: 2</li>\n<li>team-c: 3</li></ul>');
      await events.close();
    } finally {
      await server.stop();
    }
  });

  it('refuses a stream past the cap with 503, and a view that does not exist with 404', async () => {
    const { server, url } = await started(new TokenDashboardAuthorizer(TOKEN), new FakeData(), { maxLiveClients: 1 });
    try {
      const before = graphRenders;
      const open = await fetch(`${url}/events?view=/ns/team-a/graph`, auth(TOKEN));
      assert.equal(open.status, 200);
      const events = new Events(open);
      assert.equal(await events.next(), '<p>graph team-a 1 -</p>');
      assert.equal(graphRenders - before, 1, 'the render that authorized the stream is its first message');
      const refused = await fetchText(`${url}/events?view=/ns/team-a/graph`, auth(TOKEN));
      assert.equal(refused.status, 503);
      assert.equal(refused.response.headers.get('retry-after'), '5');
      for (const view of ['/nope', '//evil.example/', '/events', 'ns/team-a/graph', '/korifi']) {
        const answer = await fetchText(`${url}/events?view=${encodeURIComponent(view)}`, auth(TOKEN));
        assert.equal(answer.status, 404, view);
      }
      await events.close();
    } finally {
      await server.stop();
    }
  });

  it('ends its streams and stops following the caches on stop', async () => {
    const { server, url, data } = await started(new TokenDashboardAuthorizer(TOKEN));
    assert.equal(data.source.subscribers, 1);
    const response = await fetch(`${url}/events?view=/`, auth(TOKEN));
    const events = new Events(response);
    await events.next();
    await server.stop();
    assert.equal(await events.next(), '(ended)');
    assert.equal(data.source.subscribers, 0);
  });
});
