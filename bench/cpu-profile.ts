// A V8 CPU profile (`node --cpu-prof`, written by the scale benchmark's manager under
// NUDGER_BENCH_CPU_PROF, docs/decisions.md N45, N50) summarised by self time: per function, per
// file, and per kind of code (nudger's src/, dependencies, Node's own, V8's GC and the idle loop),
// optionally over one window of the run (seconds since the profile started; bench/scale.ts prints
// the burst's and wrk's windows relative to the manager's start).
//
// `node bench/cpu-profile.ts <file.cpuprofile> [--from S] [--to S] [--top N]`
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}

interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
}

/** What `--cpu-prof` writes: nodes, and per sample the node on top and the µs since the last. */
export interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly endTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface SelfTime {
  readonly name: string;
  readonly ms: number;
}

export interface ProfileSummary {
  /** Sampled time in the window, in ms (idle included). */
  readonly totalMs: number;
  readonly idleMs: number;
  readonly byFunction: readonly SelfTime[];
  readonly byFile: readonly SelfTime[];
  readonly byKind: readonly SelfTime[];
}

/** `file:///work/main/src/a/b.ts` → `src/a/b.ts`; node_modules as `<package>/…`; Node's as `node:…`. */
export function shortFile(url: string): string {
  if (url === '') return '(native)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) return url.slice(modules + '/node_modules/'.length);
  const source = /\/((?:src|bench|test)\/.*)$/.exec(url);
  if (source?.[1] !== undefined) return source[1];
  return url.startsWith('node:') ? url : url.replace(/^file:\/\//, '');
}

/** The kind of code a frame is: where a missed target's time goes, at a glance. */
export function kindOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (url === '') {
    if (functionName === '(garbage collector)') return 'GC';
    if (functionName === '(idle)') return 'idle';
    if (functionName === '(program)') return 'V8/native (program)';
    return 'native';
  }
  if (url.includes('/node_modules/')) return 'dependencies';
  if (url.startsWith('node:')) return 'Node (lib)';
  if (url.includes('/src/')) return 'nudger src/';
  return 'other';
}

function top(map: Map<string, number>, n: number): SelfTime[] {
  return [...map]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, us]) => ({ name, ms: us / 1000 }));
}

/** Self time per function, file and kind over [fromS, toS) seconds since the profile's start. */
export function summarise(
  profile: CpuProfile,
  options: { fromS?: number; toS?: number; top?: number } = {},
): ProfileSummary {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const from = (options.fromS ?? 0) * 1e6;
  const to = (options.toS ?? Infinity) * 1e6;
  const n = options.top ?? 25;
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  const byKind = new Map<string, number>();
  let total = 0;
  let idle = 0;
  let at = 0;
  for (const [index, id] of profile.samples.entries()) {
    // A sample's delta is the time since the previous one: it is charged to this sample's frame.
    const delta = profile.timeDeltas[index] ?? 0;
    at += delta;
    if (at < from || at >= to) continue;
    const frame = nodes.get(id)?.callFrame;
    if (frame === undefined) continue;
    total += delta;
    const kind = kindOf(frame);
    if (kind === 'idle') {
      idle += delta;
      continue;
    }
    const file = shortFile(frame.url);
    const name = `${frame.functionName === '' ? '(anonymous)' : frame.functionName} ${file}${frame.url === '' ? '' : `:${String(frame.lineNumber + 1)}`}`;
    byFunction.set(name, (byFunction.get(name) ?? 0) + delta);
    byFile.set(file, (byFile.get(file) ?? 0) + delta);
    byKind.set(kind, (byKind.get(kind) ?? 0) + delta);
  }
  return {
    totalMs: total / 1000,
    idleMs: idle / 1000,
    byFunction: top(byFunction, n),
    byFile: top(byFile, n),
    byKind: top(byKind, n),
  };
}

export function formatSummary(summary: ProfileSummary): string {
  const busy = summary.totalMs - summary.idleMs;
  const rows = (title: string, list: readonly SelfTime[]): string[] => [
    `${title} (self time, % of busy):`,
    ...list.map(
      (entry) =>
        `  ${entry.ms.toFixed(0).padStart(8)} ms ${((entry.ms / busy) * 100).toFixed(1).padStart(5)} %  ${entry.name}`,
    ),
  ];
  return [
    `sampled ${(summary.totalMs / 1000).toFixed(1)} s, busy ${(busy / 1000).toFixed(1)} s (${((busy / summary.totalMs) * 100).toFixed(0)} %), idle ${(summary.idleMs / 1000).toFixed(1)} s`,
    ...rows('by kind', summary.byKind),
    ...rows('by file', summary.byFile),
    ...rows('by function', summary.byFunction),
  ].join('\n');
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: { from: { type: 'string' }, to: { type: 'string' }, top: { type: 'string' } },
  });
  const file = positionals[0];
  if (file === undefined)
    throw new Error('usage: node bench/cpu-profile.ts <file.cpuprofile> [--from S] [--to S] [--top N]');
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  console.log(
    formatSummary(
      summarise(profile, {
        ...(values.from === undefined ? {} : { fromS: Number(values.from) }),
        ...(values.to === undefined ? {} : { toS: Number(values.to) }),
        ...(values.top === undefined ? {} : { top: Number(values.top) }),
      }),
    ),
  );
}
