// The dashboard served by `nudger manager` on a real kube-apiserver with RBAC (issue 14, D14,
// docs/decisions.md N46): a ServiceAccount's own token (TokenRequest) bound to `list changegroups`
// in one namespace sees that namespace (200) and not another (403); no token and a forged token are
// refused; a session cookie from POST /login works like the bearer; the live stream sends a new
// `<main>` fragment once a Component is created; every answer carries the security headers.
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { COMPONENTS, NAMESPACES, SERVICE_ACCOUNTS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import { SECURITY_HEADERS } from '../../src/dashboard/server.ts';
import { NUDGER_CRDS, UPSTREAM_CRDS, startControlPlane, type ControlPlane } from './harness/control-plane.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';

const ROLES: ResourceRef = {
  group: 'rbac.authorization.k8s.io',
  version: 'v1',
  plural: 'roles',
  kind: 'Role',
  namespaced: true,
};
const ROLE_BINDINGS: ResourceRef = { ...ROLES, plural: 'rolebindings', kind: 'RoleBinding' };
const ALLOWED = 'team-allowed';
const DENIED = 'team-denied';
const VIEWER = 'dashboard-viewer';

let plane: ControlPlane;
let admin: KubeClient;
let manager: TestManager;
let token: string;
const log: string[] = [];

function base(): string {
  return `http://127.0.0.1:${String(manager.dashboardPort)}`;
}

function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${base()}${path}`, { headers, redirect: 'manual' });
}

function bearer(value: string): Record<string, string> {
  return { authorization: `Bearer ${value}` };
}

function assertSecurityHeaders(response: Response): void {
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) {
    assert.equal(response.headers.get(name), value, `${name} on ${response.url} (${String(response.status)})`);
  }
}

before(async () => {
  plane = await startControlPlane({ crds: [UPSTREAM_CRDS.components, UPSTREAM_CRDS.pipelineRuns, ...NUDGER_CRDS] });
  admin = new KubeClient(plane.kubeConfig);
  for (const name of [ALLOWED, DENIED]) {
    await admin.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
  // Something to see in the namespace the viewer may not see.
  await admin.create(COMPONENTS, component(DENIED, 'hidden'));
  await admin.create(SERVICE_ACCOUNTS, {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: { name: VIEWER, namespace: ALLOWED },
  });
  await admin.create(ROLES, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'changegroup-reader', namespace: ALLOWED },
    rules: [{ apiGroups: ['appstudio.redhat.com'], resources: ['changegroups'], verbs: ['list'] }],
  } as KubeObject);
  await admin.create(ROLE_BINDINGS, {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: { name: 'changegroup-reader', namespace: ALLOWED },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'changegroup-reader' },
    subjects: [{ kind: 'ServiceAccount', name: VIEWER, namespace: ALLOWED }],
  } as KubeObject);
  // The ServiceAccount's own token, as `kubectl create token` gets it.
  const issued = await admin.http.json<{ status?: { token?: string } }>(
    {
      method: 'POST',
      path: `/api/v1/namespaces/${ALLOWED}/serviceaccounts/${VIEWER}/token`,
      body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
    },
    { verb: 'create', resource: 'serviceaccounts/token', namespace: ALLOWED, name: VIEWER },
  );
  token = issued.status?.token ?? '';
  assert.notEqual(token, '', 'TokenRequest gave no token');
  manager = await startTestManager(plane.kubeConfig, {
    logLevel: 'debug',
    logDestination: new Writable({
      write(chunk: Buffer, _encoding, callback) {
        log.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        callback();
      },
    }),
    overrides: { dashboard: { port: 0, host: '127.0.0.1', auth: { mode: 'kubernetes' } } },
  });
});

after(async () => {
  // Each may be missing when `before` failed part way.
  await (manager as TestManager | undefined)?.stop();
  (admin as KubeClient | undefined)?.close();
  await (plane as ControlPlane | undefined)?.close();
});

function component(namespace: string, name: string): KubeObject {
  return {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { name, namespace },
    spec: {
      componentName: name,
      application: 'app',
      source: { git: { url: `https://git.example.com/${name}` } },
    },
  } as KubeObject;
}

/** Reads server-sent events from a response body, one `event: view` data payload at a time. */
class EventReader {
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;
  readonly #decoder = new TextDecoder();
  #buffer = '';

  constructor(response: Response) {
    assert.ok(response.body !== null);
    this.#reader = response.body.getReader();
  }

  async nextView(): Promise<string> {
    for (;;) {
      const end = this.#buffer.indexOf('\n\n');
      if (end !== -1) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const lines = block.split('\n');
        if (!lines.includes('event: view')) continue;
        return lines
          .filter((line) => line.startsWith('data: '))
          .map((line) => line.slice('data: '.length))
          .join('\n');
      }
      const { done, value } = await this.#reader.read();
      if (done) throw new Error('the event stream ended');
      this.#buffer += this.#decoder.decode(value, { stream: true });
    }
  }

  async cancel(): Promise<void> {
    await this.#reader.cancel();
  }
}

describe('nudger manager --dashboard-port (kubernetes auth)', () => {
  it('shows a namespace to a token allowed to list its ChangeGroups, 403 for another namespace', async () => {
    const allowed = await get(`/ns/${ALLOWED}/nudges`, bearer(token));
    assert.equal(allowed.status, 200);
    assert.match(allowed.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(await allowed.text(), /<main id="view" data-live="\/ns\/team-allowed\/nudges">/);
    assertSecurityHeaders(allowed);
    const denied = await get(`/ns/${DENIED}/nudges`, bearer(token));
    assert.equal(denied.status, 403);
    assert.doesNotMatch(await denied.text(), /hidden/);
    assertSecurityHeaders(denied);
  });

  it('lists only the namespaces the token may see', async () => {
    const page = await get('/', bearer(token));
    assert.equal(page.status, 200);
    const body = await page.text();
    assert.doesNotMatch(body, new RegExp(DENIED));
  });

  it('refuses a request without a token and one with a forged token', async () => {
    const page = await get(`/ns/${ALLOWED}/nudges`);
    assert.equal(page.status, 303);
    assert.equal(page.headers.get('location'), '/login');
    assertSecurityHeaders(page);
    const events = await get(`/events?view=/ns/${ALLOWED}/nudges`);
    assert.equal(events.status, 401);
    assertSecurityHeaders(events);
    // A well-formed JWT no key of this API server signed.
    const [header = '', payload = ''] = token.split('.');
    const forged = `${header}.${payload}.${Buffer.from('not the signature').toString('base64url')}`;
    const forgedPage = await get(`/ns/${ALLOWED}/nudges`, bearer(forged));
    assert.equal(forgedPage.status, 401);
    assert.equal((await get('/', bearer('not-a-token'))).status, 401);
    const login = await fetch(`${base()}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: forged }).toString(),
    });
    assert.equal(login.status, 401);
    assert.equal(login.headers.get('set-cookie'), null);
  });

  it('signs in with POST /login: the session cookie stands for the token', async () => {
    const login = await fetch(`${base()}/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }).toString(),
    });
    assert.equal(login.status, 303);
    assert.equal(login.headers.get('location'), '/');
    const setCookie = login.headers.get('set-cookie') ?? '';
    assert.match(setCookie, /HttpOnly/);
    assert.match(setCookie, /SameSite=Strict/);
    assert.ok(!setCookie.includes(token), 'the cookie carries the token');
    const cookie = setCookie.split(';')[0] ?? '';
    assert.equal((await get(`/ns/${ALLOWED}/nudges`, { cookie })).status, 200);
    assert.equal((await get(`/ns/${DENIED}/nudges`, { cookie })).status, 403);
  });

  it('streams a new fragment of the namespaces view once a Component is created', async () => {
    const response = await get('/events?view=/', bearer(token));
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
    assertSecurityHeaders(response);
    const events = new EventReader(response);
    try {
      const first = await events.nextView();
      assert.doesNotMatch(first, new RegExp(ALLOWED));
      await admin.create(COMPONENTS, component(ALLOWED, 'frontend'));
      const next = await events.nextView();
      assert.notEqual(next, first);
      assert.match(next, new RegExp(ALLOWED));
      assert.doesNotMatch(next, new RegExp(DENIED));
    } finally {
      await events.cancel();
    }
  });

  it('streams the nudge graph again, with the new Component, once it is created', async () => {
    const response = await get(`/events?view=/ns/${ALLOWED}/graph`, bearer(token));
    assert.equal(response.status, 200);
    const events = new EventReader(response);
    try {
      const first = await events.nextView();
      assert.doesNotMatch(first, /backend-service/);
      await admin.create(COMPONENTS, component(ALLOWED, 'backend-service'));
      const next = await events.nextView();
      assert.match(next, /<svg/);
      assert.match(next, /backend-service/);
    } finally {
      await events.cancel();
    }
    const page = await get(`/ns/${ALLOWED}/graph?component=backend-service`, bearer(token));
    assert.equal(page.status, 200);
    assertSecurityHeaders(page);
    assert.match(await page.text(), /backend-service/);
  });

  it('writes no token to any log line', () => {
    assert.ok(log.length > 0, 'the manager logged nothing');
    assert.deepEqual(
      log.filter((line) => line.includes(token) || line.includes(token.split('.')[2] ?? token)),
      [],
    );
  });
});
