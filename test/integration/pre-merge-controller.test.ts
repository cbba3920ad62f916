// Pre-merge nudges (docs/decisions.md D11, N34, N35) in the manager, on a real kube-apiserver, with
// the real `direct` executor on the local forge (real git): pull-request builds made here as
// Pipelines-as-Code and Tekton leave them, triggering PRs opened and closed on the forge by a
// human, and the manager killed between the executor's effect (the nudge PR pushed, written,
// closed) and the record saying so. A restarted manager must find that effect and neither open a
// second PR nor push other content: exactly one nudge PR per (group, target), with the digests of
// the triggers' builds and a managed block naming the triggering PRs.
//
// The crash switch wraps the real executor: the fire runs to its end, then hangs until the
// manager is stopped under it, so the record keeps `attempt.state: firing` (the write-ahead).
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { LocalForge } from '../../src/adapters/forges/local/local-forge.ts';
import { LocalForgeResolver } from '../../src/adapters/forges/local/local-resolver.ts';
import type { RepositoryRef } from '../../src/adapters/forges/repository-url.ts';
import type { PullRequest } from '../../src/adapters/forges/types.ts';
import { localGitRun } from '../../src/adapters/git/plumbing.ts';
import { GitWorkspaces } from '../../src/adapters/git/workspace.ts';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { COMPONENTS, CONFIG_MAPS, NAMESPACES, NUDGE_CONFIGS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { DirectNudgeExecutor } from '../../src/controllers/dispatch/direct/direct-executor.ts';
import type { NudgeExecutor, PreMergeNudgeRequest } from '../../src/controllers/dispatch/executor.ts';
import { PRE_MERGE_ANNOTATION } from '../../src/controllers/dispatch/pre-merge-inputs.ts';
import { parsePreMergeStamp, preMergeBlockOf } from '../../src/domain/nudge/pre-merge-pull-request.ts';
import {
  parsePreMergeRecord,
  PRE_MERGE_RECORD_KEY,
  preMergeRecordName,
  type PreMergeRecord,
} from '../../src/domain/nudge/pre-merge-record.ts';
import { preMergeBranch } from '../../src/domain/nudge/pre-merge-text.ts';
import { SANDBOX_DISPATCH_POLICY } from '../../src/sandbox/environment.ts';
import { KonfluxStandIn } from '../../src/sandbox/konflux.ts';
import { sandboxComponent } from '../sandbox/local-forge-fixtures.ts';
import { SANDBOX_CRDS, startControlPlane, type ControlPlane } from './harness/control-plane.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';

/** Long enough that stopping the manager, not the fire's own timeout, ends the hung fire. */
const FIRE_TIMEOUT_MS = 4000;
const PRE_MERGE_POLL_MS = 300;
const GROUP = 'feature-1234';
const TARGET = 'bundle';
const OPERANDS = ['operand-a', 'operand-b'] as const;
const BASE_DIGEST = `sha256:${'0'.repeat(64)}`;
const imageOf = (component: string): string => `quay.io/acme/${component}`;
const BUNDLE_FILES = {
  Dockerfile: `FROM ${imageOf('operand-a')}@${BASE_DIGEST}\n`,
  'manifests/csv.yaml': `spec:\n  a: ${imageOf('operand-a')}@${BASE_DIGEST}\n  b: ${imageOf('operand-b')}@${BASE_DIGEST}\n`,
};

/**
 * The real executor, with a switch: `hangNext` lets the next pre-merge fire run to its end (the
 * effect on the forge), then hangs until its signal aborts, as a process killed before it could
 * write the record.
 */
class CrashSwitch {
  readonly calls: PreMergeNudgeRequest[] = [];
  hangNext = false;
  effectDone: (() => void) | undefined;
  readonly #real: DirectNudgeExecutor;

  constructor(real: DirectNudgeExecutor) {
    this.#real = real;
  }

  executor(): NudgeExecutor {
    return {
      kind: 'direct',
      fire: (request, signal) => this.#real.fire(request, signal),
      fireBatch: (request, signal) => this.#real.fireBatch(request, signal),
      firePreMerge: async (request, signal) => {
        this.calls.push(request);
        const outcome = await this.#real.firePreMerge(request, signal);
        if (!this.hangNext) return outcome;
        this.hangNext = false;
        assert.ok(outcome.result.ok, `the fire before the crash succeeds: ${JSON.stringify(outcome.result)}`);
        this.effectDone?.();
        return new Promise((_resolve, reject) => {
          signal?.addEventListener('abort', () => {
            reject(new Error('stopped'));
          });
        });
      },
    };
  }

  /** Resolves once the next fire's effect is done and it hangs. */
  armed(): Promise<void> {
    this.hangNext = true;
    return new Promise((resolve) => {
      this.effectDone = resolve;
    });
  }
}

let plane: ControlPlane;
let client: KubeClient;
let forge: LocalForge;
let workDir: string;
let crash: CrashSwitch;
let manager: TestManager | undefined;
let konflux: KonfluxStandIn;

/** A new manager as a restarted process starts: a fresh executor and git cache over the same forge. */
async function startManager(): Promise<void> {
  const resolver = new LocalForgeResolver(forge);
  const cacheDir = mkdtempSync(join(workDir, 'manager-git-'));
  crash = new CrashSwitch(new DirectNudgeExecutor({ resolver, workspaces: new GitWorkspaces({ cacheDir }) }));
  manager = await startTestManager(plane.kubeConfig, {
    changeGroups: { forgeResolver: resolver, gitCacheDir: join(cacheDir, 'changegroups') },
    overrides: {
      dispatch: {
        enabled: true,
        defaultExecutor: 'direct',
        executors: { direct: crash.executor() },
        policy: SANDBOX_DISPATCH_POLICY,
        fireTimeoutMs: FIRE_TIMEOUT_MS,
        preMergePollMs: PRE_MERGE_POLL_MS,
      },
    },
  });
}

async function stopManager(): Promise<void> {
  await manager?.stop();
  manager = undefined;
}

/** Operands nudging the bundle, each on its own repository of the local forge, opted in to pre-merge. */
async function namespace(ns: string): Promise<void> {
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await forge.createRepository(ns, TARGET, BUNDLE_FILES);
  for (const operand of OPERANDS) await forge.createRepository(ns, operand, { 'README.md': `${operand}\n` });
  for (const name of [...OPERANDS, TARGET]) {
    await client.create(COMPONENTS, sandboxComponent(ns, name, forge.repositoryUrl(ns, name)));
  }
  await client.create(NUDGE_CONFIGS, {
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name: 'nudge-config', namespace: ns, annotations: { [PRE_MERGE_ANNOTATION]: 'true' } },
    spec: { nudges: OPERANDS.map((from) => ({ from, to: TARGET })) },
  } as KubeObject);
}

interface HumanPullRequest {
  readonly component: string;
  readonly repo: RepositoryRef;
  readonly number: number;
  readonly head: string;
}

/** A human's PR from `GROUP` on the operand's repository (its branch at main's commit: the builds are what count). */
async function openPullRequest(ns: string, component: string): Promise<HumanPullRequest> {
  const repo = forge.repository(ns, component);
  const git = localGitRun(forge.gitDirectory(repo));
  const head = (await git('rev-parse', ['rev-parse', 'refs/heads/main'])).trim();
  await git('update-ref', ['update-ref', `refs/heads/${GROUP}`, head]);
  const created = await forge.createPullRequest({
    repo,
    base: 'main',
    head: GROUP,
    title: `Change ${component}`,
    body: 'A human change.',
    draft: false,
  });
  return { component, repo, number: created.number, head };
}

/** Pipelines-as-Code's pull_request build of the PR's head, succeeded; answers its digest. */
async function pullRequestBuild(ns: string, pr: HumanPullRequest): Promise<{ name: string; digest: string }> {
  const recorded = await konflux.recordBuild({
    namespace: ns,
    component: pr.component,
    nudge: false,
    commit: pr.head,
    branch: 'main',
    pullRequest: { number: pr.number, sourceBranch: GROUP, repoUrl: forge.cloneUrl(pr.repo) },
  });
  return { name: recorded.pipelineRun, digest: recorded.digest };
}

async function record(ns: string): Promise<PreMergeRecord | undefined> {
  const map = await client
    .get<KubeObject & { data?: Record<string, string> }>(CONFIG_MAPS, ns, preMergeRecordName(GROUP, TARGET))
    .catch(() => undefined);
  if (map === undefined) return undefined;
  const reading = parsePreMergeRecord(map.data?.[PRE_MERGE_RECORD_KEY], GROUP, TARGET);
  assert.ok(reading.ok, reading.ok ? '' : reading.problem);
  return reading.record;
}

/** The record once the trigger states are as given and the content is applied, nothing under way. */
async function settled(ns: string, states: Readonly<Record<string, string>>): Promise<PreMergeRecord> {
  return eventually(`the pre-merge record of ${ns} to show ${JSON.stringify(states)}, applied`, async () => {
    const current = await record(ns);
    if (current === undefined || current.attempt !== undefined || current.applied === undefined) return undefined;
    for (const [key, state] of Object.entries(states)) if (current.triggers[key]?.state !== state) return undefined;
    return current;
  });
}

/** Every PR ever opened on the nudge branch of the bundle. */
async function nudgePullRequests(ns: string): Promise<PullRequest[]> {
  const all = await forge.listPullRequests(forge.repository(ns, TARGET));
  return all.filter((pr) => pr.headBranch === preMergeBranch(GROUP, TARGET));
}

async function fileAt(ns: string, commit: string, path: string): Promise<string> {
  return localGitRun(forge.gitDirectory(forge.repository(ns, TARGET)))('show', ['show', `${commit}:${path}`]);
}

/** The nudge PR's commits on top of the base: the rebuild makes exactly one. */
async function commitsOnBase(ns: string, head: string): Promise<number> {
  const out = await localGitRun(forge.gitDirectory(forge.repository(ns, TARGET)))('rev-list', [
    'rev-list',
    '--count',
    `refs/heads/main..${head}`,
  ]);
  return Number(out.trim());
}

function callsOf(ns: string): PreMergeNudgeRequest[] {
  return crash.calls.filter((call) => call.namespace === ns);
}

before(async () => {
  workDir = mkdtempSync(join(tmpdir(), 'nudger-pre-merge-it-'));
  forge = new LocalForge({ root: join(workDir, 'forge') });
  plane = await startControlPlane({ crds: SANDBOX_CRDS });
  client = new KubeClient(plane.kubeConfig);
  konflux = new KonfluxStandIn(client, { seed: 'pre-merge-controller-test' });
  await startManager();
});

after(async () => {
  await stopManager();
  client.close();
  await plane.close();
  rmSync(workDir, { recursive: true, force: true });
});

describe('pre-merge nudges in the manager, crash-safe', () => {
  it('killed between the pushed nudge PR and its record: the restart finds it, one PR with both digests and both PRs named', async () => {
    const ns = 'pm-crash';
    await namespace(ns);
    const a = await openPullRequest(ns, 'operand-a');
    const buildA = await pullRequestBuild(ns, a);
    await settled(ns, { 'operand-a#1': 'open' });
    assert.equal((await nudgePullRequests(ns)).length, 1);

    // operand-b's PR joins the group; the fire that adds it is the one interrupted.
    const effect = crash.armed();
    const b = await openPullRequest(ns, 'operand-b');
    const buildB = await pullRequestBuild(ns, b);
    await effect;
    await stopManager();
    const interrupted = await record(ns);
    assert.equal(interrupted?.attempt?.state, 'firing', 'the record says the fire was under way, not that it ended');
    const interruptedKey = interrupted.attempt.key;
    assert.notEqual(interrupted.applied?.key, interruptedKey);
    const [pushed] = await nudgePullRequests(ns);
    assert.ok(pushed !== undefined);
    assert.equal(parsePreMergeStamp(pushed.body), interruptedKey, 'the effect happened before the crash');

    await startManager();
    const final = await eventually('the restarted manager to apply the interrupted content', async () => {
      const current = await record(ns);
      return current?.attempt === undefined && current?.applied?.key === interruptedKey ? current : undefined;
    });
    assert.equal(final.triggers['operand-b#1']?.pullRequestBuild.name, buildB.name);
    const retried = callsOf(ns).filter((call) => call.key === interruptedKey);
    assert.ok(retried.length >= 1, 'the restarted manager fired the interrupted content again, with its key');
    assert.ok(callsOf(ns).every((call) => call.key !== interruptedKey || call.attempt >= 1));

    const prs = await nudgePullRequests(ns);
    assert.equal(prs.length, 1, 'one nudge PR for (group, target), never a second');
    const [pr] = prs;
    assert.ok(pr !== undefined);
    assert.equal(pr.number, pushed.number);
    assert.equal(pr.state, 'open');
    assert.equal(pr.draft, true, 'a draft while its triggers are open');
    assert.equal(pr.headSha, pushed.headSha, 'the retry found the branch holding the content: nothing pushed again');
    assert.equal(await commitsOnBase(ns, pr.headSha), 1);
    assert.equal(await fileAt(ns, pr.headSha, 'Dockerfile'), `FROM ${imageOf('operand-a')}@${buildA.digest}\n`);
    const csv = await fileAt(ns, pr.headSha, 'manifests/csv.yaml');
    assert.ok(csv.includes(`${imageOf('operand-a')}@${buildA.digest}`));
    assert.ok(csv.includes(`${imageOf('operand-b')}@${buildB.digest}`));
    const block = preMergeBlockOf(pr.body);
    assert.ok(block !== undefined, 'the managed block is in the description');
    for (const [component, digest] of [
      ['operand-a', buildA.digest],
      ['operand-b', buildB.digest],
    ] as const) {
      const url = (await forge.getPullRequest(forge.repository(ns, component), 1)).url;
      assert.ok(block.includes(`| ${component} | [#1](${url}) | open | \`${digest}\``), `${component}'s row: ${block}`);
    }
  });

  it('a triggering PR closed unmerged while the manager is down, then the last one closed and the manager killed: one PR, reverted then closed', async () => {
    const ns = 'pm-closed';
    await namespace(ns);
    const a = await openPullRequest(ns, 'operand-a');
    const b = await openPullRequest(ns, 'operand-b');
    const buildA = await pullRequestBuild(ns, a);
    const buildB = await pullRequestBuild(ns, b);
    await eventually('both builds in the nudge PR', async () => {
      const current = await settled(ns, { 'operand-a#1': 'open', 'operand-b#1': 'open' });
      return current.triggers['operand-b#1']?.pullRequestBuild.name === buildB.name &&
        current.triggers['operand-a#1']?.pullRequestBuild.name === buildA.name
        ? current
        : undefined;
    });
    const [opened] = await nudgePullRequests(ns);
    assert.ok(opened !== undefined);
    assert.ok((await fileAt(ns, opened.headSha, 'manifests/csv.yaml')).includes(buildA.digest));

    // The human closes operand-a's PR while no manager runs.
    await stopManager();
    await forge.close(a.repo, a.number);
    await startManager();
    await settled(ns, { 'operand-a#1': 'closed', 'operand-b#1': 'open' });
    const [reverted, ...none] = await nudgePullRequests(ns);
    assert.equal(none.length, 0);
    assert.ok(reverted !== undefined);
    assert.equal(reverted.number, opened.number, 'the same PR, updated');
    assert.equal(reverted.state, 'open');
    assert.equal(reverted.draft, true, 'operand-b is still open');
    assert.equal(await commitsOnBase(ns, reverted.headSha), 1);
    assert.equal(
      await fileAt(ns, reverted.headSha, 'Dockerfile'),
      BUNDLE_FILES.Dockerfile,
      "operand-a is the base's again",
    );
    const csv = await fileAt(ns, reverted.headSha, 'manifests/csv.yaml');
    assert.ok(csv.includes(`${imageOf('operand-a')}@${BASE_DIGEST}`));
    assert.ok(csv.includes(`${imageOf('operand-b')}@${buildB.digest}`));
    const block = preMergeBlockOf(reverted.body) ?? '';
    assert.match(block, /\| operand-a \| \[#1\]\([^)]*\) \| closed \| the base's \|/);
    assert.ok(block.includes(`| operand-b | [#1](`) && block.includes(`\`${buildB.digest}\``));

    // The last trigger closes; the manager dies after closing the nudge PR, before its record.
    const effect = crash.armed();
    await forge.close(b.repo, b.number);
    await effect;
    await stopManager();
    const interrupted = await record(ns);
    assert.equal(interrupted?.attempt?.state, 'firing');
    const closingKey = interrupted.attempt.key;
    await startManager();
    await eventually('the restarted manager to apply the close', async () => {
      const current = await record(ns);
      return current?.attempt === undefined && current?.applied?.key === closingKey ? true : undefined;
    });
    const [closed, ...others] = await nudgePullRequests(ns);
    assert.equal(others.length, 0, 'no PR opened again for a group with nothing left');
    assert.ok(closed !== undefined);
    assert.equal(closed.number, opened.number);
    assert.equal(closed.state, 'closed');
    assert.equal(parsePreMergeStamp(closed.body), closingKey);
    assert.match(preMergeBlockOf(closed.body) ?? '', /\| operand-b \| \[#1\]\([^)]*\) \| closed \|/);
  });
});
