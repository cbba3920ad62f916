// No credential of a nudge reaches a log line, an Event, a status, the build's marker or a
// PipelineRun (issue 10, "No token in logs at debug level"; docs/decisions.md D9, N22-N24). The
// manager runs at debug level with the dispatcher on and its real executors (managerExecutors:
// `direct` and `renovate` over the same forges and credentials as ChangeGroups) against a real
// kube-apiserver and the GitHub emulator, every log line captured. Each tenant nudges from a
// succeeded, D3-valid push build of `operand`:
// - an SCM-Secret tenant, `direct`: its token, raw, base64 and as git's Basic credential;
// - a GitHub App tenant (the Pipelines-as-Code Secret only), `direct`: every line of the private
//   key, every installation token the emulator minted, and any JWT;
// - the `renovate` executor: the token in the run's own Secret and nowhere else;
// - a forge that answers 401 or 500 with a message quoting the request's Authorization header (the
//   installation lookup's JWT too): the failure's Event and marker carry none of it.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import {
  COMPONENTS,
  CONFIG_MAPS,
  CORE_EVENTS,
  NAMESPACES,
  NUDGE_CONFIGS,
  PIPELINE_RUNS,
  SECRETS,
} from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { EXECUTOR_ANNOTATION } from '../../src/controllers/dispatch/inputs.ts';
import { DISPATCH_FINALIZER, DISPATCH_MARKER_ANNOTATION } from '../../src/domain/nudge/dispatch-marker.ts';
import { startGitHubEmulator, type GitHubEmulator } from '../../src/sandbox/forges/github-emulator/emulator.ts';
import { assertNoSecrets, captureLog, privateKeyForms, tokenForms } from '../support/secret-leaks.ts';
import { sandboxComponent } from '../sandbox/local-forge-fixtures.ts';
import { SANDBOX_CRDS, startControlPlane, type ControlPlane } from './harness/control-plane.ts';
import { emulatorForges, PAC, pacSecret } from './github-app-manager.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';

/** The SCM Secrets' token: the emulator's user token, so the forge accepts it. */
const TOKEN = 'ghp_dispatchSecretsScmTokenNeverLogged0123';
const SCM_USER = 'acme-bot';
const IMAGE = 'quay.io/acme/operand';
const DIGEST = `sha256:${'7'.repeat(64)}`;
const BUILD = 'operand-on-push-1';
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();
/** Retries 300 ms apart, so a failing forge ends its nudge within the test. */
const POLICY = { maxAttempts: 2, firstRetryDelayMs: 300, backoffFactor: 1, maxRetryDelayMs: 300 };

let plane: ControlPlane;
let client: KubeClient;
let manager: TestManager;
let github: GitHubEmulator;
let gitCacheDir: string;
const log = captureLog();

interface Run extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

interface Told extends KubeObject {
  type?: string;
  reason?: string;
  message?: string;
}

const repoUrl = (name: string): string => `${github.gitBaseUrl}/acme/${name}`;

async function tenant(
  ns: string,
  { nudged, scmSecret, executor }: { nudged: readonly string[]; scmSecret: boolean; executor?: string },
): Promise<void> {
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  if (scmSecret) {
    await client.create(SECRETS, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: 'forge-acme',
        namespace: ns,
        labels: { 'appstudio.redhat.com/credentials': 'scm', 'appstudio.redhat.com/scm.host': '127.0.0.1' },
        annotations: { 'appstudio.redhat.com/scm.repository': 'acme/*' },
      },
      type: 'kubernetes.io/basic-auth',
      stringData: { username: SCM_USER, password: TOKEN },
    } as KubeObject);
  }
  for (const name of ['operand', ...nudged]) {
    await client.create(COMPONENTS, sandboxComponent(ns, name, repoUrl(name)));
  }
  await client.create(NUDGE_CONFIGS, {
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: {
      name: 'nudge-config',
      namespace: ns,
      ...(executor === undefined ? {} : { annotations: { [EXECUTOR_ANNOTATION]: executor } }),
    },
    spec: { nudges: nudged.map((to) => ({ from: 'operand', to })) },
  } as KubeObject);
}

/**
 * A push build of `operand` as Pipelines-as-Code creates it, finished Succeeded by "Tekton" once the
 * dispatcher holds it (its finalizer), and the marker the dispatcher leaves when it lets go.
 */
async function nudgeFromBuild(ns: string): Promise<string> {
  await client.create(PIPELINE_RUNS, {
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: {
      name: BUILD,
      namespace: ns,
      labels: {
        'appstudio.openshift.io/application': 'app',
        'appstudio.openshift.io/component': 'operand',
        'pipelines.appstudio.openshift.io/type': 'build',
        'pipelinesascode.tekton.dev/event-type': 'push',
      },
      annotations: {
        'pipelinesascode.tekton.dev/event-type': 'push',
        'build.appstudio.redhat.com/target_branch': 'main',
        'build.appstudio.openshift.io/repo': `https://github.com/acme/operand?rev=${'e'.repeat(40)}`,
      },
    },
    spec: { pipelineRef: { name: 'docker-build' } },
  } as KubeObject);
  const running = await eventually(`the dispatcher's finalizer on ${ns}/${BUILD}`, async () => {
    const run = await client.get<Run>(PIPELINE_RUNS, ns, BUILD);
    return run.metadata?.finalizers?.includes(DISPATCH_FINALIZER) === true ? run : undefined;
  });
  await client.replaceStatus<Run>(PIPELINE_RUNS, {
    ...running,
    status: {
      conditions: [{ type: 'Succeeded', status: 'True', reason: 'Succeeded' }],
      results: [
        { name: 'IMAGE_DIGEST', value: DIGEST },
        { name: 'IMAGE_URL', value: `${IMAGE}:on-push-1` },
      ],
    },
  });
  return eventually(`build ${ns}/${BUILD} to be settled`, async () => {
    const run = await client.get<Run>(PIPELINE_RUNS, ns, BUILD);
    const marker = run.metadata?.annotations?.[DISPATCH_MARKER_ANNOTATION];
    return marker !== undefined && !(run.metadata?.finalizers ?? []).includes(DISPATCH_FINALIZER) ? marker : undefined;
  });
}

/** What a user or a log reader sees of a nudge from `ns`, by place, as text; every Event of the cluster. */
async function visible(ns: string): Promise<Record<string, string>> {
  const [events, build, components, nudgeConfig] = await Promise.all([
    client.list<Told>(CORE_EVENTS),
    client.get<Run>(PIPELINE_RUNS, ns, BUILD),
    client.list(COMPONENTS, { namespace: ns }),
    client.get(NUDGE_CONFIGS, ns, 'nudge-config'),
  ]);
  assert.ok(
    log.lines.some((line) => line.includes('"level":"debug"')),
    'the manager logged at debug level',
  );
  assert.ok(
    log.lines.some((line) => line.includes(`"namespace":"${ns}"`)),
    `the manager logged about ${ns}`,
  );
  return {
    log: log.lines.join(''),
    'Events (every namespace)': JSON.stringify(events.items),
    [`${ns} build (marker)`]: JSON.stringify(build),
    [`${ns} Components`]: JSON.stringify(components.items),
    [`${ns} NudgeConfig`]: JSON.stringify(nudgeConfig),
  };
}

const scmTokenForms = (): string[] => tokenForms(TOKEN, [SCM_USER]);
const appSecrets = (): string[] => [
  ...privateKeyForms(PEM),
  ...github.apps.mintedTokens.flatMap((token) => tokenForms(token)),
];

before(async () => {
  github = await startGitHubEmulator({ token: TOKEN });
  const app = github.apps.registerApp({ slug: 'konflux-test', publicKey, botId: 4242 });
  const dockerfile = { Dockerfile: `FROM ${IMAGE}@sha256:${'0'.repeat(64)}\n` };
  for (const name of ['scm-bundle', 'app-bundle', 'renovate-bundle', 'bundle-401', 'bundle-500', 'bundle-app-500']) {
    await github.createRepository('acme', name, dockerfile);
  }
  // The App serves app-bundle and bundle-app-500; every other repository falls back to the SCM Secret.
  github.apps.install(app.id, 'acme', ['app-bundle', 'bundle-app-500']);
  plane = await startControlPlane({ crds: SANDBOX_CRDS });
  client = new KubeClient(plane.kubeConfig);
  gitCacheDir = mkdtempSync(join(tmpdir(), 'nudger-dispatch-secrets-'));
  manager = await startTestManager(plane.kubeConfig, {
    logLevel: 'debug',
    logDestination: log.destination,
    changeGroups: emulatorForges(github, { gitCacheDir: join(gitCacheDir, 'git') }),
    overrides: { dispatch: { enabled: true, defaultExecutor: 'direct', policy: POLICY } },
  });
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: PAC.namespace } });
  await client.create(SECRETS, pacSecret(app.id, PEM));
});

after(async () => {
  await manager.stop();
  client.close();
  await plane.close();
  await github.close();
  rmSync(gitCacheDir, { recursive: true, force: true });
});

describe('no credential of a nudge reaches a log, an Event, a status or the marker', () => {
  it('an SCM-Secret tenant, direct: the pull request is opened, the token is nowhere', async () => {
    await tenant('scm-direct', { nudged: ['scm-bundle'], scmSecret: true });
    assert.equal(await nudgeFromBuild('scm-direct'), 'v1 scm-bundle=pullRequest');
    const [pull, ...more] = github.pullRequests('acme', 'scm-bundle');
    assert.ok(pull !== undefined && more.length === 0, 'one pull request');
    assert.equal(pull.author, 'nudger-bot', "opened with the SCM Secret's token");
    assertNoSecrets(await visible('scm-direct'), scmTokenForms());
  });

  it('a GitHub App tenant, direct: neither the private key nor an installation token is anywhere', async () => {
    await tenant('app-direct', { nudged: ['app-bundle'], scmSecret: false });
    assert.equal(await nudgeFromBuild('app-direct'), 'v1 app-bundle=pullRequest');
    const [pull] = github.pullRequests('acme', 'app-bundle');
    assert.equal(pull?.author, 'konflux-test[bot]', 'opened with an installation token');
    assert.ok(github.apps.mintedTokens.length > 0, 'a token was minted');
    assertNoSecrets(await visible('app-direct'), [...appSecrets(), ...scmTokenForms()]);
  });

  it('the renovate executor: the token is in the run’s own Secret and nowhere else', async () => {
    await tenant('scm-renovate', { nudged: ['renovate-bundle'], scmSecret: true, executor: 'renovate' });
    assert.equal(await nudgeFromBuild('scm-renovate'), 'v1 renovate-bundle=pullRequest');
    const runs = await client.list<Run>(PIPELINE_RUNS, {
      namespace: 'scm-renovate',
      labelSelector: 'build.appstudio.redhat.com/type=nudge',
    });
    const [run, ...others] = runs.items;
    assert.ok(run !== undefined && others.length === 0, 'one nudge PipelineRun');
    const name = run.metadata?.name ?? '';
    assert.match(name, /^renovate-pipeline-[0-9a-f]{16}$/);
    const own = await client.get<KubeObject & { data?: Record<string, string> }>(SECRETS, 'scm-renovate', name);
    assert.ok(
      Object.values(own.data ?? {}).some((value) => Buffer.from(value, 'base64').toString('utf8') === TOKEN),
      'the token is in the run’s Secret',
    );
    const configMaps = await client.list(CONFIG_MAPS, { namespace: 'scm-renovate' });
    const secrets = await client.list(SECRETS, { namespace: 'scm-renovate' });
    assertNoSecrets(
      {
        ...(await visible('scm-renovate')),
        'nudge PipelineRun (params, env, annotations, labels)': JSON.stringify(run),
        ConfigMaps: JSON.stringify(configMaps.items),
        'other Secrets': JSON.stringify(
          secrets.items.filter((secret) => ![name, 'forge-acme'].includes(secret.metadata?.name ?? '')),
        ),
      },
      scmTokenForms(),
    );
  });

  it('a forge that refuses or fails, quoting the Authorization header: the failures carry none of it', async () => {
    github.failRepository('acme', 'bundle-401', { status: 401 });
    github.failRepository('acme', 'bundle-500', { status: 500 });
    github.failRepository('acme', 'bundle-app-500', { status: 500, appEndpoints: true });
    const nudged = ['bundle-401', 'bundle-500', 'bundle-app-500'];
    await tenant('failing', { nudged, scmSecret: true });
    const marker = await nudgeFromBuild('failing');
    assert.match(marker, /\bbundle-401=failed:no-credentials\b/);
    assert.match(marker, /\bbundle-500=failed:/);
    assert.match(marker, /\bbundle-app-500=failed:/);
    const echoes = github.requests.filter((request) => /bundle-(401|500|app-500)/.test(request.path));
    assert.ok(echoes.some((request) => request.status === 401) && echoes.some((request) => request.status === 500));
    const events = await eventually('a failure Event per target', async () => {
      const list = await client.list<Told>(CORE_EVENTS, { namespace: 'failing' });
      const failed = list.items.filter((event) => event.type === 'Warning' && event.reason === 'ComponentNudgeFailed');
      return nudged.every((target) => failed.some((event) => event.message?.includes(target))) ? failed : undefined;
    });
    assert.ok(
      events.some((event) => event.message?.includes('Upstream refused')),
      'the echoed message is told',
    );
    assertNoSecrets(await visible('failing'), [...scmTokenForms(), ...appSecrets()]);
  });
});
