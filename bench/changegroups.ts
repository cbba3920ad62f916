// Issue 4's ChangeGroup figures, measured in the sandbox (real kube-apiserver and etcd, the manager
// in process, real git, the PaC stand-in counting builds): how often the bundle is built for N
// nudging components with and without ChangeGroups, and how long after the last held nudge the
// pull request is marked ready for review.
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { createLogger } from '../src/runtime/logger.ts';
import { startSandboxEnvironment, type SandboxEnvironment } from '../src/sandbox/environment.ts';
import { ScenarioPlayer } from '../src/sandbox/play.ts';
import { syntheticScenario } from '../src/sandbox/scenario/default.ts';
import { withoutChangeGroups } from '../src/sandbox/scenario/objects.ts';
import type { Scenario } from '../src/sandbox/scenario/schema.ts';
import { ms, summarizeMs } from './stats.ts';

async function bundleBuilds(env: SandboxEnvironment, scenario: Scenario): Promise<{ builds: number; seconds: number }> {
  const start = performance.now();
  const player = new ScenarioPlayer(env, scenario, { settleTimeoutMs: 600_000 });
  await player.setUp();
  await player.play();
  const result = await player.result();
  return { builds: result.builds.bundle ?? 0, seconds: (performance.now() - start) / 1000 };
}

async function benchBundleBuilds(env: SandboxEnvironment, sizes: readonly number[]): Promise<string[]> {
  const lines = ['bundle builds per N nudging components, each built once (sandbox, PaC stand-in counts):'];
  for (const n of sizes) {
    const scenario = { ...syntheticScenario(n, n), namespace: `bench-n${String(n)}` };
    const withGroups = await bundleBuilds(env, scenario);
    const without = await bundleBuilds(env, {
      ...withoutChangeGroups(scenario),
      namespace: `bench-n${String(n)}-no-cg`,
    });
    lines.push(
      `  N=${String(n).padStart(3)}: with ChangeGroups ${String(withGroups.builds)} (played in ${withGroups.seconds.toFixed(1)} s), without ${String(without.builds)} (${without.seconds.toFixed(1)} s)`,
    );
  }
  return lines;
}

/**
 * One sample: a 3-operand ChangeGroup with two operands already collected (settled), then the last
 * build; from the moment its nudge PipelineRun exists to the moment the forge shows the PR ready.
 */
async function readyLatencySample(env: SandboxEnvironment, index: number): Promise<number> {
  const base = syntheticScenario(3, 1000 + index);
  const last = base.steps.at(-1);
  const scenario = { ...base, namespace: `bench-ready-${String(index)}`, steps: base.steps.slice(0, -1) };
  const player = new ScenarioPlayer(env, scenario);
  await player.setUp();
  await player.play();
  if (last === undefined || !('build' in last)) throw new Error('syntheticScenario ends with a build step');
  const repo = env.forge.repository(scenario.namespace, 'bundle');
  const [pullRequest] = await env.forge.listPullRequests(repo);
  if (pullRequest === undefined) throw new Error(`${scenario.namespace}: no pull request after two builds`);
  const recorded = await env.konflux.recordBuild({ namespace: scenario.namespace, component: last.build });
  if (recorded.nudge?.specStatus !== 'Cancelled') throw new Error(`${scenario.namespace}: the last nudge was not held`);
  const t0 = performance.now();
  for (;;) {
    const current = await env.forge.getPullRequest(repo, pullRequest.number);
    if (!current.draft) return performance.now() - t0;
    await sleep(5);
  }
}

async function benchReadyLatency(env: SandboxEnvironment, samples: number): Promise<string> {
  const latencies: number[] = [];
  for (let i = 0; i < samples; i += 1) latencies.push(await readyLatencySample(env, i));
  const stats = summarizeMs(latencies);
  return `last held nudge → PR marked ready for review (sandbox, 3 operands): p50 ${ms(stats.p50)}, p99 ${ms(stats.p99)}, max ${ms(stats.max)} (n=${String(stats.n)})`;
}

/**
 * Two sandboxes: the latency samples get a fresh one, so that the stand-ins are not still polling
 * the hundreds of PipelineRuns and repositories the build-count runs leave behind.
 */
export async function benchChangeGroups(options: { sizes: readonly number[]; readySamples: number }): Promise<string> {
  const logger = createLogger({ level: 'silent' });
  const lines: string[] = [];
  const fresh = await startSandboxEnvironment({ logger });
  try {
    lines.push(await benchReadyLatency(fresh, options.readySamples));
  } finally {
    await fresh.close();
  }
  const env = await startSandboxEnvironment({ logger });
  try {
    lines.push(...(await benchBundleBuilds(env, options.sizes)));
  } finally {
    await env.close();
  }
  return lines.join('\n');
}
