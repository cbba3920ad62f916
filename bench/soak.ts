// Issue 14's soak (docs/decisions.md N45): `npm run soak -- --minutes N`. Not a test. One manager in
// its own process (bench/child-manager.ts) on the real control plane and the local forge; for N
// minutes, random builds (about 1 in 10 failing) of random operands in a few namespaces, each with
// a NudgeConfig (operands nudging one bundle), half of them with an active ChangeGroup on the
// bundle. Every 5 s the manager's RSS (/proc), heap used and event-loop lag (its /metrics, prom-client's
// default metrics) are sampled. After a quiet period it checks:
//   - nudges lost: every succeeded build settled, each operand's nudge on an open PR carrying one of
//     its digests (or held by the namespace's ChangeGroup), nothing failed (bench/scale.ts's check);
//   - duplicate PRs: two open PRs on one branch of one repository;
//   - ChangeGroups stuck: one not terminal whose status misses a held operand's digest, or whose
//     pull request does not carry what its status says;
//   - growth: RSS over the last fifth of the run more than 25 % and 30 MiB above the second fifth.
// Prints a table; exits 1 on any violation.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { CHANGE_GROUPS } from '../src/adapters/kubernetes/resources.ts';
import type { ClusterChangeGroup } from '../src/schema/changegroup.ts';
import type { Static } from 'typebox';
import type { RecordedBuild } from '../src/sandbox/konflux.ts';
import { KonfluxStandIn } from '../src/sandbox/konflux.ts';
import { metricSamples, startChildManagerEnvironment, type ChildManagerEnvironment } from './child-manager.ts';
import { MarkerWatch, seconds } from './dispatch-common.ts';
import { seededRandom } from './generate.ts';
import { checkNudges } from './scale.ts';
import { BUNDLE, operatorScenario, setUpScenarios } from './tenant-setup.ts';

const SAMPLE_MS = 5000;
const QUIET_TIMEOUT_MS = 5 * 60_000;
const MiB = 2 ** 20;

interface SoakOptions {
  readonly minutes: number;
  readonly namespaces: number;
  readonly components: number;
  readonly seed: number;
}

interface Sample {
  readonly atMs: number;
  readonly rss: number;
  readonly heapUsed: number;
  readonly lagP99Ms: number;
  readonly lagMaxMs: number;
}

function namespaceName(index: number): string {
  return `soak-${String(index)}`;
}

function operand(index: number): string {
  return `op-${String(index)}`;
}

function grouped(namespace: string): boolean {
  return Number(namespace.slice('soak-'.length)) % 2 === 0;
}

async function setUp(env: ChildManagerEnvironment, options: SoakOptions): Promise<void> {
  const operands = Array.from({ length: options.components - 1 }, (_, i) => operand(i));
  await setUpScenarios(
    env.env,
    Array.from({ length: options.namespaces }, (_, index) => {
      const namespace = namespaceName(index);
      return operatorScenario(namespace, operands, { changeGroup: grouped(namespace), origin: 'soak' });
    }),
  );
}

async function sample(env: ChildManagerEnvironment, start: number): Promise<Sample> {
  const manager = env.manager();
  const [memory, metrics] = await Promise.all([manager.memory(), manager.metrics()]);
  const gauge = (name: string): number => (metricSamples(metrics, name)[0]?.value ?? NaN) * 1000;
  return {
    atMs: performance.now() - start,
    rss: memory.rss,
    heapUsed: metricSamples(metrics, 'nodejs_heap_size_used_bytes')[0]?.value ?? NaN,
    lagP99Ms: gauge('nodejs_eventloop_lag_p99_seconds'),
    lagMaxMs: gauge('nodejs_eventloop_lag_max_seconds'),
  };
}

type ChangeGroupObject = Static<typeof ClusterChangeGroup>;

/** ChangeGroups not terminal whose status or pull request lags what the builds say (see header). */
async function stuckChangeGroups(
  env: ChildManagerEnvironment,
  markers: MarkerWatch,
  builds: readonly RecordedBuild[],
): Promise<string[]> {
  const list = await env.env.client.list<ChangeGroupObject>(CHANGE_GROUPS, {});
  const stuck: string[] = [];
  for (const group of list.items) {
    const namespace = group.metadata?.namespace ?? '';
    const name = `${namespace}/${group.metadata?.name ?? ''}`;
    const phase = group.status?.phase ?? 'none';
    if (phase === 'Completed' || phase === 'Cancelled' || phase === 'Failed') continue;
    if (group.status?.observedGeneration !== group.metadata?.generation) {
      stuck.push(`${name}: generation ${String(group.metadata?.generation)} not observed`);
      continue;
    }
    const components = new Map((group.status?.components ?? []).map((c) => [c.name, c]));
    const pushed = new Map((group.status?.pullRequest?.pushedBuilds ?? []).map((b) => [b.name, b.digest]));
    const heldBuilds = builds.filter(
      (build) =>
        build.namespace === namespace &&
        build.succeeded &&
        (markers.states(namespace, build.pipelineRun).get(BUNDLE) ?? '').startsWith('held:'),
    );
    for (const [component, held] of Map.groupBy(heldBuilds, (build) => build.component)) {
      const entry = components.get(component);
      if (entry?.newBuild === undefined || !held.some((build) => build.digest === entry.newBuild)) {
        stuck.push(`${name}: ${component} newBuild ${entry?.newBuild ?? 'none'} is none of its held builds`);
      } else if (pushed.get(component) !== entry.newBuild) {
        stuck.push(`${name}: ${component} pushed ${pushed.get(component) ?? 'nothing'}, status says ${entry.newBuild}`);
      }
    }
  }
  return stuck;
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? NaN : values.reduce((a, b) => a + b, 0) / values.length;
}

function fifth(samples: readonly Sample[], index: number): Sample[] {
  const size = Math.max(1, Math.floor(samples.length / 5));
  return samples.slice(index * size, index === 4 ? undefined : (index + 1) * size);
}

export async function soak(options: SoakOptions): Promise<{ report: string; violations: string[] }> {
  const env = await startChildManagerEnvironment({ logLevel: 'warn' });
  try {
    const setUpStart = performance.now();
    await setUp(env, options);
    const setUpMs = performance.now() - setUpStart;
    const markers = await MarkerWatch.start(env.env.client, (_, component) => (component === BUNDLE ? [] : [BUNDLE]));
    const konflux = new KonfluxStandIn(env.env.client, { seed: `soak-${String(options.seed)}` });
    const random = seededRandom(options.seed);
    const samples: Sample[] = [];
    const start = performance.now();
    const end = start + options.minutes * 60_000;
    const sampler = setInterval(() => {
      void sample(env, start).then((s) => samples.push(s));
    }, SAMPLE_MS);
    const builds: RecordedBuild[] = [];
    // Two drivers: builds sometimes overlap, as unrelated tenants' do.
    await Promise.all(
      [0, 1].map(async () => {
        while (performance.now() < end) {
          const namespace = namespaceName(Math.floor(random() * options.namespaces));
          const component = operand(Math.floor(random() * (options.components - 1)));
          builds.push(await konflux.recordBuild({ namespace, component, nudge: false, succeeded: random() >= 0.1 }));
          await sleep(100 + random() * 900);
        }
      }),
    );
    // Quiet: until every build's marker is settled, then a few ChangeGroup poll intervals more.
    const quietStart = performance.now();
    for (;;) {
      const left = builds.filter((build) => markers.settledAt(build.namespace, build.pipelineRun) === undefined);
      if (left.length === 0) break;
      if (performance.now() - quietStart > QUIET_TIMEOUT_MS) break;
      await sleep(500);
    }
    await sleep(env.env.pollIntervalMs * 8 + 3000);
    clearInterval(sampler);
    const unsettled = builds.filter((build) => markers.settledAt(build.namespace, build.pipelineRun) === undefined);
    const succeeded = builds.filter((build) => build.succeeded);
    const check = await checkNudges(env.env.forge, markers, succeeded, BUNDLE, grouped);
    const stuck = await stuckChangeGroups(env, markers, builds);
    const fires = [...markers.fires.values()].filter((n) => n > 1).length;
    await markers.stop();
    const warnings = env
      .manager()
      .stderr()
      .split('\n')
      .filter((line) => line.trim() !== '');

    const early = mean(fifth(samples, 1).map((s) => s.rss));
    const late = mean(fifth(samples, 4).map((s) => s.rss));
    const grew = late > early * 1.25 && late - early > 30 * MiB;
    const lagEarly = mean(fifth(samples, 1).map((s) => s.lagP99Ms));
    const lagLate = mean(fifth(samples, 4).map((s) => s.lagP99Ms));
    const violations = [
      ...(check.lost.length + unsettled.length > 0 ? ['nudges lost'] : []),
      ...(check.duplicatePullRequests > 0 || fires > 0 ? ['duplicate PRs'] : []),
      ...(stuck.length > 0 ? ['ChangeGroups stuck'] : []),
      ...(grew ? ['RSS growth'] : []),
    ];
    const lines = [
      `soak, ${String(options.minutes)} min: one manager in its own process, ${String(options.namespaces)} namespaces × ` +
        `${String(options.components)} Components (ChangeGroups in ${String(Math.ceil(options.namespaces / 2))}; set up in ${seconds(setUpMs)}), ` +
        `${String(builds.length)} builds (${String(succeeded.length)} succeeded), seed ${String(options.seed)}`,
      '  over time (samples every 5 s, shown by tenth of the run):',
      `  ${'t'.padStart(8)} ${'RSS MiB'.padStart(8)} ${'heap MiB'.padStart(9)} ${'lag p99 ms'.padStart(11)} ${'lag max ms'.padStart(11)}`,
    ];
    const step = Math.max(1, Math.floor(samples.length / 10));
    for (let i = 0; i < samples.length; i += step) {
      const s = samples[i];
      if (s === undefined) continue;
      lines.push(
        `  ${seconds(s.atMs).padStart(8)} ${(s.rss / MiB).toFixed(0).padStart(8)} ${(s.heapUsed / MiB).toFixed(0).padStart(9)} ${s.lagP99Ms.toFixed(1).padStart(11)} ${s.lagMaxMs.toFixed(1).padStart(11)}`,
      );
    }
    const verdict = (bad: boolean): string => (bad ? 'VIOLATION' : 'ok');
    lines.push(
      `  ${'check'.padEnd(44)} ${'value'.padEnd(40)} verdict`,
      `  ${'RSS, 2nd fifth → last fifth of the run'.padEnd(44)} ${`${(early / MiB).toFixed(0)} → ${(late / MiB).toFixed(0)} MiB`.padEnd(40)} ${verdict(grew)}`,
      `  ${'event-loop lag p99, 2nd fifth → last fifth'.padEnd(44)} ${`${lagEarly.toFixed(1)} → ${lagLate.toFixed(1)} ms`.padEnd(40)} (reported)`,
      `  ${'nudges lost (must be 0)'.padEnd(44)} ${`${String(check.lost.length)} operands, ${String(unsettled.length)} builds unsettled`.padEnd(40)} ${verdict(check.lost.length + unsettled.length > 0)}` +
        (check.lost.length === 0 ? '' : ` (${check.lost.slice(0, 3).join('; ')})`),
      `  ${'duplicate PRs (must be 0)'.padEnd(44)} ${`${String(check.duplicatePullRequests)} branches, ${String(fires)} keys fired twice`.padEnd(40)} ${verdict(check.duplicatePullRequests > 0 || fires > 0)}`,
      `  ${'ChangeGroups stuck (must be 0)'.padEnd(44)} ${String(stuck.length).padEnd(40)} ${verdict(stuck.length > 0)}` +
        (stuck.length === 0 ? '' : ` (${stuck.slice(0, 3).join('; ')})`),
      `  operands nudged: ${String(check.pullRequests)} with their PR, ${String(check.held)} held by a ChangeGroup; ` +
        `manager warnings and errors logged: ${String(warnings.length)}` +
        (warnings[0] === undefined ? '' : ` (first: ${warnings[0].slice(0, 300)})`),
    );
    return { report: lines.join('\n'), violations };
  } finally {
    await env.close();
  }
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      minutes: { type: 'string', default: '30' },
      namespaces: { type: 'string', default: '4' },
      components: { type: 'string', default: '8' },
      seed: { type: 'string', default: '14' },
    },
  });
  const number = (name: keyof typeof values, min: number): number => {
    const n = Number(values[name]);
    if (!Number.isFinite(n) || n < min) {
      console.error(`--${name}: "${values[name]}" is not a number >= ${String(min)}`);
      process.exit(2);
    }
    return n;
  };
  const result = await soak({
    minutes: number('minutes', 0.1),
    namespaces: number('namespaces', 1),
    components: number('components', 2),
    seed: number('seed', 0),
  });
  console.log(result.report);
  if (result.violations.length > 0) {
    console.error(`soak: ${result.violations.join(', ')}`);
    process.exit(1);
  }
}
