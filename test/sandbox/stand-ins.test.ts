// The sandbox's Konflux, Tekton and PaC stand-ins together on a real control plane with nudger's
// manager and webhooks registered by registerWebhooks, and real git on a local forge: a build is
// recorded, integration-service's nudge PipelineRun appears with the upstream shapes, Tekton's
// Renovate opens one PR per nudging component, PaC counts the builds those PRs cost, and a nudge
// held by a ChangeGroup is finished as cancelled without touching the repository.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LocalForge } from '../../src/adapters/forges/local/local-forge.ts';
import type { RepositoryRef } from '../../src/adapters/forges/repository-url.ts';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { KubeApiError } from '../../src/adapters/kubernetes/errors.ts';
import {
  CHANGE_GROUPS,
  COMPONENTS,
  NAMESPACES,
  NUDGE_CONFIGS,
  PIPELINE_RUNS,
} from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { verifyNudgeBuild } from '../../src/domain/changegroup/verify-build.ts';
import { readBuildPipelineRun, readNudgePipelineRun, readPipelineRun } from '../../src/domain/nudge-pipelinerun.ts';
import { SANDBOX_CRDS, startControlPlane, type ControlPlane } from '../../src/sandbox/control-plane/control-plane.ts';
import { KonfluxStandIn, nudgePipelineRunName, type RecordedBuild } from '../../src/sandbox/konflux.ts';
import { PacStandIn } from '../../src/sandbox/pac.ts';
import { LocalForgeRenovateAccess } from '../../src/sandbox/renovate-access.ts';
import { TektonStandIn } from '../../src/sandbox/tekton.ts';
import { NAMESPACE_NAME_LABEL, registerWebhooks } from '../../src/sandbox/webhooks.ts';
import { removeTempDirs, tempDir } from '../adapters/git/helpers.ts';
import { fileOnBranch as fileOnBranchOf, sandboxComponent } from './local-forge-fixtures.ts';
import { startTestManager, type TestManager } from '../integration/manager-fixture.ts';
import { eventually } from '../integration/wait.ts';

const NS = 'tenant';
const OLD = `sha256:${'0'.repeat(64)}`;
const CSV = [
  'spec:',
  `  operandA: quay.io/acme/operand-a@${OLD}`,
  `  operandB: "quay.io/acme/operand-b:v1@${OLD}"`,
  '  other: quay.io/acme/unrelated:latest',
  '',
].join('\n');

let plane: ControlPlane;
let manager: TestManager;
let client: KubeClient;
let forge: LocalForge;
let bundleRepo: RepositoryRef;
let konflux: KonfluxStandIn;
let tekton: TektonStandIn;
let pac: PacStandIn;

const component = (name: string, gitUrl: string): KubeObject => sandboxComponent(NS, name, gitUrl);

const fileOnBranch = (repo: RepositoryRef, branch: string, path: string): Promise<string> =>
  fileOnBranchOf(forge, repo, branch, path);

before(async () => {
  const dir = tempDir('sandbox-stand-ins');
  plane = await startControlPlane({ crds: SANDBOX_CRDS });
  client = new KubeClient(plane.kubeConfig);
  // The ChangeGroup controller has no forge for file:// here; its retries would only be noise.
  manager = await startTestManager(plane.kubeConfig, { logLevel: 'silent' });
  // Labelled by hand: kube-apiserver 1.20 does not set it, and the webhooks select on it.
  await client.create(NAMESPACES, {
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: NS, labels: { [NAMESPACE_NAME_LABEL]: NS } },
  });
  await registerWebhooks(client, { url: (path) => manager.webhookUrl(path), caPem: manager.caPem, namespace: NS });

  forge = new LocalForge({ root: join(dir, 'forge') });
  bundleRepo = await forge.createRepository('acme', 'bundle', { 'manifests/csv.yaml': CSV, 'README.md': 'hi\n' });
  for (const name of ['operand-a', 'operand-b', 'lonely']) {
    const repo = await forge.createRepository('acme', name, { Dockerfile: 'FROM scratch\n' });
    await client.create(COMPONENTS, component(name, repo.url));
  }
  await client.create(COMPONENTS, component('bundle', bundleRepo.url));
  // Created through the NudgeConfig webhook, which checks the Components exist: a first probe.
  await eventually('the NudgeConfig to be admitted', () =>
    client
      .create(NUDGE_CONFIGS, {
        apiVersion: 'konflux-ci.dev/v1alpha1',
        kind: 'NudgeConfig',
        metadata: { name: 'nudge-config', namespace: NS },
        spec: {
          nudges: [
            { from: 'operand-a', to: 'bundle' },
            { from: 'operand-b', to: 'bundle' },
          ],
        },
      } as KubeObject)
      .then(() => true),
  );
  konflux = new KonfluxStandIn(client, { seed: 'stand-ins-test', forgeAccess: new LocalForgeRenovateAccess(forge) });
  tekton = new TektonStandIn({ client, forge, gitCacheDir: join(dir, 'renovate-cache'), namespace: NS });
  pac = new PacStandIn(forge);
  pac.watch(bundleRepo, 'bundle');
});

after(async () => {
  await tekton.stop();
  await pac.stop();
  await manager.stop();
  await plane.close();
  removeTempDirs();
});

describe('sandbox stand-ins on a real control plane and real git', () => {
  let firstA: RecordedBuild;

  it('registers the webhooks of deploy/webhook: the apiserver calls the ChangeGroup validation', async () => {
    const message = await eventually('the ChangeGroup webhook to deny', async () => {
      try {
        await client.create(CHANGE_GROUPS, {
          apiVersion: 'appstudio.redhat.com/v1alpha1',
          kind: 'ChangeGroup',
          metadata: { name: 'ghostly', namespace: NS },
          spec: { nudgedComponent: 'ghost', nudgingComponents: [{ name: 'operand-a' }], timeout: '1h' },
        } as KubeObject);
      } catch (error) {
        return error instanceof KubeApiError ? error.message : undefined;
      }
      await client.delete(CHANGE_GROUPS, NS, 'ghostly');
      return undefined;
    });
    assert.match(message, /vchangegroup\.appstudio\.redhat\.com/);
    assert.match(message, /component "ghost" does not exist/);
  });

  it('records a push build with Konflux shapes, promotes it, and creates the nudge PipelineRun', async () => {
    firstA = await konflux.recordBuild({ namespace: NS, component: 'operand-a' });
    assert.match(firstA.digest, /^sha256:[0-9a-f]{64}$/);
    assert.equal(firstA.imageUrl, `quay.io/acme/operand-a:${firstA.commit}`);

    const build = await client.get(PIPELINE_RUNS, NS, firstA.pipelineRun);
    const view = readBuildPipelineRun(build);
    assert.ok(view !== undefined);
    assert.match(firstA.pipelineRun, /^operand-a-on-push-/);
    assert.equal(view.component, 'operand-a');
    assert.equal(view.eventType, 'push');
    assert.equal(view.succeeded, 'True');
    assert.equal(view.targetBranch, 'main');
    assert.equal(view.imageDigest, firstA.digest);
    assert.equal(view.pipelineRun.labels['pipelines.appstudio.openshift.io/type'], 'build');
    assert.equal(view.pipelineRun.labels['appstudio.openshift.io/application'], 'app');
    assert.equal(view.pipelineRun.annotations['test.appstudio.openshift.io/component-nudge-processed'], 'bundle');

    const promoted = await client.get<KubeObject & { status?: Record<string, unknown> }>(COMPONENTS, NS, 'operand-a');
    assert.deepEqual(
      { image: promoted.status?.lastPromotedImage, commit: promoted.status?.lastBuiltCommit },
      { image: `quay.io/acme/operand-a@${firstA.digest}`, commit: firstA.commit },
    );

    assert.ok(firstA.nudge !== undefined);
    assert.equal(firstA.nudge.name, nudgePipelineRunName(build.metadata?.uid ?? ''));
    assert.equal(firstA.nudge.specStatus, '', 'no ChangeGroup: the webhook leaves it alone');
    const nudgeObject = await client.get(PIPELINE_RUNS, NS, firstA.nudge.name);
    const reading = readNudgePipelineRun(nudgeObject);
    assert.ok(reading.ok, reading.ok ? '' : reading.message);
    assert.deepEqual(reading.nudge.nudgedComponents, ['bundle']);
    assert.equal(reading.nudge.nudgingComponent, 'operand-a');
    assert.equal(reading.nudge.nudgingImage, firstA.imageUrl);
    assert.equal(reading.nudge.nudgingPipeline, firstA.pipelineRun);
    assert.equal(
      reading.nudge.pipelineRun.annotations['build.appstudio.redhat.com/nudging-commit'],
      `operand-a.git?rev=${firstA.commit}`,
      "upstream's unanchored last-segment rule",
    );
    const verified = verifyNudgeBuild(reading.nudge, build, {
      containerImage: 'quay.io/acme/operand-a',
      branch: 'main',
    });
    assert.ok(verified.ok, verified.ok ? '' : verified.message);
    assert.equal(verified.digest, firstA.digest);
    assert.equal(verified.pullSpec, `quay.io/acme/operand-a@${firstA.digest}`);
  });

  it('creates no nudge for a component without edges', async () => {
    const lonely = await konflux.recordBuild({ namespace: NS, component: 'lonely', image: 'quay.io/acme/lonely:v2' });
    assert.equal(lonely.nudge, undefined);
    assert.equal(lonely.imageUrl, 'quay.io/acme/lonely:v2');
  });

  it('runs Renovate for each nudge: one Renovate-style PR per nudging component', async () => {
    const secondB = await konflux.recordBuild({
      namespace: NS,
      component: 'operand-b',
      image: 'quay.io/acme/operand-b:v1',
    });
    const executed = await tekton.poll();
    assert.deepEqual(
      executed
        .map((run) => [run.nudgingComponent, run.outcome, run.targets.map((t) => t.outcome)])
        .sort((x, y) => String(x[0]).localeCompare(String(y[0]))),
      [
        ['operand-a', 'executed', ['opened']],
        ['operand-b', 'executed', ['opened']],
      ],
    );
    const branchA = 'konflux/component-updates/bundle-component-update-operand-a';
    const branchB = 'konflux/component-updates/bundle-component-update-operand-b';
    const prA = await forge.findPullRequestByHeadBranch(bundleRepo, branchA);
    const prB = await forge.findPullRequestByHeadBranch(bundleRepo, branchB);
    assert.ok(prA !== undefined && prB !== undefined);
    assert.equal(prA.title, `Update operand-a to ${firstA.digest.slice(7, 14)}`);
    assert.equal(prB.title, `Update operand-b to ${secondB.digest.slice(7, 14)}`);
    assert.equal(prA.draft, false);
    assert.match(prA.body, /To execute skipped test pipelines write comment `\/ok-to-test`/);
    const commitsA = await forge.listCommits(bundleRepo, prA.number);
    assert.equal(commitsA.length, 1, 'one commit on the base');
    assert.equal(commitsA[0]?.authorName, 'red-hat-konflux', "as the generated config's gitAuthor");
    assert.match(
      commitsA[0].message,
      // The local forge's file:// link is not quoted, as nudger's executors leave it out.
      /^Update operand-a to [0-9a-f]{7}\n\nImage created from ''\n\nSigned-off-by: /,
    );
    assert.equal(
      await fileOnBranch(bundleRepo, branchA, 'manifests/csv.yaml'),
      CSV.replace(`operand-a@${OLD}`, `operand-a@${firstA.digest}`),
      'only the nudging image reference changes',
    );
    assert.equal(
      await fileOnBranch(bundleRepo, branchB, 'manifests/csv.yaml'),
      CSV.replace(`operand-b:v1@${OLD}`, `operand-b:v1@${secondB.digest}`),
    );
    for (const run of executed) {
      const view = readPipelineRun(await client.get(PIPELINE_RUNS, NS, run.pipelineRun));
      assert.deepEqual(view?.succeeded, { status: 'True', reason: 'Succeeded' });
    }
    assert.deepEqual(await tekton.poll(), [], 'finished runs are not run again');

    // PaC: each PR opening is one build of the bundle; the pushes before them built nothing.
    assert.deepEqual(
      (await pac.poll()).map((build) => [build.trigger, build.pullRequest]),
      [
        ['opened', prA.number],
        ['opened', prB.number],
      ],
    );

    // A rebuild of operand-a: Renovate force-pushes a fresh commit to the open PR (one more build).
    const againA = await konflux.recordBuild({ namespace: NS, component: 'operand-a' });
    assert.notEqual(againA.digest, firstA.digest);
    const rerun = await tekton.poll();
    assert.deepEqual(
      rerun.map((run) => run.targets.map((t) => [t.outcome, t.pullRequest])),
      [[['updated', prA.number]]],
    );
    assert.equal(
      (await forge.getPullRequest(bundleRepo, prA.number)).title,
      `Update operand-a to ${againA.digest.slice(7, 14)}`,
    );
    assert.equal((await forge.listCommits(bundleRepo, prA.number)).length, 1);
    const sync = await pac.poll();
    assert.deepEqual(
      sync.map((build) => [build.trigger, build.pullRequest]),
      [['synchronize', prA.number]],
    );
    assert.equal(pac.buildCount('bundle'), 3);
  });

  it('finishes a nudge held by a ChangeGroup as cancelled and leaves the repository alone', async () => {
    await client.create(CHANGE_GROUPS, {
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'ChangeGroup',
      metadata: { name: 'bundle-update', namespace: NS },
      spec: { nudgedComponent: 'bundle', nudgingComponents: [{ name: 'operand-a' }], timeout: '24h' },
    } as KubeObject);
    // The manager's ChangeGroup cache settles asynchronously: probe with dry runs of a nudge.
    await eventually('the hold to apply', async () => {
      const dry = await client.create<KubeObject & { spec?: { status?: string } }>(
        PIPELINE_RUNS,
        {
          apiVersion: 'tekton.dev/v1',
          kind: 'PipelineRun',
          metadata: {
            generateName: 'probe-',
            namespace: NS,
            labels: { 'build.appstudio.redhat.com/type': 'nudge' },
            annotations: {
              'build.appstudio.redhat.com/nudging-component': 'operand-a',
              'build.appstudio.redhat.com/nudged-components': 'bundle',
            },
          },
          spec: { pipelineRef: { name: 'x' } },
        } as KubeObject,
        { dryRun: true },
      );
      return dry.spec?.status === 'Cancelled' ? true : undefined;
    });
    const branchA = 'konflux/component-updates/bundle-component-update-operand-a';
    const headBefore = await forge.branchHead(bundleRepo, branchA);
    const held = await konflux.recordBuild({ namespace: NS, component: 'operand-a' });
    const heldNudge = held.nudge!;
    assert.equal(heldNudge.specStatus, 'Cancelled');
    const executed = await tekton.poll();
    assert.deepEqual(
      executed.map((run) => [run.pipelineRun, run.outcome]),
      [[heldNudge.name, 'cancelled']],
    );
    const view = readPipelineRun(await client.get(PIPELINE_RUNS, NS, heldNudge.name));
    assert.deepEqual(view?.succeeded, { status: 'False', reason: 'Cancelled' });
    assert.equal(await forge.branchHead(bundleRepo, branchA), headBefore);
    assert.deepEqual(await pac.poll(), []);
  });

  it('records the build only when nudger dispatches: no nudge PipelineRun, no integration-service marker', async () => {
    const nudgeRuns = async (): Promise<number> =>
      (await client.list(PIPELINE_RUNS, { namespace: NS, labelSelector: 'build.appstudio.redhat.com/type=nudge' }))
        .items.length;
    const before = await nudgeRuns();
    const build = await konflux.recordBuild({
      namespace: NS,
      component: 'operand-b',
      nudge: false,
      nudgeFiles: '.*Dockerfile.*, manifests/.*',
    });
    assert.equal(build.nudge, undefined);
    assert.equal(build.succeeded, true);
    const view = readBuildPipelineRun(await client.get(PIPELINE_RUNS, NS, build.pipelineRun));
    assert.ok(view !== undefined);
    assert.equal(view.succeeded, 'True');
    assert.equal(view.imageDigest, build.digest);
    assert.equal(
      view.pipelineRun.annotations['build.appstudio.openshift.io/build-nudge-files'],
      '.*Dockerfile.*, manifests/.*',
    );
    assert.equal(view.pipelineRun.annotations['test.appstudio.openshift.io/component-nudge-processed'], undefined);
    assert.equal(await nudgeRuns(), before);
  });

  it('records a failed build: Succeeded=False, no image, no promotion, no nudge', async () => {
    const promoted = async (): Promise<unknown> =>
      (await client.get<KubeObject & { status?: Record<string, unknown> }>(COMPONENTS, NS, 'operand-a')).status
        ?.lastPromotedImage;
    const promotedBefore = await promoted();
    const failed = await konflux.recordBuild({ namespace: NS, component: 'operand-a', succeeded: false });
    assert.equal(failed.succeeded, false);
    assert.equal(failed.nudge, undefined, 'build-service nudges from succeeded builds only');
    const view = readBuildPipelineRun(await client.get(PIPELINE_RUNS, NS, failed.pipelineRun));
    assert.ok(view !== undefined);
    assert.equal(view.succeeded, 'False');
    assert.equal(view.imageDigest, undefined);
    assert.equal(view.pipelineRun.annotations['test.appstudio.openshift.io/component-nudge-processed'], undefined);
    assert.equal(await promoted(), promotedBefore);
  });
});
