// Validated nudges played end to end on one sandbox (real control plane, the manager with its
// dispatcher, real git on the local forge; docs/decisions.md D10): the shipped example gives one
// pull request on the group's batch branch, moved by each passing Snapshot and never by a failing
// one, and `nudges[]` names each Snapshot and the build of each digest; immediate and validated
// entries of one component each follow their own rule, and a ChangeGroup holds validated ones;
// a Snapshot the dispatcher never acts on is named in the error.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { PIPELINE_RUNS, SNAPSHOTS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { readBuildPipelineRun } from '../../src/domain/nudge-pipelinerun.ts';
import { validatedBranch } from '../../src/domain/nudge/validated-text.ts';
import type { SandboxEnvironment } from '../../src/sandbox/environment.ts';
import { SandboxSnapshotError } from '../../src/sandbox/play.ts';
import { playInEnvironment } from '../../src/sandbox/run.ts';
import { loadScenarioFile } from '../../src/sandbox/scenario/load.ts';
import { initialDigest } from '../../src/sandbox/scenario/objects.ts';
import { checkScenarioDocument } from '../../src/sandbox/scenario/parse.ts';
import { sandboxResultProblems, type SandboxResult } from '../../src/sandbox/scenario/result.ts';
import type { ScenarioDocument } from '../../src/sandbox/scenario/schema.ts';
import { filesAt, imageOf, pinnedDigests, repoOf, startEnvironment } from '../e2e/helpers.ts';

const EXAMPLE = fileURLToPath(new URL('../../examples/sandbox/validated-bundle.yaml', import.meta.url));

let env: SandboxEnvironment;

before(async () => {
  env = await startEnvironment();
});

after(async () => {
  await env.close();
});

interface SnapshotResource extends KubeObject {
  status?: { conditions?: { type: string; reason?: string }[] };
}

/** The namespace's Snapshots, oldest first (by pipelinerunstarttime), with their test reason. */
async function snapshotsOf(namespace: string): Promise<{ name: string; reason: string | undefined }[]> {
  const items = (await env.client.list<SnapshotResource>(SNAPSHOTS, { namespace })).items;
  const start = (s: SnapshotResource): number =>
    Number(s.metadata?.annotations?.['test.appstudio.openshift.io/pipelinerunstarttime']);
  return [...items]
    .sort((a, b) => start(a) - start(b))
    .map((s) => ({
      name: s.metadata?.name ?? '',
      reason: s.status?.conditions?.find((c) => c.type === 'AppStudioTestSucceeded')?.reason,
    }));
}

/** The component and pushed digest of a build PipelineRun, as the cluster holds it. */
async function builtBy(namespace: string, build: string): Promise<[string | undefined, string | undefined]> {
  const view = readBuildPipelineRun(await env.client.get(PIPELINE_RUNS, namespace, build));
  return [view?.component, view?.imageDigest];
}

function checked(result: SandboxResult): SandboxResult {
  assert.deepEqual(sandboxResultProblems(result), []);
  return result;
}

describe('validated nudges in the sandbox', () => {
  it('plays examples/sandbox/validated-bundle.yaml: one batch pull request, moved by passing Snapshots only', async () => {
    const scenario = await loadScenarioFile(EXAMPLE);
    const result = checked(await playInEnvironment(env, scenario));
    const namespace = scenario.namespace;
    const snapshots = await snapshotsOf(namespace);
    assert.deepEqual(
      snapshots.map((s) => s.reason),
      ['Failed', 'Passed', 'Passed'],
    );
    const [, first, second] = snapshots.map((s) => s.name);

    const branch = validatedBranch('bundle', 'operands');
    assert.deepEqual(
      result.pullRequests.map((pr) => [pr.repository, pr.branch, pr.state]),
      [['bundle', branch, 'open']],
    );
    const url = result.pullRequests[0]?.url;
    assert.deepEqual(
      result.nudges.map((n) => [n.from, n.to, n.mode, n.snapshot, n.outcome, n.executor, n.pullRequest, n.heldBy]),
      [
        ['op-a', 'bundle', 'validated', first, 'pullRequest', 'direct', url, null],
        ['op-b', 'bundle', 'validated', first, 'pullRequest', 'direct', url, null],
        ['op-c', 'bundle', 'validated', first, 'pullRequest', 'direct', url, null],
        ['op-d', 'bundle', 'validated', first, 'pullRequest', 'direct', url, null],
        ['op-b', 'bundle', 'validated', second, 'pullRequest', 'direct', url, null],
      ],
    );
    // Each item names the build that pushed its digest; op-b's second item its second build.
    for (const nudge of result.nudges) {
      assert.deepEqual(await builtBy(namespace, nudge.build), [nudge.from, nudge.digest]);
    }
    assert.notEqual(result.nudges[1]?.build, result.nudges[4]?.build);

    // The pull request carries the latest validated digest of each operand; op-e, never built, keeps its pin.
    const repo = repoOf(env, namespace, 'bundle');
    const head = await env.forge.branchHead(repo, branch);
    assert.ok(head !== undefined);
    const files = await filesAt(env, repo, head);
    const latest = new Map(result.nudges.map((n) => [n.from, n.digest]));
    for (const operand of ['op-a', 'op-b', 'op-c', 'op-d'])
      assert.deepEqual(pinnedDigests(files, `quay.io/org/${operand}`), [latest.get(operand)], operand);
    assert.deepEqual(pinnedDigests(files, 'quay.io/org/op-e'), [initialDigest('quay.io/org/op-e')]);
  });

  it('fires an immediate entry on the build and lets a ChangeGroup hold validated ones (renovate executor)', async () => {
    const namespace = 'validated-held';
    const document: ScenarioDocument = {
      namespace,
      executor: 'renovate',
      components: [
        {
          name: 'op-a',
          image: imageOf('op-a'),
          nudges: [{ to: 'bundle', mode: 'validated', gatingGroup: 'operands' }, 'docs'],
        },
        {
          name: 'op-b',
          image: imageOf('op-b'),
          nudges: [{ to: 'bundle', mode: 'validated', gatingGroup: 'operands' }],
        },
        { name: 'bundle', image: imageOf('bundle') },
        { name: 'docs', image: imageOf('docs') },
      ],
      componentGroups: [{ name: 'operands', components: ['op-a', 'op-b'] }],
      changeGroups: [{ name: 'bundle-update', nudgedComponent: 'bundle' }],
      steps: [{ build: 'op-a' }, { build: 'op-b' }, { snapshot: { group: 'operands', passed: true } }],
    };
    const result = checked(await playInEnvironment(env, checkScenarioDocument(document, namespace)));
    const [snapshot] = (await snapshotsOf(namespace)).map((s) => s.name);
    const docsPr = result.pullRequests.find((pr) => pr.repository === 'docs')?.url;
    assert.ok(docsPr !== undefined);
    assert.deepEqual(
      result.nudges.map((n) => [n.from, n.to, n.mode, n.snapshot, n.outcome, n.pullRequest, n.heldBy]),
      [
        ['op-a', 'docs', 'immediate', null, 'pullRequest', docsPr, null],
        ['op-a', 'bundle', 'validated', snapshot, 'held', null, 'bundle-update'],
        ['op-b', 'bundle', 'validated', snapshot, 'held', null, 'bundle-update'],
      ],
    );
    // No batch pull request of its own: the ChangeGroup's collects both digests.
    assert.equal(
      result.pullRequests.some((pr) => pr.branch === validatedBranch('bundle', 'operands')),
      false,
    );
    const group = result.changeGroups[0];
    assert.equal(group?.phase, 'Ready');
    assert.deepEqual(
      group.components.map((c) => [c.name, c.newBuild]),
      result.nudges.slice(1).map((n) => [n.from, n.digest]),
    );
  });

  it("acts on a validated entry's pull request by its group's batch branch", async () => {
    const namespace = 'validated-merge';
    const document: ScenarioDocument = {
      namespace,
      components: [
        { name: 'op-a', image: imageOf('op-a'), nudges: [{ to: 'bundle', mode: 'validated', gatingGroup: 'g' }] },
        { name: 'bundle', image: imageOf('bundle') },
      ],
      componentGroups: [{ name: 'g', components: ['op-a'] }],
      steps: [
        { build: 'op-a' },
        { snapshot: { group: 'g', passed: true } },
        { mergeNudgePullRequest: { from: 'op-a', to: 'bundle' } },
      ],
    };
    const result = checked(await playInEnvironment(env, checkScenarioDocument(document, namespace)));
    assert.deepEqual(
      result.pullRequests.map((pr) => [pr.branch, pr.state]),
      [[validatedBranch('bundle', 'g'), 'merged']],
    );
    assert.deepEqual(pinnedDigests(result.files.bundle ?? {}, imageOf('op-a')), [result.nudges[0]?.digest]);
  });

  it('names the Snapshot and the entries the dispatcher did not move in time', async () => {
    const namespace = 'validated-stalled';
    const document: ScenarioDocument = {
      namespace,
      components: [
        { name: 'op-a', image: imageOf('op-a'), nudges: [{ to: 'bundle', mode: 'validated', gatingGroup: 'g' }] },
        { name: 'bundle', image: imageOf('bundle') },
      ],
      componentGroups: [{ name: 'g', components: ['op-a'] }],
      steps: [{ build: 'op-a' }, { snapshot: { group: 'g', passed: true } }],
    };
    try {
      await assert.rejects(
        playInEnvironment(env, checkScenarioDocument(document, namespace), {
          settleTimeoutMs: 3000,
          // The dispatcher goes away after the build: nothing will act on the Snapshot.
          afterStep: async (_step, index) => {
            if (index === 0) await env.stopManager();
          },
        }),
        (error: unknown) =>
          error instanceof SandboxSnapshotError &&
          error.group === 'g' &&
          /^nudger's dispatcher did not settle Snapshot validated-stalled\/g-[a-z0-9]{5} of ComponentGroup g: the validated entries op-a -> bundle \(gatingGroup g\) were not nudged within 3 s/.test(
            error.message,
          ),
      );
    } finally {
      await env.startManager();
    }
  });
});
