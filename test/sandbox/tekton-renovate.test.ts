// The sandbox's Tekton stand-in running what nudger's `renovate` executor creates (issue 10): on a
// real control plane and a local forge, a fire makes the nudge PipelineRun, its ConfigMap and its
// Secret; the stand-in waits for the two (as Tekton waits for the volumes it mounts), runs the
// generated config through the Renovate stand-in and opens the pull request the `direct` executor
// would open: the same branch, commit message, file contents, title, body and labels.
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LocalForge } from '../../src/adapters/forges/local/local-forge.ts';
import type { RepositoryRef } from '../../src/adapters/forges/repository-url.ts';
import { localGitRun } from '../../src/adapters/git/plumbing.ts';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { COMPONENTS, CONFIG_MAPS, NAMESPACES, PIPELINE_RUNS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import type { BatchEntry, NudgeRequest } from '../../src/controllers/dispatch/executor.ts';
import { RenovateExecutor } from '../../src/controllers/dispatch/renovate/renovate-executor.ts';
import { decodeComponent, decodePipelineRun } from '../../src/domain/cluster-objects.ts';
import { rewriteDigests } from '../../src/domain/digest-rewrite/index.ts';
import { scmTokenGitAuthor } from '../../src/domain/nudge/git-author.ts';
import { nudgePullRequestText } from '../../src/domain/nudge/pull-request-text.ts';
import { renovateNudgePipelineRun } from '../../src/domain/nudge/renovate-pipelinerun.ts';
import { NO_RENOVATE_SETTINGS, readRenovateSettings } from '../../src/domain/nudge/renovate-settings.ts';
import { validatedBatchKey, validatedBranch, validatedGroupName } from '../../src/domain/nudge/validated-text.ts';
import { readPipelineRun } from '../../src/domain/nudge-pipelinerun.ts';
import { SANDBOX_CRDS, startControlPlane, type ControlPlane } from '../../src/sandbox/control-plane/control-plane.ts';
import { KonfluxStandIn, type RecordedBuild } from '../../src/sandbox/konflux.ts';
import { LocalForgeRenovateAccess } from '../../src/sandbox/renovate-access.ts';
import { TektonStandIn } from '../../src/sandbox/tekton.ts';
import { foreignPush, git, removeTempDirs, tempDir } from '../adapters/git/helpers.ts';
import { fileOnBranch as fileOnBranchOf, sandboxComponent } from './local-forge-fixtures.ts';

const NS = 'tenant';
const OLD = `sha256:${'0'.repeat(64)}`;
const REGISTRY = 'registry.redhat.io/acme/operand-a-rhel9';
const CSV = [
  'spec:',
  `  operandA: quay.io/acme/operand-a@${OLD}`,
  `  operandATagged: "quay.io/acme/operand-a:v1@${OLD}"`,
  `  released: ${REGISTRY}@${OLD}`,
  `  lookalike: quay.io/acme/operand-a-extra@${OLD}`,
  '  other: quay.io/acme/unrelated:latest',
  '',
].join('\n');
const SETTINGS = readRenovateSettings({
  name: 'namespace-wide-nudging-renovate-config',
  data: { commitMessagePrefix: '[nudge]', labels: 'team-a', automerge: 'false' },
}).settings;

let plane: ControlPlane;
let client: KubeClient;
let forge: LocalForge;
let bundleRepo: RepositoryRef;
let konflux: KonfluxStandIn;
let tekton: TektonStandIn;
let executor: RenovateExecutor;
let dir: string;

const component = (name: string, gitUrl: string): KubeObject => sandboxComponent(NS, name, gitUrl);

const fileOnBranch = (repo: RepositoryRef, branch: string, path: string): Promise<string> =>
  fileOnBranchOf(forge, repo, branch, path);

async function commitMessage(repo: RepositoryRef, branch: string): Promise<string> {
  return (
    await localGitRun(forge.gitDirectory(repo))('log', ['log', '-1', '--format=%B', `refs/heads/${branch}`])
  ).trim();
}

/** The request the dispatcher would make for `build` nudging bundle; the link is the forge's https one. */
async function requestFor(build: RecordedBuild, key: string, nudgedName = 'bundle'): Promise<NudgeRequest> {
  const link = `https://github.com/acme/operand-a?rev=${build.commit}`;
  // Pipelines-as-Code on github.com writes an https link; the local forge's would be file://.
  await client.patch(PIPELINE_RUNS, NS, build.pipelineRun, 'merge', {
    metadata: { annotations: { 'build.appstudio.openshift.io/repo': link } },
  });
  const run = decodePipelineRun(await client.get(PIPELINE_RUNS, NS, build.pipelineRun));
  const nudging = decodeComponent(await client.get(COMPONENTS, NS, 'operand-a'));
  const nudged = decodeComponent(await client.get(COMPONENTS, NS, nudgedName));
  assert.ok(run.ok && nudging.ok && nudged.ok);
  return {
    key,
    attempt: 1,
    namespace: NS,
    build: {
      component: 'operand-a',
      digest: build.digest,
      pullSpec: `quay.io/acme/operand-a@${build.digest}`,
      imageUrl: build.imageUrl,
      pipelineRun: build.pipelineRun,
    },
    buildRun: run.object,
    nudging: nudging.object,
    nudged: nudged.object,
    settings: SETTINGS,
    settingProblems: [],
    fileMatch: ['.*\\.yaml'],
    distributionRepositories: [REGISTRY],
    simpleBranch: false,
  };
}

before(async () => {
  dir = tempDir('sandbox-tekton-renovate');
  plane = await startControlPlane({ crds: SANDBOX_CRDS });
  client = new KubeClient(plane.kubeConfig);
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } });
  forge = new LocalForge({ root: join(dir, 'forge') });
  bundleRepo = await forge.createRepository('acme', 'bundle', { 'manifests/csv.yaml': CSV, 'README.md': 'hi\n' });
  const operand = await forge.createRepository('acme', 'operand-a', { Dockerfile: 'FROM scratch\n' });
  await client.create(COMPONENTS, component('operand-a', operand.url));
  await client.create(COMPONENTS, component('bundle', bundleRepo.url));
  konflux = new KonfluxStandIn(client, {
    seed: 'tekton-renovate-test',
    forgeAccess: new LocalForgeRenovateAccess(forge),
  });
  tekton = new TektonStandIn({ client, forge, gitCacheDir: join(dir, 'renovate-cache'), namespace: NS });
  executor = new RenovateExecutor({ client, forgeAccess: new LocalForgeRenovateAccess(forge) });
});

after(async () => {
  await tekton.stop();
  await plane.close();
  removeTempDirs();
});

describe('the Tekton stand-in runs the renovate executor’s nudge', () => {
  let first: RecordedBuild;

  it('waits for the ConfigMap and Secret the run mounts, as Tekton does', async () => {
    first = await konflux.recordBuild({ namespace: NS, component: 'operand-a' });
    assert.equal(first.nudge, undefined, 'no NudgeConfig: the build-service stand-in nudges nothing');
    const request = await requestFor(first, '1111111111111111');
    // Only the PipelineRun, as if the executor had died right after creating it.
    const run = renovateNudgePipelineRun({
      namespace: NS,
      key: request.key,
      nudging: 'operand-a',
      nudged: 'bundle',
      buildPipelineRun: first.pipelineRun,
      imageUrl: first.imageUrl,
      repoAtShaLink: '',
      serviceAccountName: 'appstudio-pipeline',
    });
    await client.create(PIPELINE_RUNS, run);
    assert.deepEqual(await tekton.poll(), []);
    assert.equal(readPipelineRun(await client.get(PIPELINE_RUNS, NS, run.metadata.name))?.succeeded, undefined);
    // The next attempt completes the pieces; the stand-in then runs it.
    assert.deepEqual((await executor.fire(request)).result, { ok: true, detail: run.metadata.name });
    const [executed] = await tekton.poll();
    assert.equal(executed?.outcome, 'executed', executed?.message);
  });

  it('turns the generated config into the pull request the direct executor would open', async () => {
    const branch = 'konflux/component-updates/bundle-component-update-operand-a';
    const prs = await forge.listPullRequests(bundleRepo);
    assert.equal(prs.length, 1);
    const [pr] = prs;
    const expected = nudgePullRequestText({
      nudging: 'operand-a',
      nudged: 'bundle',
      simpleBranch: false,
      repository: 'quay.io/acme/operand-a',
      currentDigest: OLD,
      newDigest: first.digest,
      repoAtShaLink: `https://github.com/acme/operand-a?rev=${first.commit}`,
      gitAuthor: scmTokenGitAuthor(undefined, 'localhost'),
      settings: SETTINGS,
    });
    assert.equal(expected.branch, branch);
    assert.deepEqual(
      [pr?.headBranch, pr?.baseBranch, pr?.title, pr?.body, pr?.draft, pr?.state],
      [branch, 'main', expected.title, expected.body, false, 'open'],
    );
    assert.equal(expected.title, `[nudge] Update operand-a to ${first.digest.slice(7, 14)}`);
    assert.equal(await commitMessage(bundleRepo, branch), expected.commit.message);
    const rewritten = rewriteDigests(
      [{ path: 'manifests/csv.yaml', text: CSV }],
      ['quay.io/acme/operand-a', REGISTRY].map((repository) => ({ repository, digest: first.digest })),
      ['.*\\.yaml'],
    ).changes[0]?.after;
    assert.equal(await fileOnBranch(bundleRepo, branch, 'manifests/csv.yaml'), rewritten);
    assert.match(rewritten ?? '', /operand-a-extra@sha256:0{64}/);
    assert.equal(await fileOnBranch(bundleRepo, branch, 'README.md'), 'hi\n');
    assert.deepEqual(await forge.pullRequestExtras(bundleRepo, pr?.number ?? 0), {
      labels: ['konflux-nudge', 'team-a'],
    });
  });

  it('marks the run Succeeded=True and reports the target', async () => {
    const runs = await client.list(PIPELINE_RUNS, {
      namespace: NS,
      labelSelector: 'build.appstudio.redhat.com/type=nudge',
    });
    assert.deepEqual(
      runs.items.map((item) => readPipelineRun(item)?.succeeded?.status),
      ['True'],
    );
    const executed = tekton.executed.at(-1);
    assert.deepEqual(
      executed?.targets.map((t) => [t.component, t.outcome, t.branch]),
      [['bundle', 'opened', 'konflux/component-updates/bundle-component-update-operand-a']],
    );
    const configMap = await client.get<KubeObject & { data?: Record<string, string> }>(
      CONFIG_MAPS,
      NS,
      runs.items[0]?.metadata?.name ?? '',
    );
    assert.deepEqual(Object.keys(configMap.data ?? {}), ['bundle-0.json']);
  });

  it('without a commitMessagePrefix, a base of conventional commits gets chore(deps): as Renovate decides it', async () => {
    const catalog = await forge.createRepository('acme', 'catalog', {
      'catalog.yaml': `image: quay.io/acme/operand-a@${OLD}\n`,
    });
    await client.create(COMPONENTS, component('catalog', catalog.url));
    const clone = mkdtempSync(join(dir, 'catalog-'));
    git(clone, 'clone', '--quiet', catalog.url, '.');
    for (const subject of ['feat: add a channel', 'fix(ci): pin the runner', 'docs: readme']) {
      writeFileSync(join(clone, 'notes.txt'), subject);
      git(clone, 'add', '--all');
      git(clone, 'commit', '--quiet', '-m', subject);
    }
    git(clone, 'push', '--quiet', 'origin', 'main');
    const build = await konflux.recordBuild({ namespace: NS, component: 'operand-a' });
    const request = { ...(await requestFor(build, '3333333333333333', 'catalog')), settings: NO_RENOVATE_SETTINGS };
    assert.equal((await executor.fire(request)).result.ok, true);
    const [executed] = await tekton.poll();
    assert.equal(executed?.outcome, 'executed', executed?.message);
    const [pr] = await forge.listPullRequests(catalog);
    assert.equal(pr?.title, `chore(deps): update operand-a to ${build.digest.slice(7, 14)}`);
    assert.equal(pr.headBranch, 'konflux/component-updates/catalog-component-update-operand-a');
  });

  it('a newer build updates the same pull request with its digest', async () => {
    const second = await konflux.recordBuild({ namespace: NS, component: 'operand-a' });
    assert.equal((await executor.fire(await requestFor(second, '2222222222222222'))).result.ok, true);
    const [executed] = await tekton.poll();
    assert.deepEqual(
      executed?.targets.map((t) => t.outcome),
      ['updated'],
    );
    const prs = await forge.listPullRequests(bundleRepo);
    assert.equal(prs.length, 1);
    assert.equal(prs[0]?.title, `[nudge] Update operand-a to ${second.digest.slice(7, 14)}`);
    const csv = await fileOnBranch(
      bundleRepo,
      'konflux/component-updates/bundle-component-update-operand-a',
      'manifests/csv.yaml',
    );
    assert.equal(csv.split(second.digest).length - 1, 3);
  });
  it('leaves a branch someone else pushed to alone until its rebase box is ticked, as Renovate does', async () => {
    const branch = 'konflux/component-updates/bundle-component-update-operand-a';
    const human = foreignPush(dir, bundleRepo.url, branch, 'README.md', 'edited by a human\n');
    const third = await konflux.recordBuild({ namespace: NS, component: 'operand-a' });
    assert.equal((await executor.fire(await requestFor(third, '4444444444444444'))).result.ok, true);
    const [left] = await tekton.poll();
    assert.equal(left?.outcome, 'executed', left?.message);
    assert.deepEqual(
      left.targets.map((t) => t.outcome),
      ['unchanged'],
    );
    assert.equal(await forge.branchHead(bundleRepo, branch), human);

    const [pr] = await forge.listPullRequests(bundleRepo);
    assert.ok(pr !== undefined);
    await forge.updatePullRequest(bundleRepo, pr.number, {
      body: pr.body.replace('- [ ] <!-- rebase-check -->', '- [x] <!-- rebase-check -->'),
    });
    const fourth = await konflux.recordBuild({ namespace: NS, component: 'operand-a' });
    assert.equal((await executor.fire(await requestFor(fourth, '5555555555555555'))).result.ok, true);
    const [rebuilt] = await tekton.poll();
    assert.deepEqual(
      rebuilt?.targets.map((t) => t.outcome),
      ['updated'],
    );
    assert.equal(await fileOnBranch(bundleRepo, branch, 'README.md'), 'hi\n');
    assert.equal(
      (await forge.getPullRequest(bundleRepo, pr.number)).title,
      `[nudge] Update operand-a to ${fourth.digest.slice(7, 14)}`,
    );
  });
});

describe('the Tekton stand-in runs a validated batch (docs/decisions.md N29)', () => {
  it('one run, one commit with every component, one pull request on the validated branch, titled as Renovate would', async () => {
    const operandB = await forge.createRepository('acme', 'operand-b', { Dockerfile: 'FROM scratch\n' });
    await client.create(COMPONENTS, component('operand-b', operandB.url));
    const catalog = await forge.createRepository('acme', 'catalog2', {
      'manifests/csv.yaml': `a: quay.io/acme/operand-a@${OLD}\nb: quay.io/acme/operand-b@${OLD}\n`,
    });
    await client.create(COMPONENTS, component('catalog2', catalog.url));
    const a = await konflux.recordBuild({ namespace: NS, component: 'operand-a' });
    const b = await konflux.recordBuild({ namespace: NS, component: 'operand-b' });
    const entry = async (build: RecordedBuild, snapshot: string): Promise<BatchEntry> => {
      const run = decodePipelineRun(await client.get(PIPELINE_RUNS, NS, build.pipelineRun));
      const nudging = decodeComponent(await client.get(COMPONENTS, NS, build.component));
      assert.ok(run.ok && nudging.ok);
      return {
        snapshot,
        build: {
          component: build.component,
          digest: build.digest,
          pullSpec: `quay.io/acme/${build.component}@${build.digest}`,
          imageUrl: build.imageUrl,
          pipelineRun: build.pipelineRun,
        },
        buildRun: run.object,
        nudging: nudging.object,
        fileMatch: ['.*\\.yaml'],
        distributionRepositories: [],
      };
    };
    const nudged = decodeComponent(await client.get(COMPONENTS, NS, 'catalog2'));
    assert.ok(nudged.ok);
    const entries = [await entry(a, 'operators-1'), await entry(b, 'operators-2')];
    const digests = entries.map((e) => ({ component: e.build.component, digest: e.build.digest }));
    const key = validatedBatchKey(NS, 'operators', 'catalog2', digests);
    const request = {
      key,
      attempt: 1,
      namespace: NS,
      gatingGroup: 'operators',
      nudged: nudged.object,
      settings: NO_RENOVATE_SETTINGS,
      settingProblems: [],
      entries,
    };
    assert.deepEqual((await executor.fireBatch(request)).result, { ok: true, detail: `renovate-pipeline-${key}` });
    const [executed] = await tekton.poll();
    assert.equal(executed?.outcome, 'executed', executed?.message);
    const branch = validatedBranch('catalog2', 'operators');
    const prs = await forge.listPullRequests(catalog);
    assert.deepEqual(
      prs.map((pr) => [pr.headBranch, pr.title]),
      [[branch, `Update ${validatedGroupName('operators')}`]],
    );
    assert.equal(
      await fileOnBranch(catalog, branch, 'manifests/csv.yaml'),
      `a: quay.io/acme/operand-a@${a.digest}\nb: quay.io/acme/operand-b@${b.digest}\n`,
    );
    const log = await localGitRun(forge.gitDirectory(catalog))('log', [
      'log',
      '--format=%s',
      `main..refs/heads/${branch}`,
    ]);
    assert.equal(log.trim(), `Update ${validatedGroupName('operators')}`, 'one commit');
    assert.match(await commitMessage(catalog, branch), /- operand-b: sha256:[0-9a-f]{64} \(Snapshot operators-2\)/);

    // A later pass brings only operand-b's new digest: the open pull request keeps operand-a's.
    const b2 = await konflux.recordBuild({ namespace: NS, component: 'operand-b' });
    const later = [await entry(b2, 'operators-3')];
    const laterKey = validatedBatchKey(NS, 'operators', 'catalog2', [{ component: 'operand-b', digest: b2.digest }]);
    assert.equal((await executor.fireBatch({ ...request, key: laterKey, entries: later })).result.ok, true);
    const [again] = await tekton.poll();
    assert.equal(again?.outcome, 'executed', again?.message);
    assert.equal((await forge.listPullRequests(catalog)).length, 1);
    assert.equal(
      await fileOnBranch(catalog, branch, 'manifests/csv.yaml'),
      `a: quay.io/acme/operand-a@${a.digest}\nb: quay.io/acme/operand-b@${b2.digest}\n`,
    );
  });
});
