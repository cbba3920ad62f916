// Pre-merge nudges played end to end (docs/decisions.md D11, docs/sandbox.md "Pre-merge nudges"):
// real control plane, the manager with its dispatcher and the direct executor, real git on the
// local forge. ADR 29's three use cases (a common parent image, an OLM operator in separate
// repositories, an OLM operator in one repository), each with its triggering PR pushed to again,
// and left open, merged or closed; two triggers in one group; and two PR groups at once in one
// namespace. After every step the nudge PR
// `feature-1234@<target>` is read from the forge: draft while the trigger is open, pinning the PR
// build's digest; the merge commit's push build's digest and no longer draft once merged; closed
// with a comment once its only trigger is closed (nothing pushed then: N34).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { PullRequest } from '../../src/adapters/forges/types.ts';
import type { SandboxEnvironment } from '../../src/sandbox/environment.ts';
import { ScenarioPlayer } from '../../src/sandbox/play.ts';
import { checkScenarioDocument } from '../../src/sandbox/scenario/parse.ts';
import { sandboxResultProblems, type NudgeResult } from '../../src/sandbox/scenario/result.ts';
import type { ScenarioDocument, ScenarioStep } from '../../src/sandbox/scenario/schema.ts';
import { initialDigest } from '../../src/sandbox/scenario/objects.ts';
import { filesAt, imageOf, pinnedDigests, repoOf, startEnvironment } from '../e2e/helpers.ts';

let env: SandboxEnvironment;

before(async () => {
  env = await startEnvironment();
});

after(async () => {
  await env.close();
});

const BRANCH = 'feature-1234';
type Ending = 'pushed' | 'merged' | 'closed';

interface UseCase {
  readonly name: string;
  /** The component whose PR triggers, and the targets it nudges. */
  readonly trigger: string;
  readonly targets: readonly string[];
  /** The repository of each target (its owner in a monorepo). */
  readonly repositoryOf: (target: string) => string;
  readonly components: (namespace: string) => ScenarioDocument['components'];
}

const USE_CASES: readonly UseCase[] = [
  {
    name: 'common parent image',
    trigger: 'parent',
    targets: ['child-a', 'child-b'],
    repositoryOf: (target) => target,
    components: () => [
      { name: 'parent', image: imageOf('parent'), nudges: ['child-a', 'child-b'] },
      { name: 'child-a', image: imageOf('child-a') },
      { name: 'child-b', image: imageOf('child-b') },
    ],
  },
  {
    name: 'OLM operator in separate repositories',
    trigger: 'operand',
    targets: ['bundle'],
    repositoryOf: (target) => target,
    components: () => [
      { name: 'operand', image: imageOf('operand'), nudges: ['bundle'] },
      { name: 'bundle', image: imageOf('bundle') },
    ],
  },
  {
    name: 'OLM operator in one repository',
    trigger: 'operand',
    targets: ['bundle'],
    repositoryOf: () => 'operand',
    components: () => [
      { name: 'operand', image: imageOf('operand'), nudges: ['bundle'], pathChanged: ['operand/***', 'go.mod'] },
      { name: 'bundle', image: imageOf('bundle'), repository: 'operand', pathChanged: ['bundle/***'] },
    ],
  },
];

/** What a test sees of a nudge PR after a step. */
interface Seen {
  readonly step: string;
  readonly state: PullRequest['state'];
  readonly draft: boolean;
  readonly pinned: readonly string[];
  readonly comments: number;
}

async function nudgePullRequest(namespace: string, repository: string, branch: string): Promise<PullRequest> {
  const pr = await env.forge.findPullRequestByHeadBranch(repoOf(env, namespace, repository), branch);
  assert.ok(pr !== undefined, `a nudge PR ${branch} on ${repository}`);
  return pr;
}

async function seeNudge(namespace: string, useCase: UseCase, target: string, step: string): Promise<Seen> {
  const repo = repoOf(env, namespace, useCase.repositoryOf(target));
  const pr = await nudgePullRequest(namespace, useCase.repositoryOf(target), `${BRANCH}@${target}`);
  const files = await filesAt(env, repo, pr.state === 'merged' ? (pr.mergeCommitSha ?? pr.headSha) : pr.headSha);
  const extras = await env.forge.pullRequestExtras(repo, pr.number);
  return {
    step,
    state: pr.state,
    draft: pr.draft,
    pinned: pinnedDigests(files, imageOf(useCase.trigger)),
    comments: (extras.comments ?? []).length,
  };
}

function stepName(step: ScenarioStep): string {
  return Object.keys(step)[0] ?? '';
}

describe('pre-merge nudges in the sandbox', { concurrency: true }, () => {
  for (const [u, useCase] of USE_CASES.entries()) {
    for (const ending of ['pushed', 'merged', 'closed'] as const satisfies readonly Ending[]) {
      it(`${useCase.name}: the triggering PR opened, pushed to again${ending === 'pushed' ? '' : `, then ${ending}`}`, async () => {
        const namespace = `pm-${String(u)}-${ending}`;
        const trigger = useCase.trigger;
        const steps: ScenarioStep[] = [
          { openPullRequest: { component: trigger, branch: BRANCH } },
          { pushToPullRequest: { component: trigger, branch: BRANCH } },
          ...(ending === 'merged' ? [{ mergeNudgingPullRequest: { component: trigger, branch: BRANCH } }] : []),
          ...(ending === 'closed' ? [{ closeNudgingPullRequest: { component: trigger, branch: BRANCH } }] : []),
        ];
        const scenario = checkScenarioDocument(
          { namespace, preMerge: true, components: useCase.components(namespace), steps },
          namespace,
        );
        const seen = new Map<string, Seen[]>();
        const player = new ScenarioPlayer(env, scenario, {
          afterStep: async (step) => {
            for (const target of useCase.targets)
              seen.set(target, [
                ...(seen.get(target) ?? []),
                await seeNudge(namespace, useCase, target, stepName(step)),
              ]);
          },
        });
        await player.setUp();
        await player.play();
        const result = await player.result();
        assert.deepEqual(sandboxResultProblems(result), []);

        const preMerge = result.nudges.filter((n) => n.event === 'pull_request' && n.digest !== null);
        const builds = preMerge.map((n) => n.digest);
        assert.equal(preMerge.length, 2 * useCase.targets.length, 'one pre-merge nudge per target for open and push');
        const [first, second] = [builds[0], builds[useCase.targets.length]];
        assert.ok(first !== null && first !== undefined && second !== null && second !== undefined);
        assert.notEqual(first, second, 'the push made a new PR build with a new digest');
        // The merge commit's push build: the dispatcher leaves it to the pre-merge nudge (no second PR).
        const pushNudges = result.nudges.filter((n) => n.event === 'push' && n.outcome !== 'pullRequest');
        assert.deepEqual(
          pushNudges.map((n) => [n.to, n.outcome, n.reason]),
          ending === 'merged' ? useCase.targets.map((target) => [target, 'skipped', 'pre-merge']) : [],
        );
        const pushDigest = pushNudges[0]?.digest ?? 'no push build';
        const last = result.nudges.filter((n) => n.from === trigger).slice(-useCase.targets.length);
        for (const target of useCase.targets) {
          const expected: Seen[] = [
            { step: 'openPullRequest', state: 'open', draft: true, pinned: [first], comments: 0 },
            { step: 'pushToPullRequest', state: 'open', draft: true, pinned: [second], comments: 0 },
          ];
          if (ending === 'merged')
            expected.push({
              step: 'mergeNudgingPullRequest',
              state: 'open',
              draft: false,
              pinned: [pushDigest],
              comments: 0,
            });
          // Closed with a comment, nothing pushed (docs/decisions.md N34): its head is the last content.
          if (ending === 'closed')
            expected.push({
              step: 'closeNudgingPullRequest',
              state: 'closed',
              draft: true,
              pinned: [second],
              comments: 1,
            });
          assert.deepEqual(seen.get(target), expected, `nudge PR ${BRANCH}@${target}`);
        }
        const lastNudges: NudgeResult[] = last;
        for (const nudge of lastNudges) {
          assert.equal(nudge.event, ending === 'merged' ? 'push' : 'pull_request');
          assert.equal(nudge.outcome, 'pullRequest');
          const nudgePr = await nudgePullRequest(namespace, useCase.repositoryOf(nudge.to), `${BRANCH}@${nudge.to}`);
          assert.equal(nudge.pullRequest, nudgePr.url, 'the nudge PR, found by its branch');
          assert.equal(nudge.digest, { pushed: second, merged: pushDigest, closed: null }[ending], 'the digest pinned');
        }
        const groups = result.pullRequests.filter((pr) => pr.group === BRANCH).map((pr) => pr.branch);
        assert.deepEqual(
          [...groups].sort(),
          [BRANCH, ...useCase.targets.map((target) => `${BRANCH}@${target}`)].sort(),
          'the human PR and the nudge PRs are in the PR group',
        );
        assert.equal(result.pullRequests.length, 1 + useCase.targets.length, 'no other pull request');
      });
    }
  }

  it('two PR groups at once in one namespace: two nudge PRs', async () => {
    const namespace = 'pm-two-groups';
    const scenario = checkScenarioDocument(
      {
        namespace,
        preMerge: true,
        components: [
          { name: 'operand', image: imageOf('operand'), nudges: ['bundle'] },
          { name: 'bundle', image: imageOf('bundle') },
        ],
        steps: [
          { openPullRequest: { component: 'operand', branch: 'feature-1' } },
          { openPullRequest: { component: 'operand', branch: 'feature-2' } },
        ],
      },
      namespace,
    );
    const player = new ScenarioPlayer(env, scenario);
    await player.setUp();
    await player.play();
    const result = await player.result();
    const nudgePrs = result.pullRequests.filter((pr) => pr.repository === 'bundle');
    assert.deepEqual(nudgePrs.map((pr) => [pr.branch, pr.group, pr.state, pr.draft]).sort(), [
      ['feature-1@bundle', 'feature-1', 'open', true],
      ['feature-2@bundle', 'feature-2', 'open', true],
    ]);
    const [one, two] = await Promise.all(
      ['feature-1', 'feature-2'].map(async (group) => {
        const pr = await nudgePullRequest(namespace, 'bundle', `${group}@bundle`);
        return pinnedDigests(await filesAt(env, repoOf(env, namespace, 'bundle'), pr.headSha), imageOf('operand'));
      }),
    );
    assert.equal(one?.length, 1);
    assert.equal(two?.length, 1);
    assert.notDeepEqual(one, two, 'each group pins its own PR build');
  });

  it('two triggers in one group: draft until the last open one ends; a closed one goes back to the base', async () => {
    const namespace = 'pm-two-triggers';
    const steps: ScenarioStep[] = [
      { openPullRequest: { component: 'op-a', branch: BRANCH } },
      { openPullRequest: { component: 'op-b', branch: BRANCH } },
      { mergeNudgingPullRequest: { component: 'op-a', branch: BRANCH } },
      { closeNudgingPullRequest: { component: 'op-b', branch: BRANCH } },
      { openPullRequest: { component: 'op-b', branch: BRANCH } },
    ];
    const scenario = checkScenarioDocument(
      {
        namespace,
        preMerge: true,
        components: [
          { name: 'op-a', image: imageOf('op-a'), nudges: ['bundle'] },
          { name: 'op-b', image: imageOf('op-b'), nudges: ['bundle'] },
          { name: 'bundle', image: imageOf('bundle') },
        ],
        steps,
      },
      namespace,
    );
    const seen: unknown[] = [];
    const player = new ScenarioPlayer(env, scenario, {
      afterStep: async () => {
        const pr = await nudgePullRequest(namespace, 'bundle', `${BRANCH}@bundle`);
        const files = await filesAt(env, repoOf(env, namespace, 'bundle'), pr.headSha);
        seen.push([
          pr.number,
          pr.state,
          pr.draft,
          pinnedDigests(files, imageOf('op-a'))[0],
          pinnedDigests(files, imageOf('op-b'))[0],
        ]);
      },
    });
    await player.setUp();
    await player.play();
    const result = await player.result();
    assert.deepEqual(sandboxResultProblems(result), []);
    const digest = (from: string, event: string, index = 0): string | null | undefined =>
      result.nudges.filter((n) => n.from === from && n.event === event && n.outcome === 'pullRequest')[index]?.digest;
    const [prA, pushA, prB, prB2] = [
      digest('op-a', 'pull_request'),
      digest('op-a', 'push'),
      digest('op-b', 'pull_request'),
      digest('op-b', 'pull_request', 2),
    ];
    const baseB = initialDigest(imageOf('op-b'));
    assert.deepEqual(seen, [
      [1, 'open', true, prA, baseB],
      [1, 'open', true, prA, prB],
      [1, 'open', true, pushA, prB], // op-b still open: still a draft
      [1, 'open', false, pushA, baseB], // op-b closed: its reference back to the base, ready
      [1, 'open', true, pushA, prB2], // an open trigger joins: a draft again
    ]);
  });

  it('OLM operator in one repository: the nudge PR copies what the trigger changed under the bundle (N36)', async () => {
    const namespace = 'pm-monorepo-copy';
    const useCase = USE_CASES[2];
    assert.ok(useCase !== undefined);
    const scenario = checkScenarioDocument(
      {
        namespace,
        preMerge: true,
        components: useCase.components(namespace),
        steps: [
          {
            openPullRequest: {
              component: 'operand',
              branch: BRANCH,
              files: { 'operand/main.go': 'package main\n', 'bundle/manifests/extra.yaml': 'kind: Extra\n' },
            },
          },
        ],
      },
      namespace,
    );
    const player = new ScenarioPlayer(env, scenario);
    await player.setUp();
    await player.play();
    const pr = await nudgePullRequest(namespace, 'operand', `${BRANCH}@bundle`);
    const files = await filesAt(env, repoOf(env, namespace, 'operand'), pr.headSha);
    assert.equal(
      files['bundle/manifests/extra.yaml'],
      'kind: Extra\n',
      "the trigger's change the bundle's PipelineRun reacts to",
    );
    assert.equal(files['operand/main.go'], undefined, 'not what only the operand reacts to');
    const result = await player.result();
    assert.deepEqual(
      result.pullRequests.filter((p) => p.branch === `${BRANCH}@bundle`).map((p) => [p.draft, p.commits]),
      [[true, 2]],
      'the copy, then the digest commit',
    );
  });
});
