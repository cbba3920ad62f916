// `npm run bench`: prints figures; asserts nothing. Each benchmark names its target where the issue
// gives one. Run on a quiet machine; figures vary with the host.
//
// `node bench/run.ts --only <name>[,<name>…]` runs some: a name is a benchmark's (see BENCHMARKS)
// or the part before its first `-` (`dispatch` runs dispatch-latency and dispatch-burst).
// `--quick` makes the dispatch benchmarks smaller (10 latency samples, a 200-build burst) and the
// validated ones too (a day of 10 operands instead of 30; 10 latency samples), and pre-merge-latency
// (10 samples after 2 warm-up), and korifi-stack-update (100 apps in 10 spaces instead of 500 in 50).
// `scale` runs only when named: `--only scale [--namespaces 1000 --components 30 --changegroups 100
// --pipeline-runs 20000 --burst 2000 --wrk-seconds 10]` (those are its defaults, issue 14's sizes).
import { spawnSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { buildNudgeGraphs } from '../src/domain/graph.ts';
import { planImpact } from '../src/domain/plan.ts';
import { validateManifestSet } from '../src/domain/validate.ts';
import { parseDocuments } from '../src/manifest/documents.ts';
import { parseManifestSet } from '../src/manifest/parse.ts';
import { parseYamlDocuments } from '../src/manifest/yaml-source.ts';
import {
  componentName,
  componentYaml,
  nudgeConfigYaml,
  randomDagEdges,
  seededRandom,
  writeGitopsTree,
} from './generate.ts';
import { benchChangeGroups } from './changegroups.ts';
import { benchCliMemory, formatCliMemory } from './cli-memory.ts';
import { benchDispatchBurst } from './dispatch-burst.ts';
import { benchDispatchLatency } from './dispatch-latency.ts';
import { benchInformerMemory, formatInformerMemory } from './informer-memory.ts';
import { benchKorifiStackUpdate } from './korifi-stack-update.ts';
import { benchPreMergeLatency } from './pre-merge-latency.ts';
import { benchPrUpdate } from './pr-update.ts';
import { benchScale, SCALE_FLAGS, scaleOptionsFrom } from './scale.ts';
import { benchStaleReferences } from './stale-references.ts';
import { benchValidatedLatency } from './validated-latency.ts';
import { benchValidatedPolicies, FULL_DAY, QUICK_DAY } from './validated-policies.ts';
import { benchValidatedStatus } from './validated-status.ts';
import { ms, summarizeMs, verdict } from './stats.ts';
import { benchWebhook } from './webhook.ts';
import { benchWebhookMemory, formatWebhookMemory } from './webhook-memory.ts';

const root = join(import.meta.dirname, '..');
const tmp = join(root, '.bench-tmp');
const cli = join(root, 'dist', 'cli', 'main.js');

function header(): void {
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  console.log(
    `machine: ${String(cpus().length)} x ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}, ${process.platform}/${process.arch}`,
  );
}

function timeRepeated(fn: () => unknown, { warmup, runs }: { warmup: number; runs: number }): number[] {
  for (let i = 0; i < warmup; i += 1) fn();
  const samples: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    fn();
    samples.push(performance.now() - start);
  }
  return samples;
}

function benchValidate5000(): void {
  const edges = randomDagEdges(2000, 5000, seededRandom(5000));
  const set = parseManifestSet([{ path: 'nudge-config.yaml', text: nudgeConfigYaml('bench-tenant', edges) }]);
  const stats = summarizeMs(timeRepeated(() => validateManifestSet(set), { warmup: 20, runs: 200 }));
  console.log(
    `validate 5,000-edge NudgeConfig with cycle detection, in process: p50 ${ms(stats.p50)}, p99 ${ms(stats.p99)} (n=${String(stats.n)}) — ${verdict(stats.p50, 5)}`,
  );
  const withParse = summarizeMs(
    timeRepeated(
      () =>
        validateManifestSet(
          parseManifestSet([{ path: 'nudge-config.yaml', text: nudgeConfigYaml('bench-tenant', edges) }]),
        ),
      { warmup: 5, runs: 30 },
    ),
  );
  console.log(`  same, including YAML parsing: p50 ${ms(withParse.p50)}, p99 ${ms(withParse.p99)}`);
}

function wallClock(
  args: readonly string[],
  runs: number,
): { samples: number[]; status: number | null; stderr: string } {
  const samples: number[] = [];
  let last = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 });
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    last = spawnSync(process.execPath, [cli, ...args], { encoding: 'utf8', maxBuffer: 256 * 2 ** 20 });
    samples.push(performance.now() - start);
  }
  return { samples, status: last.status, stderr: last.stderr };
}

async function benchValidateTree(): Promise<void> {
  const dir = await writeGitopsTree(join(tmp, 'tree-5000'), 5000, randomDagEdges(5000, 5000, seededRandom(42)));
  const run = wallClock(['validate', dir], 5);
  const stats = summarizeMs(run.samples);
  console.log(
    `nudger validate, 5,000 Component files + one 5,000-entry NudgeConfig, end to end: p50 ${ms(stats.p50)}, max ${ms(stats.max)} (n=${String(stats.n)}, exit ${String(run.status)}) — ${verdict(stats.p50, 1500)}`,
  );
}

async function benchPlan10000(): Promise<void> {
  const nodes = 10_000;
  const edges = randomDagEdges(nodes, 20_000, seededRandom(10_000));
  const docs = [nudgeConfigYamlUnbounded(edges)];
  for (let i = 0; i < nodes; i += 1) docs.push(componentYaml(componentName(i), 'bench-tenant'));
  const set = parseManifestSet([{ path: 'dag.yaml', text: docs.join('---\n') }]);
  const graph = buildNudgeGraphs(set).get('bench-tenant');
  if (graph === undefined) throw new Error('generated graph missing');
  const changed = Array.from({ length: 100 }, (_, i) => componentName(i * 7));
  const stats = summarizeMs(timeRepeated(() => planImpact(graph, changed), { warmup: 3, runs: 20 }));
  const plan = planImpact(graph, changed);
  console.log(
    `plan on a 10,000-component random DAG (20,000 edges, 100 changed), in process: p50 ${ms(stats.p50)}, p99 ${ms(stats.p99)}; ${String(plan.waves.length)} waves, builds adr29 ${digits(plan.totals.adr29)} vs changegroup ${plan.totals.changegroup.toString()}`,
  );
  // The same graph through the CLI: the edges exceed one NudgeConfig's 5,000 limit, so they go in
  // build-nudges-ref (which has no such limit) to keep the input valid.
  const { writeFile, mkdir } = await import('node:fs/promises');
  await mkdir(tmp, { recursive: true });
  const file = join(tmp, 'dag-10000.yaml');
  const byFrom = new Map<number, number[]>();
  for (const [from, to] of edges) byFrom.set(from, [...(byFrom.get(from) ?? []), to]);
  const componentDocs = Array.from({ length: nodes }, (_, i) => {
    const targets = byFrom.get(i) ?? [];
    const refs =
      targets.length === 0 ? '' : `  build-nudges-ref:\n${targets.map((t) => `    - ${componentName(t)}\n`).join('')}`;
    return componentYaml(componentName(i), 'bench-tenant').replace('spec:\n', `spec:\n${refs}`);
  });
  await writeFile(file, componentDocs.join('---\n'));
  const run = wallClock(['plan', file, '--changed', changed.join(','), '--output', 'json'], 3);
  const e2e = summarizeMs(run.samples);
  console.log(
    `  same through \`nudger plan\` end to end (one 10,000-document file): p50 ${ms(e2e.p50)} (exit ${String(run.status)})${run.status === 0 ? '' : `: ${run.stderr.split('\n')[0] ?? ''}`}`,
  );
}

function nudgeConfigYamlUnbounded(edges: readonly [number, number][]): string {
  // In process the 5,000 limit is only a finding; the planner does not care.
  return nudgeConfigYaml('bench-tenant', edges);
}

function digits(n: bigint): string {
  const text = n.toString();
  return text.length <= 15 ? text : `${text.slice(0, 4)}…(${String(text.length)} digits)`;
}

/**
 * Why src/manifest has its own reader for plain block YAML: the same 5,000 files through it and
 * through the `yaml` library alone, side by side. `yaml` stays the fallback and the test oracle.
 */
function benchParsers(): void {
  const files = Array.from({ length: 5000 }, (_, i) => ({
    path: `c${String(i)}.yaml`,
    text: componentYaml(componentName(i), 'bench-tenant'),
  }));
  files.push({
    path: 'nudge-config.yaml',
    text: nudgeConfigYaml('bench-tenant', randomDagEdges(5000, 5000, seededRandom(42))),
  });
  const parseAll = (parse: (file: string, text: string) => unknown): void => {
    for (const file of files) parse(file.path, file.text);
  };
  const fast = summarizeMs(
    timeRepeated(
      () => {
        parseAll(parseDocuments);
      },
      { warmup: 2, runs: 10 },
    ),
  );
  const library = summarizeMs(
    timeRepeated(
      () => {
        parseAll(parseYamlDocuments);
      },
      { warmup: 2, runs: 10 },
    ),
  );
  console.log(
    `parse 5,000 Component files + 5,000-entry NudgeConfig: nudger reader p50 ${ms(fast.p50)} vs yaml library alone p50 ${ms(library.p50)} (${(library.p50 / fast.p50).toFixed(1)}x)`,
  );
}

const { values: flags } = parseArgs({
  options: { only: { type: 'string' }, quick: { type: 'boolean' }, ...SCALE_FLAGS },
});
const quick = flags.quick === true;

async function print(figure: Promise<string>): Promise<void> {
  console.log(await figure);
}

/** Every benchmark, in the order `npm run bench` runs them. */
const BENCHMARKS: readonly (readonly [name: string, run: () => unknown])[] = [
  ['parsers', benchParsers],
  ['validate', benchValidate5000],
  ['validate-tree', benchValidateTree],
  ['plan', benchPlan10000],
  ['cli-memory', () => print(benchCliMemory().then(formatCliMemory))],
  ['webhook', benchWebhook],
  ['webhook-memory', () => print(benchWebhookMemory().then(formatWebhookMemory))],
  ['informer-memory', () => print(benchInformerMemory().then(formatInformerMemory))],
  ['stale-references', () => print(benchStaleReferences())],
  ['validated-status', () => print(Promise.resolve(benchValidatedStatus()))],
  ['pr-update', () => print(benchPrUpdate())],
  ['changegroups', () => print(benchChangeGroups({ sizes: [3, 30, 100], readySamples: 30 }))],
  [
    'dispatch-latency',
    () => print(benchDispatchLatency(quick ? { samples: 10, warmup: 2 } : { samples: 30, warmup: 3 })),
  ],
  ['dispatch-burst', () => print(benchDispatchBurst({ namespaces: quick ? 20 : 100 }))],
  ['validated-policies', () => print(benchValidatedPolicies(quick ? QUICK_DAY : FULL_DAY))],
  [
    'validated-latency',
    () => print(benchValidatedLatency(quick ? { samples: 10, warmup: 2 } : { samples: 30, warmup: 5 })),
  ],
  [
    'pre-merge-latency',
    () => print(benchPreMergeLatency(quick ? { samples: 10, warmup: 2 } : { samples: 30, warmup: 5 })),
  ],
  [
    'korifi-stack-update',
    () => print(benchKorifiStackUpdate(quick ? { spaces: 10, appsPerSpace: 10 } : { spaces: 50, appsPerSpace: 10 })),
  ],
  // Issue 14's scale run takes long at full size: only with `--only scale` (sizes: bench/scale.ts).
  ['scale', () => print(benchScale(scaleOptionsFrom(flags)))],
];

/** Benchmarks `npm run bench` leaves out unless `--only` names them. */
const OPT_IN = new Set(['scale']);

/** A benchmark's own name picks it alone; otherwise a name picks every `<name>-…` benchmark. */
function picks(wanted: string, name: string): boolean {
  return BENCHMARKS.some(([known]) => known === wanted) ? name === wanted : name.startsWith(`${wanted}-`);
}

function selected(only: string | undefined): readonly (readonly [string, () => unknown])[] {
  if (only === undefined) return BENCHMARKS.filter(([name]) => !OPT_IN.has(name));
  const wanted = only.split(',').map((name) => name.trim());
  const unknown = wanted.filter((w) => !BENCHMARKS.some(([name]) => picks(w, name)));
  if (unknown.length > 0) {
    console.error(
      `--only: no benchmark named ${unknown.join(', ')}; known: ${BENCHMARKS.map(([name]) => name).join(', ')}`,
    );
    process.exit(2);
  }
  return BENCHMARKS.filter(([name]) => wanted.some((w) => picks(w, name)));
}

const chosen = selected(flags.only);
header();
if (quick)
  console.log(
    '--quick: dispatch and validated benchmarks at a smaller size (10 latency samples, 200-build burst, 10-operand day)',
  );
for (const [, run] of chosen) await run();
