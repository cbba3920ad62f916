// ADR 59's motivating case end to end: 30 operands nudging one bundle, built in different random
// orders with some of them rebuilt, on a real control plane, real git and the local forge. Whatever
// the order, the ChangeGroup gathers everything into one pull request with one commit on the base
// that pins the latest digest of every operand, and Pipelines-as-Code builds the bundle once.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hasSkipMarker } from '../../src/domain/pr-description/index.ts';
import type { SandboxEnvironment } from '../../src/sandbox/environment.ts';
import { ScenarioPlayer } from '../../src/sandbox/play.ts';
import { buildSteps, syntheticScenario } from '../../src/sandbox/scenario/default.ts';
import { loadDefaultScenario } from '../../src/sandbox/scenario/load.ts';
import type { Scenario } from '../../src/sandbox/scenario/schema.ts';
import {
  filesAt,
  latestDigests,
  pacBuilds,
  parentsOf,
  pinnedDigests,
  readChangeGroup,
  repoOf,
  startEnvironment,
} from './helpers.ts';

let env: SandboxEnvironment;

before(async () => {
  env = await startEnvironment();
});

after(async () => {
  await env.close();
});

/** The scenario in its own namespace, its operands built in `seed`'s order with `rebuilds` rebuilt. */
function reordered(scenario: Scenario, namespace: string, seed: number, rebuilds: number, merge: boolean): Scenario {
  const group = scenario.changeGroups[0];
  assert.ok(group !== undefined);
  const operands = scenario.components.filter((c) => c.nudges.includes(group.nudgedComponent)).map((c) => c.name);
  return {
    ...scenario,
    namespace,
    steps: [...buildSteps(operands, seed, rebuilds), ...(merge ? [{ mergePullRequest: group.name }] : [])],
  };
}

async function playAndCheck(scenario: Scenario, merge: boolean): Promise<void> {
  const group = scenario.changeGroups[0];
  assert.ok(group !== undefined);
  const { namespace } = scenario;
  const bundle = group.nudgedComponent;
  const operands = scenario.components.filter((c) => c.nudges.includes(bundle));
  assert.equal(operands.length, 30);
  const latest = latestDigests(scenario.steps);
  const builds = scenario.steps.filter((s) => 'build' in s);
  assert.ok(builds.length > operands.length, 'some operands are rebuilt');
  const rebuilt = operands.filter((o) => builds.filter((s) => s.build === o.name).length > 1);
  assert.ok(rebuilt.length > 0);

  const player = new ScenarioPlayer(env, scenario);
  await player.setUp();
  const repo = repoOf(env, namespace, bundle);
  const base = await env.forge.branchHead(repo, 'main');
  assert.ok(base !== undefined);
  await player.play();
  const result = await player.result();

  // The ChangeGroup: every operand Ready with its latest digest.
  const [summary] = result.changeGroups;
  assert.ok(summary !== undefined);
  assert.equal(summary.phase, merge ? 'Completed' : 'Ready');
  assert.deepEqual(
    summary.components.map((c) => [c.name, c.state, c.newBuild]),
    operands.map((o) => [o.name, 'Ready', latest.get(o.name)]).sort(),
  );
  const changeGroup = await readChangeGroup(env, namespace, group.name);
  assert.equal(changeGroup.status?.summary, '30/30');

  // One pull request (no Renovate PR: every nudge was held), ready for review.
  const prs = await env.forge.listPullRequests(repo);
  assert.equal(prs.length, 1, `pull requests: ${prs.map((p) => p.headBranch).join(', ')}`);
  const [pr] = prs;
  assert.ok(pr !== undefined);
  assert.equal(pr.state, merge ? 'merged' : 'open');
  assert.equal(pr.draft, false);
  assert.equal(summary.pullRequest?.url, pr.url);

  // One commit on the base, without a skip marker, listing every operand's latest digest.
  assert.deepEqual(await parentsOf(env, repo, pr.headSha), [base]);
  if (merge) assert.equal(await env.forge.branchHead(repo, 'main'), pr.headSha, 'merged as is');
  const message = summary.pullRequest.headCommitMessage;
  assert.equal(hasSkipMarker(message), false, message);
  assert.match(message, new RegExp(`^Update 30 component images for ${bundle}\n`));
  for (const operand of operands) {
    assert.ok(message.includes(`${operand.name}: `) && message.includes(`→ ${latest.get(operand.name) ?? ''}`));
  }

  // The files at the head pin the latest digest of every operand, and nothing older.
  const files = await filesAt(env, repo, pr.headSha);
  const checked = Object.fromEntries(
    Object.entries(files).filter(([path]) => path.endsWith('.yaml') || path.includes('Dockerfile')),
  );
  for (const operand of operands) {
    const pinned = pinnedDigests(checked, operand.image);
    assert.ok(pinned.length > 0, `${operand.name} is pinned somewhere`);
    assert.deepEqual(new Set(pinned), new Set([latest.get(operand.name)]), `${operand.name} pins its latest build`);
  }
  if (!merge) assert.deepEqual(result.files[bundle], files);

  // Exactly one build of the bundle, of the final head.
  const bundleBuilds = pacBuilds(env, namespace, bundle);
  assert.deepEqual(
    bundleBuilds.map((b) => [b.pullRequest, b.headSha]),
    [[pr.number, pr.headSha]],
  );
  assert.equal(result.builds[bundle], 1);

  // Every nudge was finished as cancelled: none ran Renovate.
  const executed = env.tekton.executed.filter((e) => e.namespace === namespace);
  assert.equal(executed.length, builds.length);
  assert.deepEqual(new Set(executed.map((e) => e.outcome)), new Set(['cancelled']));
}

// Each test has its own namespace and repositories, so they run side by side.
describe('a ChangeGroup of 30 operands, whatever the build order', { concurrency: true }, () => {
  it('synthetic scenario, seed 11, 3 rebuilds: Ready, one commit, latest digests, one bundle build', async () => {
    await playAndCheck(reordered(syntheticScenario(30, 11), 'orders-seed-11', 11, 3, false), false);
  });

  it('synthetic scenario, seed 2027, 6 rebuilds, merged at the end: Completed, one bundle build', async () => {
    await playAndCheck(reordered(syntheticScenario(30, 2027), 'orders-seed-2027', 2027, 6, true), true);
  });

  it('the OLM operator example, seed 5, 4 rebuilds: Ready, latest digests in the CSV, one bundle build', async () => {
    const scenario = await loadDefaultScenario(undefined, { seed: 5, rebuilds: 4 });
    await playAndCheck(reordered(scenario, 'orders-olm', 5, 4, false), false);
  });
});
