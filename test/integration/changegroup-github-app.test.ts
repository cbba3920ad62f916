// A ChangeGroup tenant with no SCM Secret at all, on a cluster whose Pipelines-as-Code Secret holds
// a GitHub App (docs/decisions.md D9, N23): the manager, at debug level, finds the App's
// installation on the nudged repository through the GitHub emulator (JWT checked against the App's
// public key), mints an installation token for that repository, and pushes and opens the pull
// request with it. Neither the private key nor any token minted reaches a log line, an Event or the
// ChangeGroup.
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { localGitRun } from '../../src/adapters/git/plumbing.ts';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import {
  CHANGE_GROUPS,
  COMPONENTS,
  CORE_EVENTS,
  NAMESPACES,
  SECRETS,
} from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { SANDBOX_CRDS, startControlPlane, type ControlPlane } from '../../src/sandbox/control-plane/control-plane.ts';
import { KonfluxStandIn } from '../../src/sandbox/konflux.ts';
import { NAMESPACE_NAME_LABEL, registerWebhooks } from '../../src/sandbox/webhooks.ts';
import type { ChangeGroupStatus } from '../../src/schema/changegroup.ts';
import { startGitHubEmulator, type GitHubEmulator } from '../../src/sandbox/forges/github-emulator/emulator.ts';
import { assertNoSecrets, captureLog, privateKeyForms, tokenForms } from '../support/secret-leaks.ts';
import { sandboxComponent } from '../sandbox/local-forge-fixtures.ts';
import { admitNudgeConfig } from './changegroup-tenant.ts';
import { emulatorForges, PAC, pacSecret } from './github-app-manager.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';

const NS = 'gh-app-tenant';
/** The emulator's own user token: nudger is never given it. */
const USER_TOKEN = 'ghp_emulatorUserTokenNudgerNeverSees0123';
const OPERAND = 'operand-a';
const CSV = `- image: quay.io/acme/${OPERAND}@sha256:${'1'.repeat(64)}\n`;
const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const PEM = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

let plane: ControlPlane;
let client: KubeClient;
let manager: TestManager;
let github: GitHubEmulator;
let appId: number;
const log = captureLog();

before(async () => {
  github = await startGitHubEmulator({ token: USER_TOKEN });
  const app = github.apps.registerApp({ slug: 'konflux-test', publicKey, botId: 4242 });
  appId = app.id;
  plane = await startControlPlane({ crds: SANDBOX_CRDS });
  client = new KubeClient(plane.kubeConfig);
  manager = await startTestManager(plane.kubeConfig, {
    logLevel: 'debug',
    logDestination: log.destination,
    changeGroups: emulatorForges(github, { pollIntervalMs: 300 }),
  });
  for (const name of [NS, PAC.namespace]) {
    await client.create(NAMESPACES, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { [NAMESPACE_NAME_LABEL]: name } },
    });
  }
  await registerWebhooks(client, { url: (path) => manager.webhookUrl(path), caPem: manager.caPem, namespace: NS });
  await client.create(SECRETS, pacSecret(appId, PEM));
  await github.createRepository('acme', 'bundle', { 'manifests/csv.yaml': CSV });
  // Installed on the bundle only: the operand's repository is never asked for a token.
  github.apps.install(appId, 'acme', ['bundle']);
  for (const name of [OPERAND, 'bundle']) {
    await client.create(COMPONENTS, sandboxComponent(NS, name, `${github.gitBaseUrl}/acme/${name}.git`));
  }
  await admitNudgeConfig(client, NS, [OPERAND], 'bundle');
});

after(async () => {
  await manager.stop();
  client.close();
  await plane.close();
  await github.close();
});

async function changeGroupStatus(): Promise<ChangeGroupStatus | undefined> {
  return (await client.get<KubeObject & { status?: ChangeGroupStatus }>(CHANGE_GROUPS, NS, 'bundle-update')).status;
}

describe('ChangeGroup with only the GitHub App', () => {
  it('opens and completes the pull request with an installation token of the bundle repository', async () => {
    const secrets = await client.list<KubeObject>(SECRETS, { namespace: NS });
    assert.deepEqual(
      secrets.items.filter((secret) => secret.metadata?.labels?.['appstudio.redhat.com/credentials'] === 'scm'),
      [],
      'the tenant has no SCM Secret',
    );
    await client.create(CHANGE_GROUPS, {
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'ChangeGroup',
      metadata: { name: 'bundle-update', namespace: NS },
      spec: { nudgedComponent: 'bundle', nudgingComponents: [{ name: OPERAND }] },
    } as KubeObject);
    const build = await new KonfluxStandIn(client).recordBuild({ namespace: NS, component: OPERAND });
    assert.equal(build.nudge?.specStatus, 'Cancelled', 'the webhook holds the nudge');
    await eventually('the ChangeGroup pull request to be ready', async () => {
      const status = await changeGroupStatus();
      assert.equal(status?.phase, 'Ready', JSON.stringify(status?.conditions));
      return true;
    });
    const [pr] = github.pullRequests('acme', 'bundle');
    assert.ok(pr);
    assert.equal(pr.author, 'konflux-test[bot]', 'opened with the installation token');
    assert.equal(pr.draft, false);
    const git = localGitRun(`${github.projectRoot}/acme/bundle.git`);
    const csv = await git('show', ['show', `refs/heads/${pr.headRef}:manifests/csv.yaml`]);
    assert.ok(csv.includes(`quay.io/acme/${OPERAND}@${build.digest}`), csv);
    assert.ok(github.apps.mintedTokens.length >= 1, 'a token was minted');
    const mints = github.requests.filter((r) => r.operationId === 'apps/create-installation-access-token');
    assert.ok(mints.every((r) => r.status === 201));
    assert.equal(mints.length, github.apps.mintedTokens.length);
    assert.ok(
      github.requests.filter((r) => r.operationId === 'git').every((r) => r.status !== 401),
      'git accepted the installation token',
    );
    assert.deepEqual(github.contractViolations, [], 'every request and response follows the OpenAPI description');
  });

  it('lets neither the private key nor a token reach a debug log line, an Event or the ChangeGroup', async () => {
    const events = await client.list<KubeObject>(CORE_EVENTS, { namespace: NS });
    const cg = await client.get(CHANGE_GROUPS, NS, 'bundle-update');
    assert.ok(
      log.lines.some((line) => line.includes('"level":"debug"')),
      'the manager logged at debug level',
    );
    assert.ok(github.apps.mintedTokens.length > 0);
    assertNoSecrets(
      { log: log.lines.join(''), events: JSON.stringify(events.items), changeGroup: JSON.stringify(cg) },
      [...privateKeyForms(PEM), ...github.apps.mintedTokens.flatMap((token) => tokenForms(token))],
    );
  });
});
