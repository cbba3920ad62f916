// The pure parts of issue 11's two benchmarks (validated-policies.ts, validated-latency.ts): the
// "day" of builds and passing Snapshots each policy's namespace plays, the scenario of one policy
// (docs/decisions.md D10 validated entries, ADR 29 immediate ones, an ADR 59 ChangeGroup), which
// pushes to a repository's default branch Pipelines-as-Code would build, and whether a status
// write is the one that marks a Snapshot's tests passed (t0 of the latency figure). No I/O.
import { ZERO_SHA, type ForgeEvent } from '../src/adapters/forges/local/event-log.ts';
import { TEST_SUCCEEDED_CONDITION } from '../src/domain/nudge/validated-snapshot.ts';
import { isRecord } from '../src/domain/records.ts';
import { mulberry32, syntheticScenario } from '../src/sandbox/scenario/default.ts';
import { syntheticDigest } from '../src/sandbox/scenario/objects.ts';
import type { ScenarioDocument, ScenarioNudge, ScenarioStep } from '../src/sandbox/scenario/schema.ts';

/** How the operands' nudges into the bundle are declared in one namespace. */
export const POLICIES = ['adr29', 'validated', 'changegroup', 'validated+changegroup'] as const;
export type Policy = (typeof POLICIES)[number];

export const DAY_GROUP = 'operands';
export const DAY_CHANGE_GROUP = 'bundle-update';
export const DAY_TARGET = 'bundle';

export interface DayShape {
  readonly operands: number;
  /** How often each operand is built over the day. */
  readonly rebuilds: number;
  /** Passing Snapshots of the operands' ComponentGroup, spread evenly over the builds. */
  readonly passes: number;
  readonly seed: number;
}

/**
 * The order of the day's builds: `rebuilds` rounds, each every operand once in its own seeded
 * shuffle, so builds of different operands interleave and each operand's builds are a round apart.
 */
export function dayBuildOrder(operands: readonly string[], rebuilds: number, seed: number): string[] {
  const random = mulberry32(seed);
  const order: string[] = [];
  for (let round = 0; round < rebuilds; round += 1) {
    const shuffled = [...operands];
    for (let i = shuffled.length - 1; i > 0; i -= 1) {
      const j = Math.floor(random() * (i + 1));
      const [a, b] = [shuffled[i], shuffled[j]];
      if (a === undefined || b === undefined) continue;
      [shuffled[i], shuffled[j]] = [b, a];
    }
    order.push(...shuffled);
  }
  return order;
}

/**
 * After which build (1-based) each of `passes` Snapshots passes: evenly spread, the last after the
 * last build (90 builds, 4 passes: 23, 45, 68, 90). Distinct and increasing while passes <= builds.
 */
export function passPoints(builds: number, passes: number): number[] {
  if (!Number.isInteger(builds) || !Number.isInteger(passes) || passes < 1 || passes > builds) {
    throw new RangeError(`passPoints: need 1 <= passes <= builds, got ${String(passes)} of ${String(builds)}`);
  }
  return Array.from({ length: passes }, (_, k) => Math.round((builds * (k + 1)) / passes));
}

/** The day's steps: each build with its own digest, a passing Snapshot of the group after each pass point. */
export function daySteps(order: readonly string[], passes: number, seed: number): ScenarioStep[] {
  const points = new Set(passPoints(order.length, passes));
  const counts = new Map<string, number>();
  return order.flatMap((name, index): ScenarioStep[] => {
    const count = (counts.get(name) ?? 0) + 1;
    counts.set(name, count);
    const build = { build: name, digest: syntheticDigest(`day ${name} #${String(count)} seed ${String(seed)}`) };
    return points.has(index + 1) ? [build, { snapshot: { group: DAY_GROUP, passed: true } }] : [build];
  });
}

/**
 * One policy's namespace for the day: syntheticScenario's operands and bundle (whose
 * manifests/csv.yaml pins every operand), nudged by nudger's dispatcher; the operands' nudges
 * immediate (adr29, changegroup) or validated by the ComponentGroup of all of them (validated,
 * validated+changegroup); a ChangeGroup on the bundle collecting every operand for the two
 * `changegroup` policies. Every namespace declares the ComponentGroup and plays the same builds and
 * Snapshots: integration-service tests the group whatever the NudgeConfig says.
 */
export function policyDocument(policy: Policy, namespace: string, day: DayShape): ScenarioDocument {
  const base = syntheticScenario(day.operands, day.seed, { nudgedBy: 'nudger' });
  const validated = policy === 'validated' || policy === 'validated+changegroup';
  const operands = base.components.filter((c) => c.name !== DAY_TARGET).map((c) => c.name);
  const nudge: ScenarioNudge = validated ? { to: DAY_TARGET, mode: 'validated', gatingGroup: DAY_GROUP } : DAY_TARGET;
  return {
    namespace,
    nudgedBy: 'nudger',
    executor: 'direct',
    components: base.components.map((c) => ({
      name: c.name,
      image: c.image,
      ...(c.name === DAY_TARGET ? { files: { ...c.files } } : { nudges: [nudge] }),
    })),
    componentGroups: [{ name: DAY_GROUP, components: operands }],
    changeGroups: policy.endsWith('changegroup') ? [{ name: DAY_CHANGE_GROUP, nudgedComponent: DAY_TARGET }] : [],
    steps: daySteps(dayBuildOrder(operands, day.rebuilds, day.seed), day.passes, day.seed),
  };
}

/**
 * The commits pushed onto `branch` after it was created (a merge moves it; its creation, `before`
 * all zeros, is the repository's first commit): each one a push build Pipelines-as-Code starts
 * unless its message holds a skip marker, which the caller checks.
 */
export function pushesOnto(events: readonly ForgeEvent[], branch: string): string[] {
  return events.flatMap((event) =>
    event.type === 'push' &&
    event.ref === `refs/heads/${branch}` &&
    event.before !== ZERO_SHA &&
    event.after !== ZERO_SHA
      ? [event.after]
      : [],
  );
}

/** Whether a status patch marks a Snapshot's tests passed: AppStudioTestSucceeded=True. */
export function writesTestsPassed(patch: unknown): boolean {
  const conditions = isRecord(patch) && isRecord(patch.status) ? patch.status.conditions : undefined;
  return (
    Array.isArray(conditions) &&
    conditions.some((c: unknown) => isRecord(c) && c.type === TEST_SUCCEEDED_CONDITION && c.status === 'True')
  );
}
