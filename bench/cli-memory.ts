// Peak memory of the offline commands on large input (issue 8: bounded per run, under 10x the input
// for plain manifests): `nudger validate` and `nudger migrate` (a dry run, which also prints the
// diff) each run in a child process of the built CLI on one file of Components that each carry
// spec.build-nudges-ref, plus a kustomization, and the figure is the child's peak RSS
// (getrusage maxRSS, reported by a preloaded exit hook) above Node's own: the same command's peak
// on a tree of one Component. Needs `npm run build` first.
// Run alone: `node bench/cli-memory.ts` (under a minute; `--sizes 4.5` for the small input only).
import { spawnSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeMigrationInput } from './generate.ts';

const root = join(import.meta.dirname, '..');
const tmp = join(root, '.bench-tmp', 'cli-memory');
const bin = join(root, 'dist', 'cli', 'bin.js');
const MB = 1e6;
const MiB = 2 ** 20;
const TARGET_RATIO = 10;
/** Writes the child's peak resident set (KiB, from getrusage) to fd 3 when it exits. */
const PEAK_HOOK =
  "data:text/javascript,process.on('exit',()=>process.getBuiltinModule('node:fs').writeSync(3,String(process.resourceUsage().maxRSS)))";

export type OfflineCommand = 'validate' | 'migrate';

export interface CliMemoryFigure {
  readonly command: OfflineCommand;
  readonly inputBytes: number;
  readonly peakRssBytes: number;
  /** The same command's peak on one Component: Node and nudger's modules. */
  readonly baselineRssBytes: number;
  readonly exitCode: number | null;
  readonly seconds: number;
}

/** The peak RSS of `nudger <command> <dir>`, its exit code and its wall time. */
function peakOf(command: OfflineCommand, dir: string): { rss: number; exitCode: number | null; seconds: number } {
  const started = performance.now();
  const run = spawnSync(process.execPath, ['--import', PEAK_HOOK, bin, command, dir], {
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
    maxBuffer: 64 * MiB,
  });
  const reported = Number(run.output[3]);
  if (!Number.isFinite(reported) || reported <= 0) {
    throw new Error(
      `nudger ${command} reported no peak memory (exit ${String(run.status)}): ${run.stderr.slice(0, 400)}`,
    );
  }
  return { rss: reported * 1024, exitCode: run.status, seconds: (performance.now() - started) / 1000 };
}

export async function benchCliMemory(sizesMb: readonly number[] = [4.5, 30]): Promise<CliMemoryFigure[]> {
  const small = join(tmp, 'one-component');
  await mkdir(small, { recursive: true });
  await writeFile(
    join(small, 'component.yaml'),
    'apiVersion: appstudio.redhat.com/v1alpha1\nkind: Component\nmetadata:\n  name: a\n  namespace: t\nspec:\n  build-nudges-ref: []\n',
  );
  const commands: readonly OfflineCommand[] = ['validate', 'migrate'];
  const baselines = new Map(commands.map((command) => [command, peakOf(command, small).rss]));
  const figures: CliMemoryFigure[] = [];
  for (const size of sizesMb) {
    const dir = join(tmp, `components-${String(size)}mb`);
    const inputBytes = await writeMigrationInput(dir, size * MB);
    for (const command of commands) {
      const run = peakOf(command, dir);
      figures.push({
        command,
        inputBytes,
        peakRssBytes: run.rss,
        baselineRssBytes: baselines.get(command) ?? 0,
        exitCode: run.exitCode,
        seconds: run.seconds,
      });
    }
  }
  return figures;
}

export function formatCliMemory(figures: readonly CliMemoryFigure[]): string {
  const mib = (bytes: number): string => `${(bytes / MiB).toFixed(0)} MiB`;
  const lines = figures.map((figure) => {
    const above = figure.peakRssBytes - figure.baselineRssBytes;
    const ratio = above / figure.inputBytes;
    const verdict = ratio < TARGET_RATIO ? 'meets' : 'MISSES';
    return (
      `  ${figure.command.padEnd(8)} ${(figure.inputBytes / MB).toFixed(1).padStart(5)} MB: peak RSS ${mib(figure.peakRssBytes)}, ` +
      `${mib(above)} above Node's own ${mib(figure.baselineRssBytes)} = ${ratio.toFixed(1)}x the input ` +
      `(exit ${String(figure.exitCode)}, ${figure.seconds.toFixed(0)} s) — ${verdict} target < ${String(TARGET_RATIO)}x`
    );
  });
  return [
    'CLI peak memory, one file of Components each with build-nudges-ref plus a kustomization (migrate: dry run with diff):',
    ...lines,
  ].join('\n');
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { sizes: { type: 'string' } } });
  const sizes = values.sizes?.split(',').map(Number) ?? undefined;
  console.log(formatCliMemory(await benchCliMemory(sizes)));
}
