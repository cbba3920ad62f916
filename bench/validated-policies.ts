// Issue 11, "validated nudges": bundle builds over a day of 30 operands x 3 rebuilds each with 4
// passing Snapshots, under four policies side by side in one sandbox run (docs/decisions.md D10;
// ADR 29 immediate nudges, ADR 59 ChangeGroups). Prints figures; asserts nothing.
//
//   node bench/run.ts --only validated-policies           # 30 operands x 3 builds, 4 passes
//   node bench/run.ts --only validated-policies --quick   # 10 operands x 3 builds, 4 passes
//   node bench/validated-policies.ts [--quick]            # the same, alone
// (Node 24; KUBEBUILDER_ASSETS from scripts/provision-control-plane.sh, docs/control-plane.md.)
//
// One sandbox environment (one kube-apiserver and etcd, one manager with its dispatcher, the local
// forge, the Pipelines-as-Code stand-in); one namespace per policy, each a scenario played by the
// sandbox's own ScenarioPlayer (bench/validated-day.ts builds it): `n` operands nudging one bundle
// whose manifests pin all of them, declared as
//   adr29                  immediate entries (every build nudges);
//   validated              validated entries gated by one ComponentGroup of all operands;
//   changegroup            immediate entries and a ChangeGroup on the bundle collecting them all;
//   validated+changegroup  validated entries and that ChangeGroup.
// Every namespace plays the same day: 3 rounds of builds (each a seeded shuffle of the operands)
// and a passing Snapshot of the group after builds 23, 45, 68 and 90. Namespaces are played one
// after the other, so one policy's wall time is not another's load.
//
// Merging (what a team that merges what is ready would do): after every step has settled, each
// open pull request on the bundle's repository that is not a draft is merged. That is every nudge
// PR (adr29) and batch PR (validated) as it comes, and the ChangeGroup's PR once it is marked
// ready for review; a draft ChangeGroup PR still collecting is left alone.
//
// Figures per policy: pull-request builds of the bundle (opened, synchronize, ready_for_review
// without a skip marker, as the PaC stand-in counts them), push builds of the bundle (each merge
// moves its default branch; PaC builds that push unless the commit carries a skip marker, counted
// here from the forge's event log), pull requests opened on the bundle's repository, merges, and
// the wall time of setting the namespace up and playing its day.
import { performance } from 'node:perf_hooks';
import { readForgeEvents } from '../src/adapters/forges/local/local-forge.ts';
import type { RepositoryRef } from '../src/adapters/forges/repository-url.ts';
import { ForgeError } from '../src/adapters/forges/errors.ts';
import { localGitRun } from '../src/adapters/git/plumbing.ts';
import { hasSkipMarker } from '../src/domain/pr-description/skip-markers.ts';
import type { SandboxEnvironment } from '../src/sandbox/environment.ts';
import { ScenarioPlayer } from '../src/sandbox/play.ts';
import { checkScenarioDocument } from '../src/sandbox/scenario/parse.ts';
import type { SandboxResult } from '../src/sandbox/scenario/result.ts';
import { seconds, withDispatchSandbox } from './dispatch-common.ts';
import { DAY_TARGET, policyDocument, POLICIES, pushesOnto, type DayShape, type Policy } from './validated-day.ts';

export const FULL_DAY: DayShape = { operands: 30, rebuilds: 3, passes: 4, seed: 11 };
export const QUICK_DAY: DayShape = { operands: 10, rebuilds: 3, passes: 4, seed: 11 };

/**
 * What the issue expects per policy (30 x 3 builds, 4 passes: ≈ 90, 4, 1, 1): one bundle build per
 * update of the policy's pull request. Printed beside what is measured, never instead of it.
 */
function expected(policy: Policy, day: DayShape): string {
  switch (policy) {
    case 'adr29':
      return `≈ ${String(day.operands * day.rebuilds)}`;
    case 'validated':
      return String(day.passes);
    case 'changegroup':
    case 'validated+changegroup':
      return '1';
  }
}

interface PolicyFigures {
  readonly policy: Policy;
  readonly prBuilds: number;
  readonly pushBuilds: number;
  readonly pullRequests: number;
  readonly merged: number;
  readonly conflicts: number;
  readonly wallMs: number;
  readonly nudges: Readonly<Record<string, number>>;
  readonly changeGroupPhase: string | null;
}

/** Merges every open, non-draft pull request on `repo`; a conflict leaves it open and is counted. */
async function mergeReady(
  env: SandboxEnvironment,
  repo: RepositoryRef,
): Promise<{ merged: number; conflicts: number }> {
  let merged = 0;
  let conflicts = 0;
  for (const pr of await env.forge.listPullRequests(repo)) {
    if (pr.state !== 'open' || pr.draft) continue;
    try {
      await env.forge.merge(repo, pr.number);
      merged += 1;
    } catch (error) {
      if (!(error instanceof ForgeError) || error.status !== 405) throw error;
      conflicts += 1;
    }
  }
  return { merged, conflicts };
}

/** Pushes onto the bundle's default branch that PaC would build (no skip marker in the commit). */
async function pushBuilds(env: SandboxEnvironment, repo: RepositoryRef, branch: string): Promise<number> {
  const { events } = await readForgeEvents(env.forge, repo, 0);
  let count = 0;
  for (const sha of pushesOnto(events, branch)) {
    const message = await localGitRun(env.forge.gitDirectory(repo))('log', ['log', '-1', '--format=%B', sha]);
    if (!hasSkipMarker(message)) count += 1;
  }
  return count;
}

function countNudges(result: SandboxResult): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const nudge of result.nudges) counts[nudge.outcome] = (counts[nudge.outcome] ?? 0) + 1;
  return counts;
}

async function playPolicy(env: SandboxEnvironment, policy: Policy, day: DayShape): Promise<PolicyFigures> {
  const namespace = `bench-day-${policy.replace('+', '-')}`;
  const scenario = checkScenarioDocument(policyDocument(policy, namespace, day), `validated-policies (${policy})`);
  const repo = env.forge.repository(namespace, DAY_TARGET);
  let merged = 0;
  let conflicts = 0;
  const start = performance.now();
  const player: ScenarioPlayer = new ScenarioPlayer(env, scenario, {
    settleTimeoutMs: 600_000,
    afterStep: async (step) => {
      // play() has settled after every step but a build; a build only waited for the dispatcher.
      if ('build' in step) await player.settle();
      const done = await mergeReady(env, repo);
      merged += done.merged;
      conflicts += done.conflicts;
    },
  });
  await player.setUp();
  await player.play();
  const wallMs = performance.now() - start;
  const result = await player.result();
  return {
    policy,
    prBuilds: result.builds[DAY_TARGET] ?? 0,
    pushBuilds: await pushBuilds(env, repo, 'main'),
    pullRequests: result.pullRequests.filter((pr) => pr.repository === DAY_TARGET).length,
    merged,
    conflicts,
    wallMs,
    nudges: countNudges(result),
    changeGroupPhase: result.changeGroups[0]?.phase ?? null,
  };
}

function table(rows: readonly PolicyFigures[], day: DayShape): string[] {
  const head = ['policy', 'PR builds', 'push builds', 'bundle builds', 'PRs opened', 'merged', 'wall', 'issue expects'];
  const cells = rows.map((r) => [
    r.policy,
    String(r.prBuilds),
    String(r.pushBuilds),
    String(r.prBuilds + r.pushBuilds),
    String(r.pullRequests),
    String(r.merged) + (r.conflicts === 0 ? '' : ` (${String(r.conflicts)} conflicts)`),
    seconds(r.wallMs),
    expected(r.policy, day),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: readonly string[]): string => `  ${c.map((v, i) => v.padEnd(widths[i] ?? 0)).join('  ')}`.trimEnd();
  return [line(head), ...cells.map(line)];
}

function detail(r: PolicyFigures): string {
  const nudges = Object.entries(r.nudges)
    .map(([outcome, n]) => `${outcome} ${String(n)}`)
    .join(', ');
  const line = `  ${r.policy}: nudges ${nudges === '' ? 'none' : nudges}`;
  if (r.changeGroupPhase === null) return line;
  const after = r.nudges.pullRequest ?? 0;
  return (
    `${line}; ChangeGroup ${r.changeGroupPhase}` +
    (after === 0
      ? ''
      : ` — it collects (holds) only while Initialized or Waiting, i.e. until every operand has one build in it; ` +
        `the ${String(after)} nudges after it was ready went out as their entries say (ADR 29 nudge PRs or validated batches), ` +
        `which is why this figure is above 1`)
  );
}

function verdictLine(rows: readonly PolicyFigures[]): string {
  const total = (p: Policy): number => {
    const r = rows.find((row) => row.policy === p);
    return r === undefined ? Number.NaN : r.prBuilds + r.pushBuilds;
  };
  const adr29 = total('adr29');
  const parts = POLICIES.filter((p) => p !== 'adr29').map(
    (p) => `${p} ${String(total(p))} (${(adr29 / total(p)).toFixed(1)}x fewer)`,
  );
  return `verdict: bundle builds (PR + push) adr29 ${String(adr29)} vs ${parts.join(', ')}`;
}

export async function benchValidatedPolicies(day: DayShape): Promise<string> {
  return withDispatchSandbox({}, async ({ env, warnings }) => {
    const rows: PolicyFigures[] = [];
    for (const policy of POLICIES) {
      const row = await playPolicy(env, policy, day);
      rows.push(row);
      // Progress on stderr: the whole day takes minutes.
      console.error(`validated-policies: ${policy} played in ${seconds(row.wallMs)}`);
    }
    const builds = day.operands * day.rebuilds;
    return [
      `bundle builds over a day of ${String(day.operands)} operands x ${String(day.rebuilds)} builds (${String(builds)} builds, interleaved) ` +
        `with ${String(day.passes)} passing Snapshots of their ComponentGroup, per policy (one sandbox: real kube-apiserver + etcd, ` +
        `manager in process with the direct executor, local forge, PaC stand-in; namespaces played one after another; ` +
        `every open non-draft PR on the bundle merged once each step has settled, the ChangeGroup's once it is ready):`,
      ...table(rows, day),
      ...rows.map(detail),
      verdictLine(rows),
      `  (the issue's expectation counts one bundle build per pull request update; merging each pull request as it comes adds one push build per merge)`,
      `  ${warnings.summary()}`,
    ].join('\n');
  });
}

if (import.meta.main) {
  console.log(await benchValidatedPolicies(process.argv.includes('--quick') ? QUICK_DAY : FULL_DAY));
}
