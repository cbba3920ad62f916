// The control-plane fixture against the real etcd + kube-apiserver v1.20 (docs/decisions.md D7). One control
// plane for the whole file; the tests run in order and the last one closes it.
/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment -- client-node's V1* models
   are behaviourless data classes; object literals are how its own examples build them. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import {
  AdmissionregistrationV1Api,
  ApiextensionsV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type KubeConfig,
} from '@kubernetes/client-node';
import { KubeConfigError, loadKubeConfig } from '../../src/adapters/kubernetes/kubeconfig.ts';
import {
  ControlPlaneBinariesError,
  generateServingCert,
  NUDGER_CRDS,
  startControlPlane,
  UnknownIdentityError,
  UPSTREAM_CRDS,
  type ControlPlane,
} from './harness/control-plane.ts';

const NS = 'harness-objects';
const NUDGE = { group: 'konflux-ci.dev', version: 'v1alpha1', plural: 'nudgeconfigs' } as const;
const COMPONENT = { group: 'appstudio.redhat.com', version: 'v1alpha1', plural: 'components' } as const;

/**
 * What a refused client-node call tells: the HTTP status and the Status message of an
 * ApiException, or the transport error code (ECONNREFUSED, ...) when no response arrived.
 */
function apiFailure(error: unknown): { code: number | undefined; message: string } {
  const fields = error as { code?: unknown; body?: unknown; message?: unknown; cause?: { code?: unknown } };
  if (typeof fields.code === 'number') {
    let message = String(fields.body);
    try {
      const status = JSON.parse(message) as { message?: unknown };
      if (typeof status.message === 'string') message = status.message;
    } catch {
      // not JSON: keep the raw body
    }
    return { code: fields.code, message };
  }
  return { code: undefined, message: `${String(fields.message)} (${String(fields.cause?.code)})` };
}

async function refused(promise: Promise<unknown>): Promise<{ code: number | undefined; message: string }> {
  try {
    await promise;
  } catch (error) {
    return apiFailure(error);
  }
  assert.fail('the request was expected to be refused');
}

/** Running, as opposed to gone or a zombie waiting for a parent to reap it. */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z /.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

async function namespaces(kc: KubeConfig): Promise<string[]> {
  const list = await kc.makeApiClient(CoreV1Api).listNamespace();
  return list.items.map((ns) => ns.metadata?.name ?? '');
}

describe('local control plane (etcd + kube-apiserver v1.20)', () => {
  let cp: ControlPlane;
  const figures: string[] = [];

  before(async () => {
    const started = performance.now();
    cp = await startControlPlane({
      crds: [...NUDGER_CRDS, UPSTREAM_CRDS.components],
      users: [{ name: 'carol', groups: ['team-a'] }],
    });
    figures.push(`start incl. 2 CRDs: ${Math.round(performance.now() - started)} ms`);
  });

  after(async () => {
    await (cp as ControlPlane | undefined)?.close(); // undefined when before() failed
    for (const figure of figures) console.log(`# control plane ${figure}`);
  });

  it('serves v1.20 to the admin kubeconfig (object and file), and RBAC applies to other identities', async () => {
    assert.equal(cp.version, 'v1.20.2');
    assert.match(cp.server, /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.ok((await namespaces(cp.kubeConfig)).includes('default'));
    const fromFile = loadKubeConfig({ kubeconfigPath: cp.kubeconfigPath, env: {} });
    assert.equal(fromFile.source, 'flag');
    assert.ok((await namespaces(fromFile.kubeConfig)).includes('kube-system'));

    // nudger-manager has no groups: authenticated (403, not 401) but RBAC grants it nothing yet.
    const denied = await refused(namespaces(cp.tokenFor('nudger-manager')));
    assert.equal(denied.code, 403);
    assert.match(denied.message, /User "nudger-manager" cannot list resource "namespaces"/);
    assert.equal((await refused(namespaces(cp.tokenFor('carol', ['team-a'])))).code, 403);
    assert.throws(() => cp.tokenFor('carol', ['team-b']), UnknownIdentityError);
    assert.throws(
      () => cp.tokenFor('mallory'),
      /no token for user mallory; available: nudger-admin \[system:masters\]/,
    );
  });

  it('stores a Component (upstream CRD) and a NudgeConfig (ours); the list-map refuses a duplicate (from, to)', async () => {
    await cp.kubeConfig.makeApiClient(CoreV1Api).createNamespace({ body: { metadata: { name: NS } } });
    const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
    await custom.createNamespacedCustomObject({
      ...COMPONENT,
      namespace: NS,
      body: {
        apiVersion: 'appstudio.redhat.com/v1alpha1',
        kind: 'Component',
        metadata: { name: 'api' },
        spec: {
          componentName: 'api',
          application: 'shop',
          source: { git: { url: 'https://git.example.com/shop/api' } },
          'build-nudges-ref': ['web'],
        },
      },
    });
    const nudge = (nudges: { from: string; to: string }[]) => ({
      apiVersion: 'konflux-ci.dev/v1alpha1',
      kind: 'NudgeConfig',
      metadata: { name: 'nudge-config', namespace: NS },
      spec: { nudges },
    });
    const created = (await custom.createNamespacedCustomObject({
      ...NUDGE,
      namespace: NS,
      body: nudge([{ from: 'api', to: 'web' }]),
    })) as { metadata: { resourceVersion: string }; spec: { nudges: { mode?: string }[] } };
    assert.equal(created.spec.nudges[0]?.mode, 'immediate', 'the structural default was applied');
    const { resourceVersion } = created.metadata;

    const duplicate = await refused(
      custom.replaceNamespacedCustomObject({
        ...NUDGE,
        namespace: NS,
        name: 'nudge-config',
        body: {
          ...nudge([
            { from: 'api', to: 'web' },
            { from: 'api', to: 'web' },
          ]),
          metadata: { name: 'nudge-config', namespace: NS, resourceVersion },
        },
      }),
    );
    assert.equal(duplicate.code, 422);
    assert.match(
      duplicate.message,
      /spec\.nudges\[1\]: Duplicate value: map\[string\]interface \{\}\{"from":"api", "to":"web"\}/,
    );

    // v1.20 has no CEL: the singleton-name rule is NOT enforced here (the webhook must do it).
    await custom.createNamespacedCustomObject({
      ...NUDGE,
      namespace: NS,
      body: { ...nudge([]), metadata: { name: 'other' } },
    });
  });

  it('keeps every object across a kube-apiserver restart: etcd keeps running, same port and CA', async () => {
    const stopped = performance.now();
    await cp.stopApiServer();
    const stopMs = performance.now() - stopped;
    const down = await refused(namespaces(cp.kubeConfig));
    assert.equal(down.code, undefined, 'no HTTP answer while the apiserver is down');
    assert.match(down.message, /ECONNREFUSED/);

    const started = performance.now();
    await cp.startApiServer();
    figures.push(`stop: ${Math.round(stopMs)} ms, start again: ${Math.round(performance.now() - started)} ms`);

    const custom = cp.kubeConfig.makeApiClient(CustomObjectsApi);
    const component = (await custom.getNamespacedCustomObject({ ...COMPONENT, namespace: NS, name: 'api' })) as {
      spec: Record<string, unknown>;
    };
    assert.deepEqual(component.spec['build-nudges-ref'], ['web']);
    const config = (await custom.getNamespacedCustomObject({ ...NUDGE, namespace: NS, name: 'nudge-config' })) as {
      spec: unknown;
    };
    assert.deepEqual(config.spec, { nudges: [{ from: 'api', to: 'web', mode: 'immediate' }] });

    const restarted = performance.now();
    await cp.restartApiServer();
    figures.push(`restartApiServer(): ${Math.round(performance.now() - restarted)} ms`);
    assert.ok((await namespaces(cp.kubeConfig)).includes(NS));
  });

  it('installs every upstream CRD (adapted for v1.20), idempotently, and serves them', async () => {
    const started = performance.now();
    await cp.installCrds([...Object.values(UPSTREAM_CRDS), ...NUDGER_CRDS]);
    figures.push(
      `install all ${Object.keys(UPSTREAM_CRDS).length + NUDGER_CRDS.length} CRD files: ${Math.round(performance.now() - started)} ms`,
    );
    await cp.installCrds(NUDGER_CRDS);

    const crds = await cp.kubeConfig.makeApiClient(ApiextensionsV1Api).listCustomResourceDefinition();
    assert.deepEqual(crds.items.map((crd) => crd.metadata?.name).sort(), [
      'applications.appstudio.redhat.com',
      'builderinfos.korifi.cloudfoundry.org',
      'builders.kpack.io',
      'builds.kpack.io',
      'buildworkloads.korifi.cloudfoundry.org',
      'cfapps.korifi.cloudfoundry.org',
      'cfbuilds.korifi.cloudfoundry.org',
      'cfpackages.korifi.cloudfoundry.org',
      'cfprocesses.korifi.cloudfoundry.org',
      'changegroups.appstudio.redhat.com',
      'clusterbuilders.kpack.io',
      'clusterstacks.kpack.io',
      'clusterstores.kpack.io',
      'componentgroups.appstudio.redhat.com',
      'components.appstudio.redhat.com',
      'images.kpack.io',
      'nudgeconfigs.appstudio.redhat.com',
      'nudgeconfigs.konflux-ci.dev',
      'pipelineruns.tekton.dev',
      'releaseplanadmissions.appstudio.redhat.com',
      'snapshots.appstudio.redhat.com',
    ]);
    // Served right away: the Tekton v1 PipelineRun (the CRD that needed its "" defaults dropped).
    const run = (await cp.kubeConfig.makeApiClient(CustomObjectsApi).createNamespacedCustomObject({
      group: 'tekton.dev',
      version: 'v1',
      plural: 'pipelineruns',
      namespace: NS,
      body: {
        apiVersion: 'tekton.dev/v1',
        kind: 'PipelineRun',
        metadata: { name: 'build-api', labels: { 'appstudio.openshift.io/component': 'api' } },
        spec: { pipelineRef: { name: 'docker-build' } },
      },
    })) as { metadata: { uid?: string } };
    assert.ok(run.metadata.uid);
  });

  it('kube-apiserver calls an https webhook served with generateServingCert (SAN 127.0.0.1)', async () => {
    const cert = generateServingCert(['127.0.0.1']);
    const seen: string[] = [];
    const server: Server = createServer({ cert: cert.certPem, key: cert.keyPem }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          request: { uid: string; operation: string; namespace: string; name: string };
        };
        const { uid, name, namespace, operation } = review.request;
        // The apiserver appends ?timeout=10s to the registered URL.
        seen.push(`${new URL(req.url ?? '/', 'https://webhook').pathname} ${operation} ${namespace}/${name}`);
        const allowed = name !== 'deny-me';
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            apiVersion: 'admission.k8s.io/v1',
            kind: 'AdmissionReview',
            response: {
              uid,
              allowed,
              ...(allowed ? {} : { status: { code: 403, message: `${name} is on the deny list` } }),
            },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as { port: number };
    const core = cp.kubeConfig.makeApiClient(CoreV1Api);
    const admission = cp.kubeConfig.makeApiClient(AdmissionregistrationV1Api);
    const ns = 'harness-webhook';
    try {
      // v1.20 does not label namespaces with kubernetes.io/metadata.name yet (1.21+): label our own.
      await core.createNamespace({ body: { metadata: { name: ns, labels: { 'nudger.test/webhook': 'on' } } } });
      await admission.createValidatingWebhookConfiguration({
        body: {
          metadata: { name: 'harness-deny-me' },
          webhooks: [
            {
              name: 'deny-me.harness.nudger.test',
              clientConfig: {
                url: `https://127.0.0.1:${port}/validate`,
                caBundle: Buffer.from(cert.caPem).toString('base64'),
              },
              rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
              namespaceSelector: { matchLabels: { 'nudger.test/webhook': 'on' } },
              admissionReviewVersions: ['v1'],
              sideEffects: 'None',
              failurePolicy: 'Fail',
              timeoutSeconds: 10,
            },
          ],
        },
      });
      // The apiserver picks a new configuration up from its own informer, a moment after the create:
      // write harmless ConfigMaps until one reaches the webhook (bounded in count, not in time).
      let active = false;
      for (let attempt = 0; attempt < 200 && !active; attempt++) {
        await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: `warm-up-${attempt}` } } });
        active = seen.some((line) => line.endsWith(`/warm-up-${attempt}`));
        if (!active) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(active, 'the webhook never received a request');

      const denial = await refused(
        core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'deny-me' } } }),
      );
      assert.equal(denial.code, 403);
      assert.match(
        denial.message,
        /admission webhook "deny-me\.harness\.nudger\.test" denied the request: deny-me is on the deny list/,
      );
      assert.ok(seen.includes(`/validate CREATE ${ns}/deny-me`), seen.join('\n'));
      await core.createNamespacedConfigMap({ namespace: ns, body: { metadata: { name: 'allow-me' } } });
      assert.ok(seen.includes(`/validate CREATE ${ns}/allow-me`));
    } finally {
      await admission.deleteValidatingWebhookConfiguration({ name: 'harness-deny-me' }).catch(() => undefined);
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('loadKubeConfig: in-cluster (mounted token and CA) reaches the apiserver, before KUBECONFIG', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nudger-sa-'));
    try {
      const admin = cp.kubeConfig.getCurrentUser()!;
      writeFileSync(join(dir, 'token'), admin.token!);
      writeFileSync(join(dir, 'ca.crt'), cp.caPem);
      writeFileSync(join(dir, 'namespace'), `${NS}\n`);
      const url = new URL(cp.server);
      const loaded = loadKubeConfig({
        env: { KUBERNETES_SERVICE_HOST: url.hostname, KUBERNETES_SERVICE_PORT: url.port, KUBECONFIG: '/nonexistent' },
        serviceAccountDir: dir,
      });
      assert.equal(loaded.source, 'in-cluster');
      assert.equal(loaded.namespace, NS);
      assert.ok((await namespaces(loaded.kubeConfig)).includes(NS));

      const viaEnv = loadKubeConfig({
        env: { KUBECONFIG: `/nonexistent:${cp.kubeconfigPathFor('alice')}` },
        serviceAccountDir: dir,
      });
      assert.equal(viaEnv.source, 'KUBECONFIG');
      assert.equal(viaEnv.kubeConfig.getCurrentUser()?.name, 'alice');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('close() stops both servers, removes the directory, and can be called again', async () => {
    const server = cp.server;
    const { etcd, apiServer } = cp.pids;
    assert.ok(etcd !== undefined && apiServer !== undefined && running(etcd) && running(apiServer));
    await cp.close();
    assert.deepEqual(cp.pids, { etcd: undefined, apiServer: undefined });
    assert.equal(running(etcd) || running(apiServer), false);
    await cp.close();
    assert.equal(existsSync(cp.directory), false);
    const down = await refused(namespaces(cp.kubeConfig));
    assert.match(down.message, /ECONNREFUSED/, `${server} still answers`);
    assert.ok(
      !(await fetch(`${cp.etcdEndpoint}/health`).then(
        () => true,
        () => false,
      )),
      'etcd still answers',
    );
  });
});

describe('a control plane nobody closes', () => {
  it('dies with the test process: no server outlives it, the temp dir is removed', async () => {
    const probe = join(import.meta.dirname, 'harness', 'leak-probe.ts');
    const { stdout } = await promisify(execFile)(process.execPath, [probe], { timeout: 120_000 });
    const left = JSON.parse(stdout) as { directory: string; pids: { etcd: number; apiServer: number } };
    assert.ok(left.pids.etcd > 0 && left.pids.apiServer > 0, stdout);
    // SIGKILL is delivered asynchronously: poll a bounded number of times (not a timed assertion).
    for (let attempt = 0; attempt < 100 && (running(left.pids.etcd) || running(left.pids.apiServer)); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.equal(running(left.pids.etcd), false, `etcd (pid ${left.pids.etcd}) outlived the test process`);
    assert.equal(running(left.pids.apiServer), false, `kube-apiserver (pid ${left.pids.apiServer}) outlived it`);
    assert.equal(existsSync(left.directory), false, `${left.directory} was left behind`);
  });
});

describe('control plane binaries', () => {
  it('fails (never skips) with a clear error when the directory lacks the binaries', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nudger-no-binaries-'));
    try {
      await assert.rejects(startControlPlane({ binDirectory: dir }), (error: unknown) => {
        assert.ok(error instanceof ControlPlaneBinariesError);
        assert.equal(error.directory, dir);
        assert.match(error.message, /etcd not found.*KUBEBUILDER_ASSETS.*provision-control-plane\.sh/s);
        return true;
      });
      writeFileSync(join(dir, 'etcd'), '#!/bin/sh\n');
      chmodSync(join(dir, 'etcd'), 0o755);
      writeFileSync(join(dir, 'kube-apiserver'), 'not a program');
      await assert.rejects(startControlPlane({ binDirectory: dir }), /kube-apiserver is not executable/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reports a server that exits at start with the tail of its log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nudger-bad-binaries-'));
    try {
      for (const name of ['etcd', 'kube-apiserver']) {
        writeFileSync(join(dir, name), `#!/bin/sh\necho "${name}: pretending to fail" >&2\nexit 3\n`);
        chmodSync(join(dir, name), 0o755);
      }
      await assert.rejects(
        startControlPlane({ binDirectory: dir }),
        /etcd did not start: exited with code 3\. Last lines of .*etcd\.log:\netcd: pretending to fail/,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('loadKubeConfig without a cluster', () => {
  it('names the missing explicit file, the missing KUBECONFIG list, and where it looked when nothing exists', () => {
    assert.throws(() => loadKubeConfig({ kubeconfigPath: '/nonexistent/kubeconfig' }), {
      name: 'KubeConfigError',
      message: 'kubeconfig /nonexistent/kubeconfig: cannot load: no such file or directory',
    });
    assert.throws(
      () => loadKubeConfig({ env: { KUBECONFIG: '/nonexistent/a' } }),
      /kubeconfig \/nonexistent\/a: no such file/,
    );
    const home = mkdtempSync(join(tmpdir(), 'nudger-home-'));
    try {
      assert.throws(
        () =>
          loadKubeConfig({
            env: { KUBERNETES_SERVICE_HOST: '10.0.0.1', KUBERNETES_SERVICE_PORT: '443' },
            serviceAccountDir: home,
            homeDir: home,
          }),
        (error: unknown) =>
          error instanceof KubeConfigError &&
          /not running in a cluster.*KUBECONFIG is unset.*pass --kubeconfig/.test(error.message),
      );
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('selects a named context and refuses an unknown one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'nudger-kc-'));
    try {
      mkdirSync(join(dir, '.kube'));
      const file = join(dir, '.kube', 'config');
      writeFileSync(
        file,
        [
          'apiVersion: v1',
          'kind: Config',
          'clusters: [{name: c, cluster: {server: "https://10.1.2.3:6443"}}]',
          'users: [{name: u, user: {token: t}}]',
          'contexts: [{name: one, context: {cluster: c, user: u}}, {name: two, context: {cluster: c, user: u, namespace: ns2}}]',
          'current-context: one',
          '',
        ].join('\n'),
      );
      const loaded = loadKubeConfig({ kubeconfigPath: file, context: 'two' });
      assert.equal(loaded.kubeConfig.getCurrentContext(), 'two');
      assert.equal(loaded.namespace, 'ns2');
      const fromHome = loadKubeConfig({ homeDir: dir, env: {}, serviceAccountDir: dir });
      assert.deepEqual(
        [fromHome.source, fromHome.location, fromHome.kubeConfig.getCurrentContext()],
        ['home', file, 'one'],
      );
      assert.throws(() => loadKubeConfig({ kubeconfigPath: file, context: 'three' }), /no context named three/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
