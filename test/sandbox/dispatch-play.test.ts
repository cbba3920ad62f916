// Scenarios with nudger dispatching, played end to end on one sandbox (real control plane, the
// manager with its dispatcher and the direct executor, real git on the local forge): the same
// steps nudged by the build-service stand-in and by nudger give the same pull requests, branches
// and files; `nudges` reads the done-markers; a held target gets no pull request of its own; a
// failed build nudges nothing; the steps on nudge pull requests act on the edge's branch; the
// default run's third figure; a build the dispatcher never settles is named in the error; and a
// partial hold of a build-service run nudges only the uncovered target.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { NUDGE_CONFIGS, PIPELINE_RUNS } from '../../src/adapters/kubernetes/resources.ts';
import { NUDGE_CONFIG_NAME } from '../../src/domain/model.ts';
import { changeGroupBranch } from '../../src/domain/changegroup/model.ts';
import { DISPATCH_MARKER_ANNOTATION } from '../../src/domain/nudge/dispatch-marker.ts';
import { nudgeBranch } from '../../src/domain/nudge/pull-request-text.ts';
import type { SandboxEnvironment } from '../../src/sandbox/environment.ts';
import { ScenarioPlayer, SandboxDispatchError, SandboxStepError } from '../../src/sandbox/play.ts';
import { compareInEnvironment, playInEnvironment } from '../../src/sandbox/run.ts';
import { checkScenarioDocument } from '../../src/sandbox/scenario/parse.ts';
import { sandboxResultProblems, type SandboxResult } from '../../src/sandbox/scenario/result.ts';
import type { ScenarioDocument } from '../../src/sandbox/scenario/schema.ts';
import {
  changeGroupPullRequests,
  digestOf,
  filesAt,
  imageOf,
  listPipelineRuns,
  pinnedDigests,
  renovatePullRequest,
  repoOf,
  startEnvironment,
} from '../e2e/helpers.ts';

let env: SandboxEnvironment;

before(async () => {
  env = await startEnvironment();
});

after(async () => {
  await env.close();
});

const BUNDLE = 'bundle';
const SIMPLE = 'konflux/component-updates/component-update-op-a';
const PLAIN = 'konflux/component-updates/bundle-component-update-op-b';

/** op-a (simple branch) and op-b nudge the bundle; op-b is built, fails, and a human commits on its PR. */
function pullRequestScenario(namespace: string, nudgedBy: 'nudger' | 'build-service'): ScenarioDocument {
  return {
    namespace,
    nudgedBy,
    ...(nudgedBy === 'nudger' && { executor: 'direct' as const }),
    components: [
      { name: 'op-a', image: imageOf('op-a'), nudges: [BUNDLE], simpleBranch: true },
      { name: 'op-b', image: imageOf('op-b'), nudges: [BUNDLE] },
      { name: BUNDLE, image: imageOf(BUNDLE) },
    ],
    steps: [
      { build: 'op-a', digest: digestOf(namespace, 'op-a') },
      { build: 'op-b', digest: digestOf(namespace, 'op-b'), nudgeFiles: 'Dockerfile' },
      { build: 'op-b', digest: digestOf(namespace, 'op-b', 2), succeeded: false },
      { mergeNudgePullRequest: { from: 'op-a', to: BUNDLE } },
      { humanCommitOnNudge: { from: 'op-b', to: BUNDLE }, message: 'a human was here' },
    ],
  };
}

/** op-a and op-b nudge the bundle, a ChangeGroup collects both, and each is built once. */
function changeGroupScenario(namespace: string): ScenarioDocument {
  return {
    namespace,
    components: [
      { name: 'op-a', image: imageOf('op-a'), nudges: [BUNDLE] },
      { name: 'op-b', image: imageOf('op-b'), nudges: [BUNDLE] },
      { name: BUNDLE, image: imageOf(BUNDLE) },
    ],
    changeGroups: [{ name: 'bundle-update', nudgedComponent: BUNDLE }],
    steps: [
      { build: 'op-a', digest: digestOf(namespace, 'op-a') },
      { build: 'op-b', digest: digestOf(namespace, 'op-b') },
    ],
  };
}

async function play(document: ScenarioDocument): Promise<SandboxResult> {
  const result = await playInEnvironment(env, checkScenarioDocument(document, document.namespace));
  assert.deepEqual(sandboxResultProblems(result), []);
  return result;
}

/** What a user sees of each pull request, whoever opened it. */
function seen(result: SandboxResult): unknown[] {
  return result.pullRequests.map(({ repository, branch, title, state, draft, commits, headCommitMessage }) => ({
    repository,
    branch,
    title,
    state,
    draft,
    commits,
    subject: headCommitMessage.split('\n', 1)[0],
  }));
}

describe('nudger dispatching in the sandbox', { concurrency: true }, () => {
  it('opens the pull requests build-service would, and nudges reads the markers', async () => {
    const [byBuildService, byNudger] = await Promise.all([
      play(pullRequestScenario('dp-build-service', 'build-service')),
      play(pullRequestScenario('dp-nudger', 'nudger')),
    ]);
    const digestA = digestOf('dp-nudger', 'op-a');
    const digestB = digestOf('dp-nudger', 'op-b');
    assert.deepEqual(
      seen(byNudger).map((pr) => ({ ...(pr as object) })),
      [
        {
          repository: BUNDLE,
          branch: SIMPLE,
          title: `Update op-a to ${digestA.slice(7, 14)}`,
          state: 'merged',
          draft: false,
          commits: 0,
          subject: `Update op-a to ${digestA.slice(7, 14)}`,
        },
        {
          repository: BUNDLE,
          branch: PLAIN,
          title: `Update op-b to ${digestB.slice(7, 14)}`,
          state: 'open',
          draft: false,
          commits: 2,
          subject: 'a human was here',
        },
      ],
    );
    // The same branches, states and commit counts with build-service (its digests differ by namespace).
    assert.deepEqual(
      seen(byBuildService).map((pr) => {
        const { title: _title, subject: _subject, ...rest } = pr as Record<string, unknown>;
        return rest;
      }),
      seen(byNudger).map((pr) => {
        const { title: _title, subject: _subject, ...rest } = pr as Record<string, unknown>;
        return rest;
      }),
    );
    assert.ok(
      byNudger.pullRequests.every((pr) => pr.labels.includes('konflux-nudge')),
      'the direct executor labels',
    );
    assert.deepEqual(pinnedDigests(byNudger.files[BUNDLE] ?? {}, imageOf('op-a')), [digestA], 'merged to main');

    assert.deepEqual(byBuildService.nudges, [], 'build-service nudged: nudges lists nudger dispatch only');
    // integration-service's marker is on before the build succeeds, so the dispatcher never fired
    // from these builds (it would have pushed to the same branches, unseen in the pull requests).
    const builds = (
      await env.client.list(PIPELINE_RUNS, {
        namespace: 'dp-build-service',
        labelSelector: 'pipelines.appstudio.openshift.io/type=build',
      })
    ).items;
    assert.equal(builds.length, 3);
    for (const build of builds) {
      const marker = build.metadata?.annotations?.[DISPATCH_MARKER_ANNOTATION];
      const succeeded =
        build.metadata?.annotations?.['test.appstudio.openshift.io/component-nudge-processed'] !== undefined;
      assert.equal(marker, succeeded ? 'v1 *=skipped:integration-service' : 'v1 *=skipped:not-succeeded');
    }
    const prA = byNudger.pullRequests.find((pr) => pr.branch === SIMPLE)?.url;
    const prB = byNudger.pullRequests.find((pr) => pr.branch === PLAIN)?.url;
    assert.deepEqual(
      byNudger.nudges.map(({ build: _build, ...nudge }) => nudge),
      [
        {
          from: 'op-a',
          to: BUNDLE,
          digest: digestA,
          executor: 'direct',
          mode: 'immediate',
          event: 'push',
          snapshot: null,
          outcome: 'pullRequest',
          pullRequest: prA,
          heldBy: null,
        },
        {
          from: 'op-b',
          to: BUNDLE,
          digest: digestB,
          executor: 'direct',
          mode: 'immediate',
          event: 'push',
          snapshot: null,
          outcome: 'pullRequest',
          pullRequest: prB,
          heldBy: null,
        },
        {
          from: 'op-b',
          to: BUNDLE,
          digest: null,
          executor: 'direct',
          mode: 'immediate',
          event: 'push',
          snapshot: null,
          outcome: 'skipped',
          reason: 'not-succeeded',
          pullRequest: null,
          heldBy: null,
        },
      ],
    );
    assert.equal(new Set(byNudger.nudges.map((n) => n.build)).size, 3, 'one entry per build');
    assert.equal(nudgeBranch(BUNDLE, 'op-a', true), SIMPLE);
  });

  it('holds a target a ChangeGroup collects: no nudge pull request, its digests in the ChangeGroup PR', async () => {
    const namespace = 'dp-held';
    const result = await play(changeGroupScenario(namespace));
    assert.deepEqual(
      result.nudges.map((n) => [n.from, n.outcome, n.heldBy, n.pullRequest]),
      [
        ['op-a', 'held', 'bundle-update', null],
        ['op-b', 'held', 'bundle-update', null],
      ],
    );
    assert.deepEqual(
      result.pullRequests.map((pr) => [pr.repository, pr.branch, pr.state]),
      [[BUNDLE, changeGroupBranch('bundle-update'), 'open']],
    );
    assert.equal(result.changeGroups[0]?.phase, 'Ready');
    const files = result.files[BUNDLE] ?? {};
    assert.deepEqual(pinnedDigests(files, imageOf('op-a')), [digestOf(namespace, 'op-a')]);
    assert.deepEqual(pinnedDigests(files, imageOf('op-b')), [digestOf(namespace, 'op-b')]);
  });

  it("adds the default run's third figure: builds and pull requests with nudger dispatching directly", async () => {
    const namespace = 'dp-compare';
    const scenario = checkScenarioDocument(changeGroupScenario(namespace), namespace);
    const result = await compareInEnvironment(env, scenario);
    assert.deepEqual(sandboxResultProblems(result), []);
    assert.deepEqual(result.comparison, {
      nudgedComponent: BUNDLE,
      withChangeGroups: { builds: 1 },
      withoutChangeGroups: { builds: 2 },
      nudgerDirect: { builds: 1, pullRequests: 1 },
    });
    assert.deepEqual(result.nudges, [], 'the top-level keys describe the build-service run');
  });

  it("honours the Renovate ConfigMaps and build-nudge-files: a component's own replaces the namespace-wide one", async () => {
    const namespace = 'dp-config';
    const result = await play({
      namespace,
      renovateConfig: { labels: 'team-a' },
      components: [
        { name: 'op-a', image: imageOf('op-a'), nudges: [BUNDLE, 'docs'] },
        { name: 'op-b', image: imageOf('op-b'), nudges: ['docs'] },
        // Its own ConfigMap lets the nudge touch README.md only, where nothing references op-a.
        { name: BUNDLE, image: imageOf(BUNDLE), renovateConfig: { fileMatch: 'README.md' } },
        { name: 'docs', image: imageOf('docs') },
      ],
      steps: [
        { build: 'op-a', digest: digestOf(namespace, 'op-a') },
        // Without a fileMatch in the ConfigMap in force, the build's annotation decides: nothing matches.
        { build: 'op-b', digest: digestOf(namespace, 'op-b'), nudgeFiles: 'README.md' },
      ],
    });
    assert.deepEqual(
      result.nudges.map((n) => [n.from, n.to, n.outcome, n.pullRequest === null]),
      [
        ['op-a', BUNDLE, 'pullRequest', true],
        ['op-a', 'docs', 'pullRequest', false],
        ['op-b', 'docs', 'pullRequest', true],
      ],
      'a nudge with nothing to rewrite opens no pull request',
    );
    assert.deepEqual(
      result.pullRequests.map((pr) => [pr.repository, pr.branch, pr.labels]),
      [['docs', nudgeBranch('docs', 'op-a', false), ['konflux-nudge', 'team-a']]],
    );
  });

  it('gives the same pull requests, branches and files with the direct and the renovate executor', async () => {
    const document = (namespace: string, executor: 'direct' | 'renovate'): ScenarioDocument => ({
      namespace,
      executor,
      renovateConfig: { labels: 'team-a' },
      components: [
        { name: 'op-a', image: imageOf('op-a'), nudges: [BUNDLE], simpleBranch: true },
        { name: 'op-b', image: imageOf('op-b'), nudges: [BUNDLE] },
        { name: BUNDLE, image: imageOf(BUNDLE) },
      ],
      // The same digests in both namespaces, so titles and files compare equal.
      steps: [
        { build: 'op-a', digest: digestOf('dp-exec', 'op-a') },
        { build: 'op-b', digest: digestOf('dp-exec', 'op-b') },
        { build: 'op-b', digest: digestOf('dp-exec', 'op-b', 2) },
      ],
    });
    const [direct, renovate] = await Promise.all([
      play(document('dp-exec-direct', 'direct')),
      play(document('dp-exec-renovate', 'renovate')),
    ]);
    assert.deepEqual(seen(renovate), seen(direct));
    assert.deepEqual(
      seen(direct).map((pr) => (pr as { branch: string }).branch),
      [SIMPLE, PLAIN],
    );
    assert.deepEqual(
      renovate.pullRequests.map((pr) => pr.labels),
      direct.pullRequests.map((pr) => pr.labels),
    );
    const filesOf = async (namespace: string, result: SandboxResult): Promise<Record<string, string>[]> => {
      const repo = repoOf(env, namespace, BUNDLE);
      const heads = await Promise.all(
        result.pullRequests.map(async (pr) => (await env.forge.findPullRequestByHeadBranch(repo, pr.branch))!.headSha),
      );
      return Promise.all(heads.map((head) => filesAt(env, repo, head)));
    };
    assert.deepEqual(await filesOf('dp-exec-renovate', renovate), await filesOf('dp-exec-direct', direct));
    assert.deepEqual(
      renovate.nudges.map((n) => [n.from, n.executor, n.outcome, n.pullRequest !== null]),
      [
        ['op-a', 'renovate', 'pullRequest', true],
        ['op-b', 'renovate', 'pullRequest', true],
        ['op-b', 'renovate', 'pullRequest', true],
      ],
    );
  });

  it('refuses a step on a nudge pull request that is not there, naming the branch', async () => {
    const namespace = 'dp-no-pr';
    const document: ScenarioDocument = {
      namespace,
      components: [
        { name: 'op-a', image: imageOf('op-a'), nudges: [BUNDLE] },
        // Nothing references op-a: the nudge fires, rewrites nothing and opens no pull request.
        { name: BUNDLE, image: imageOf(BUNDLE), files: { 'README.md': 'no images here\n' } },
      ],
      steps: [{ build: 'op-a' }, { mergeNudgePullRequest: { from: 'op-a', to: BUNDLE } }],
    };
    await assert.rejects(playInEnvironment(env, checkScenarioDocument(document, namespace)), (error: unknown) => {
      assert.ok(error instanceof SandboxStepError, String(error));
      assert.equal(
        error.message,
        'sandbox namespace dp-no-pr: no open nudge pull request from op-a on bundle (branch konflux/component-updates/bundle-component-update-op-a) to act on',
      );
      return true;
    });
  });

  it('names the build the dispatcher never settles', async () => {
    const namespace = 'dp-unsettled';
    const scenario = checkScenarioDocument(
      {
        namespace,
        components: [
          { name: 'op-a', image: imageOf('op-a'), nudges: [BUNDLE] },
          { name: BUNDLE, image: imageOf(BUNDLE) },
        ],
        steps: [{ build: 'op-a' }],
      },
      namespace,
    );
    const player = new ScenarioPlayer(env, scenario, { settleTimeoutMs: 2000 });
    await player.setUp();
    // Without its NudgeConfig the namespace is build-service's: the dispatcher writes no marker.
    await env.client.delete(NUDGE_CONFIGS, namespace, NUDGE_CONFIG_NAME);
    await assert.rejects(player.play(), (error: unknown) => {
      assert.ok(error instanceof SandboxDispatchError, String(error));
      assert.match(error.build, /^op-a-on-push-/);
      assert.match(
        error.message,
        /^nudger's dispatcher did not settle build PipelineRun dp-unsettled\/op-a-on-push-\S+: no nudger\.konflux-ci\.dev\/nudges annotation within 2 s/,
      );
      return true;
    });
  });
});

// A partial hold (docs/decisions.md D2): the build-service stand-in nudges both targets of op-a in
// one run whose ConfigMap holds one generated config per target, the Tekton stand-in runs every
// config a run mounts, and a ChangeGroup holds one of the two targets. The webhook cancels the
// run; nudger must nudge the other target alone. A copy of the run (what nudger made before) ran
// both configs, so the held target got a nudge pull request of its own besides the ChangeGroup's:
// this test failed then.
const PARTIAL_NS = 'partial-hold';

function partialHoldScenario(): ScenarioDocument {
  return {
    namespace: PARTIAL_NS,
    nudgedBy: 'build-service',
    components: [
      { name: 'op-a', image: imageOf('op-a'), nudges: ['bundle', 'docs'] },
      { name: 'bundle', image: imageOf('bundle') },
      { name: 'docs', image: imageOf('docs') },
    ],
    changeGroups: [{ name: 'bundle-update', nudgedComponent: 'bundle' }],
    steps: [{ build: 'op-a', digest: digestOf(PARTIAL_NS, 'op-a') }],
  };
}

describe('a partial hold of a build-service nudge on the sandbox', () => {
  it('nudges the uncovered target alone; the held one gets only the ChangeGroup pull request', async () => {
    await play(partialHoldScenario());
    const build = env.konflux.builds.find((b) => b.namespace === PARTIAL_NS && b.component === 'op-a');
    const held = build?.nudge;
    assert.ok(held, 'the stand-in created a nudge run');
    const run = (await listPipelineRuns(env, PARTIAL_NS)).find((r) => r.metadata?.name === held.name);
    assert.equal(run?.spec?.status, 'Cancelled', 'the webhook held the run');
    // The honest shape: one run for both targets, one Renovate per generated config.
    const command = JSON.stringify(run.spec);
    assert.match(
      command,
      /RENOVATE_CONFIG_FILE=\/configs\/bundle-0\.json renovate; .*RENOVATE_CONFIG_FILE=\/configs\/docs-1\.json renovate/,
    );

    const docs = await renovatePullRequest(env, repoOf(env, PARTIAL_NS, 'docs'), 'docs', 'op-a');
    assert.ok(docs, 'the uncovered target is nudged');
    const docsFiles = await filesAt(env, repoOf(env, PARTIAL_NS, 'docs'), docs.headSha);
    assert.deepEqual(pinnedDigests(docsFiles, imageOf('op-a')), [digestOf(PARTIAL_NS, 'op-a')]);

    const bundle = repoOf(env, PARTIAL_NS, 'bundle');
    assert.equal(
      await renovatePullRequest(env, bundle, 'bundle', 'op-a'),
      undefined,
      'the held target gets no nudge pull request of its own',
    );
    assert.equal((await changeGroupPullRequests(env, bundle, 'bundle-update')).length, 1);
    // No copy of the run: it would run the held target's config too.
    const copies = (await listPipelineRuns(env, PARTIAL_NS)).filter((r) =>
      (r.metadata?.name ?? '').startsWith(`${held.name}-rd-`),
    );
    assert.deepEqual(copies, []);
  });
});
