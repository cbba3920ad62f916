// The ChangeGroup controller against the GitHub contract, on a real kube-apiserver: the manager's
// own forge resolution (host → GitHub, token from the tenant's SCM Secret) drives a local GitHub
// emulator that validates every request against GitHub's OpenAPI description and serves the
// repository over real git smart HTTP with token auth. Three held nudges give one draft PR that
// becomes ready with one final commit; the token appears in no log line, Event or status.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Writable } from 'node:stream';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import {
  CHANGE_GROUPS,
  COMPONENTS,
  CORE_EVENTS,
  NAMESPACES,
  NUDGE_CONFIGS,
  SECRETS,
} from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { localGitRun } from '../../src/adapters/git/plumbing.ts';
import { parseDescription } from '../../src/domain/pr-description/index.ts';
import { SANDBOX_CRDS, startControlPlane, type ControlPlane } from '../../src/sandbox/control-plane/control-plane.ts';
import { KonfluxStandIn } from '../../src/sandbox/konflux.ts';
import { NAMESPACE_NAME_LABEL, registerWebhooks } from '../../src/sandbox/webhooks.ts';
import type { ChangeGroupStatus } from '../../src/schema/changegroup.ts';
import { startGitHubEmulator, type GitHubEmulator } from '../support/github-emulator/emulator.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';

const NS = 'gh-tenant';
const TOKEN = 'ghp_sEcReTtOkEnThatMustNeverLeak0123456789';
const OPERANDS = ['operand-a', 'operand-b', 'operand-c'];
const OLD = (c: string): string => `sha256:${c.repeat(64)}`;
const CSV = OPERANDS.map((o, i) => `- image: quay.io/acme/${o}@${OLD(String(i + 1))}\n`).join('');

let plane: ControlPlane;
let client: KubeClient;
let manager: TestManager;
let github: GitHubEmulator;
const logLines: string[] = [];

function component(name: string, url: string): KubeObject {
  return {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { name, namespace: NS },
    spec: {
      componentName: name,
      application: 'app',
      containerImage: `quay.io/acme/${name}`,
      source: { git: { url, revision: 'main' } },
    },
  } as KubeObject;
}

before(async () => {
  github = await startGitHubEmulator({ token: TOKEN });
  const host = new URL(github.gitBaseUrl).host;
  plane = await startControlPlane({ crds: SANDBOX_CRDS });
  client = new KubeClient(plane.kubeConfig);
  manager = await startTestManager(plane.kubeConfig, {
    logLevel: 'debug',
    logDestination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    }),
    changeGroups: {
      forgeHosts: new Map([[host, { kind: 'github', apiUrl: github.apiUrl, gitBaseUrl: github.gitBaseUrl }]]),
      pollIntervalMs: 300,
    },
  });
  await client.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NS, labels: { [NAMESPACE_NAME_LABEL]: NS } },
  });
  await registerWebhooks(client, { url: (path) => manager.webhookUrl(path), caPem: manager.caPem, namespace: NS });
  await client.create(SECRETS, {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'github-token',
      namespace: NS,
      labels: { 'appstudio.redhat.com/credentials': 'scm', 'appstudio.redhat.com/scm.host': '127.0.0.1' },
    },
    type: 'kubernetes.io/basic-auth',
    data: {
      username: Buffer.from('x-access-token').toString('base64'),
      password: Buffer.from(TOKEN).toString('base64'),
    },
  } as KubeObject);
  await github.createRepository('acme', 'bundle', { 'manifests/csv.yaml': CSV, Dockerfile: 'FROM scratch\n' });
  for (const name of [...OPERANDS, 'bundle']) {
    await client.create(COMPONENTS, component(name, `${github.gitBaseUrl}/acme/${name}.git`));
  }
  await eventually('the NudgeConfig to be admitted', () =>
    client.create(NUDGE_CONFIGS, {
      apiVersion: 'konflux-ci.dev/v1alpha1',
      kind: 'NudgeConfig',
      metadata: { name: 'nudge-config', namespace: NS },
      spec: { nudges: OPERANDS.map((from) => ({ from, to: 'bundle' })) },
    } as KubeObject),
  );
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

describe('ChangeGroup controller with the GitHub provider', () => {
  it('collects three held nudges into one draft PR that turns ready with one final commit', async () => {
    await client.create(CHANGE_GROUPS, {
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'ChangeGroup',
      metadata: { name: 'bundle-update', namespace: NS },
      spec: { nudgedComponent: 'bundle' },
    } as KubeObject);
    await eventually('the empty nudgingComponents to be filled from the graph', async () => {
      const cg = await client.get<KubeObject & { spec: { nudgingComponents?: { name: string }[] } }>(
        CHANGE_GROUPS,
        NS,
        'bundle-update',
      );
      assert.deepEqual(
        cg.spec.nudgingComponents?.map((c) => c.name),
        OPERANDS,
      );
      return true;
    });
    const konflux = new KonfluxStandIn(client);
    const digests = new Map<string, string>();
    for (const [index, operand] of OPERANDS.entries()) {
      const build = await konflux.recordBuild({ namespace: NS, component: operand });
      assert.equal(build.nudge?.specStatus, 'Cancelled', 'the webhook holds the nudge');
      digests.set(operand, build.digest);
      await eventually(`${operand} to be collected`, async () => {
        const status = await changeGroupStatus();
        assert.equal(status?.components?.filter((c) => c.state === 'Ready').length, index + 1);
        assert.equal(status.pullRequest?.pushedBuilds.length, index + 1);
        return true;
      });
      const [pr] = github.pullRequests('acme', 'bundle');
      assert.ok(pr, 'a PR exists after the first component');
      assert.equal(pr.draft, index < OPERANDS.length - 1, 'draft until the last component');
    }
    const status = await changeGroupStatus();
    assert.equal(status?.phase, 'Ready');
    assert.equal(github.pullRequests('acme', 'bundle').length, 1, 'never a second PR');
    const [pr] = github.pullRequests('acme', 'bundle');
    assert.ok(pr);
    const git = localGitRun(`${github.projectRoot}/acme/bundle.git`);
    const head = (await git('rev-parse', ['rev-parse', `refs/heads/${pr.headRef}`])).trim();
    assert.doesNotMatch(await git('log', ['log', '-1', '--format=%B', head]), /\[skip ci\]/);
    assert.equal((await git('rev-list', ['rev-list', '--count', `main..${head}`])).trim(), '1', 'one commit on base');
    const csv = await git('show', ['show', `${head}:manifests/csv.yaml`]);
    for (const [operand, digest] of digests) assert.ok(csv.includes(`quay.io/acme/${operand}@${digest}`));
    assert.equal(parseDescription(pr.body).managed?.phase, 'Ready');
    assert.deepEqual(github.contractViolations, [], 'every request and response follows the OpenAPI description');
    assert.ok(github.requests.some((r) => r.operationId?.startsWith('graphql:markPullRequestReadyForReview') === true));
    const metrics = await (await fetch(`http://127.0.0.1:${String(manager.metricsPort)}/metrics`)).text();
    assert.match(metrics, /^nudger_changegroup_pushes_total\{final="true"\} 1$/m, 'one final push');
    assert.match(metrics, /^nudger_changegroup_pushes_total\{final="false"\} 2$/m, 'two pushes with [skip ci]');
    assert.match(metrics, /^nudger_changegroup_phase_transitions_total\{phase="Ready"\} 1$/m);
  });

  it('never lets the token reach a log line, an Event or the status', async () => {
    const events = await client.list<KubeObject & { message?: string }>(CORE_EVENTS, { namespace: NS });
    const cg = await client.get(CHANGE_GROUPS, NS, 'bundle-update');
    const haystacks = [logLines.join(''), JSON.stringify(events.items), JSON.stringify(cg)];
    assert.ok(logLines.length > 0, 'the manager logged at debug level');
    for (const text of haystacks) {
      assert.ok(!text.includes(TOKEN), 'the token leaked');
      assert.ok(!text.includes(Buffer.from(`x-access-token:${TOKEN}`).toString('base64')), 'the Basic value leaked');
    }
  });
});
