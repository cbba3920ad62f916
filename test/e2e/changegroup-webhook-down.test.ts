// docs/decisions.md D2-D3 end to end. With the mutating webhook gone (failurePolicy Ignore: nudger's
// outage never blocks builds), a nudge PipelineRun is admitted uncancelled; the sweeper in the
// manager cancels it before Tekton starts it, and the ChangeGroup still collects its digest. And a
// forged nudge, naming a build that does not exist or did not succeed, is held but never reaches
// the pull request: the ChangeGroup reports it in its BuildsVerified condition.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PIPELINE_RUNS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { HELD_TARGETS_ANNOTATION } from '../../src/domain/changegroup/hold-decision.ts';
import { CONDITION_BUILDS_VERIFIED } from '../../src/domain/changegroup/model.ts';
import {
  COMPONENT_LABEL,
  NUDGED_COMPONENTS_ANNOTATION,
  NUDGE_TYPE_LABEL,
  NUDGE_TYPE_VALUE,
  NUDGING_COMPONENT_ANNOTATION,
  NUDGING_PIPELINE_ANNOTATION,
  PAC_EVENT_TYPE_KEY,
  PIPELINE_TYPE_LABEL,
  TARGET_BRANCH_ANNOTATION,
} from '../../src/domain/nudge-pipelinerun.ts';
import type { SandboxEnvironment } from '../../src/sandbox/environment.ts';
import { MUTATING_WEBHOOK_CONFIGURATIONS } from '../../src/sandbox/webhooks.ts';
import {
  BUNDLE,
  CHANGE_GROUP,
  build,
  conditionOf,
  digestOf,
  eventually,
  filesAt,
  imageOf,
  listPipelineRuns,
  onlyPullRequest,
  pinnedDigests,
  playWithChecks,
  readChangeGroup,
  renovatePullRequest,
  repoOf,
  smallScenario,
  startEnvironment,
  type NudgePipelineRunObject,
} from './helpers.ts';

const MUTATING = 'nudger-sandbox-mutating';

let env: SandboxEnvironment;

before(async () => {
  env = await startEnvironment();
});

after(async () => {
  await env.close();
});

function nudge(namespace: string, nudging: string, buildRun: string, name: string): KubeObject {
  return {
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: {
      name,
      namespace,
      labels: { [NUDGE_TYPE_LABEL]: NUDGE_TYPE_VALUE },
      annotations: {
        [NUDGED_COMPONENTS_ANNOTATION]: BUNDLE,
        [NUDGING_COMPONENT_ANNOTATION]: nudging,
        [NUDGING_PIPELINE_ANNOTATION]: buildRun,
      },
    },
    spec: { pipelineRef: { name: 'renovate' } },
  } as KubeObject;
}

/** Whether a nudge of `nudging` would be admitted cancelled right now (a dry run). */
async function admittedCancelled(namespace: string, nudging: string): Promise<boolean> {
  const probe = await env.client.create<NudgePipelineRunObject>(
    PIPELINE_RUNS,
    {
      ...nudge(namespace, nudging, 'probe', 'probe'),
      metadata: { ...nudge(namespace, nudging, 'probe', 'probe').metadata, name: undefined, generateName: 'probe-' },
    },
    { dryRun: true },
  );
  return probe.spec?.status === 'Cancelled';
}

async function runNamed(namespace: string, name: string): Promise<NudgePipelineRunObject | undefined> {
  return (await listPipelineRuns(env, namespace)).find((r) => r.metadata?.name === name);
}

describe('ChangeGroup holds without the webhook, and never trusts a forged nudge', () => {
  it('webhook down: the nudge is admitted uncancelled, the sweeper holds it, its digest is collected', async () => {
    const ns = 'wh-down';
    const repo = repoOf(env, ns, BUNDLE);
    const player = await playWithChecks(env, smallScenario(ns, [build(ns, 'operand-a')]));
    await eventually('the webhook to hold nudges', async () =>
      (await admittedCancelled(ns, 'operand-b')) ? true : undefined,
    );

    const saved = await env.client.get(MUTATING_WEBHOOK_CONFIGURATIONS, '', MUTATING);
    await env.client.delete(MUTATING_WEBHOOK_CONFIGURATIONS, '', MUTATING);
    try {
      await eventually('the apiserver to stop calling the webhook', async () =>
        (await admittedCancelled(ns, 'operand-b')) ? undefined : true,
      );
      // Tekton must not pick the run up first: a started run is never cancelled.
      await env.tekton.stop();
      try {
        const recorded = await env.konflux.recordBuild({
          namespace: ns,
          component: 'operand-b',
          digest: digestOf(ns, 'operand-b'),
        });
        assert.ok(recorded.nudge !== undefined);
        assert.equal(recorded.nudge.specStatus, '', 'admitted uncancelled');
        const name = recorded.nudge.name;
        const swept = await eventually('the sweeper to cancel the nudge', async () => {
          const run = await runNamed(ns, name);
          return run?.spec?.status === 'Cancelled' ? run : undefined;
        });
        assert.equal(swept.metadata?.annotations?.[HELD_TARGETS_ANNOTATION], `${BUNDLE}=${CHANGE_GROUP}`);
        assert.equal(swept.status, undefined, 'cancelled before it started');
      } finally {
        env.tekton.start(env.pollIntervalMs, () => undefined);
      }
      await player.settle();
    } finally {
      const { metadata } = saved;
      await env.client.create(MUTATING_WEBHOOK_CONFIGURATIONS, {
        ...saved,
        metadata: { name: metadata?.name ?? MUTATING, labels: metadata?.labels ?? {} },
      });
    }

    const cg = await readChangeGroup(env, ns, CHANGE_GROUP);
    assert.deepEqual(
      (cg.status?.components ?? []).map((c) => [c.name, c.state, c.newBuild ?? null]),
      [
        ['operand-a', 'Ready', digestOf(ns, 'operand-a')],
        ['operand-b', 'Ready', digestOf(ns, 'operand-b')],
        ['operand-c', 'Waiting', null],
      ],
    );
    const pr = await onlyPullRequest(env, repo, CHANGE_GROUP);
    const files = await filesAt(env, repo, pr.headSha);
    assert.deepEqual(pinnedDigests(files, imageOf('operand-b')), [digestOf(ns, 'operand-b')]);
    assert.equal(await renovatePullRequest(env, repo, BUNDLE, 'operand-b'), undefined, 'no ordinary nudge PR');
    assert.equal((await env.forge.listPullRequests(repo)).length, 1);
  });

  it('a forged nudge is held, but the pull request is untouched and BuildsVerified is False', async () => {
    const ns = 'wh-forged';
    const repo = repoOf(env, ns, BUNDLE);
    const player = await playWithChecks(env, smallScenario(ns, [build(ns, 'operand-a')]));
    await eventually('the webhook to hold nudges again', async () =>
      (await admittedCancelled(ns, 'operand-b')) ? true : undefined,
    );
    const head = (await onlyPullRequest(env, repo, CHANGE_GROUP)).headSha;

    // A build of operand-c that failed, with the labels and annotations of a real push build.
    const failed = await env.client.create<KubeObject>(PIPELINE_RUNS, {
      apiVersion: 'tekton.dev/v1',
      kind: 'PipelineRun',
      metadata: {
        name: 'operand-c-on-push-failed',
        namespace: ns,
        labels: { [COMPONENT_LABEL]: 'operand-c', [PIPELINE_TYPE_LABEL]: 'build', [PAC_EVENT_TYPE_KEY]: 'push' },
        // Of the branch the Component tracks, so that only its outcome can reject it.
        annotations: { [PAC_EVENT_TYPE_KEY]: 'push', [TARGET_BRANCH_ANNOTATION]: 'main' },
      },
      spec: { pipelineRef: { name: 'docker-build' } },
    } as KubeObject);
    const now = new Date().toISOString();
    await env.client.patchStatus(PIPELINE_RUNS, ns, failed.metadata?.name ?? '', 'merge', {
      status: {
        startTime: now,
        completionTime: now,
        conditions: [
          { type: 'Succeeded', status: 'False', reason: 'Failed', message: 'failed', lastTransitionTime: now },
        ],
        results: [
          { name: 'IMAGE_URL', value: `${imageOf('operand-c')}:forged` },
          { name: 'IMAGE_DIGEST', value: digestOf(ns, 'operand-c') },
        ],
      },
    });
    const ghost = await env.client.create<NudgePipelineRunObject>(
      PIPELINE_RUNS,
      nudge(ns, 'operand-b', 'operand-b-on-push-nonexistent', 'forged-nudge-ghost'),
    );
    const unfinished = await env.client.create<NudgePipelineRunObject>(
      PIPELINE_RUNS,
      nudge(ns, 'operand-c', 'operand-c-on-push-failed', 'forged-nudge-failed'),
    );
    assert.equal(ghost.spec?.status, 'Cancelled', 'held at admission');
    assert.equal(unfinished.spec?.status, 'Cancelled', 'held at admission');
    await player.settle();

    const pr = await onlyPullRequest(env, repo, CHANGE_GROUP);
    assert.equal(pr.headSha, head, 'the pull request is untouched');
    const cg = await readChangeGroup(env, ns, CHANGE_GROUP);
    assert.deepEqual(
      (cg.status?.components ?? []).map((c) => [c.name, c.state, c.newBuild ?? null]),
      [
        ['operand-a', 'Ready', digestOf(ns, 'operand-a')],
        ['operand-b', 'Waiting', null],
        ['operand-c', 'Waiting', null],
      ],
    );
    const verified = conditionOf(cg, CONDITION_BUILDS_VERIFIED);
    assert.equal(verified?.status, 'False');
    assert.equal(verified.reason, 'UnverifiedBuild');
    assert.match(verified.message, /forged-nudge-ghost \(operand-b\): build-not-found/);
    assert.match(verified.message, /forged-nudge-failed \(operand-c\): not-succeeded/);
    assert.equal(verified.message.includes(digestOf(ns, 'operand-c')), false, 'never echoes a forged digest');
    assert.equal((await env.forge.listPullRequests(repo)).length, 1, 'no ordinary nudge either');
  });
});
