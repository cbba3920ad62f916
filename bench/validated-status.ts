// status.validatedNudges at 5,000 validated entries (issue 11): how big the status is and how long
// computing it takes, for the shapes that matter: many entries in few groups, one group, one group
// per entry, and the longest names the schema allows. The graph is built once, as the dispatcher
// has it from its cache; only the status is timed. Half of each pair's sources were nudged before
// from an older build, and every source has a newer one, so every entry waits.
import { performance } from 'node:perf_hooks';
import { namespaceNudgeGraph } from '../src/cluster/nudge-graph.ts';
import type { NudgedDigest, ValidatedRecord } from '../src/domain/nudge/validated-record.ts';
import { validatedNudgesStatus, type ValidatedStatusInputs } from '../src/domain/nudge/validated-status.ts';
import type { ClusterNudgeConfig } from '../src/schema/nudgeconfig.ts';
import { ms, summarizeMs } from './stats.ts';

const NAMESPACE = 'bench-tenant';
const ENTRIES = 5000;

interface Names {
  readonly component: (i: number) => string;
  readonly group: (i: number) => string;
  readonly snapshot: (i: number) => string;
}

const TYPICAL: Names = {
  component: (i) => `operand-${String(i).padStart(5, '0')}`,
  group: (i) => `group-${String(i).padStart(4, '0')}`,
  snapshot: (i) => `my-application-${String(i).padStart(5, '0')}`,
};

function sized(prefix: string, length: number): (i: number) => string {
  return (i) => {
    const suffix = `-${String(i)}`;
    return prefix.repeat(length).slice(0, length - suffix.length) + suffix;
  };
}

const LONGEST: Names = { component: sized('c', 63), group: sized('g', 63), snapshot: sized('s', 253) };

function inputsFor(groups: number, names: Names): ValidatedStatusInputs {
  const perGroup = ENTRIES / groups;
  const nudges: { from: string; to: string; mode: string; gatingGroup: string }[] = [];
  const records = new Map<string, ValidatedRecord>();
  const builds = new Map<string, number>();
  for (let g = 0; g < groups; g += 1) {
    const gatingGroup = names.group(g);
    const to = names.component(100_000 + g);
    const nudged = new Map<string, NudgedDigest>();
    for (let j = 0; j < perGroup; j += 1) {
      const from = names.component(g * perGroup + j);
      nudges.push({ from, to, mode: 'validated', gatingGroup });
      builds.set(from, 2);
      if (j % 2 === 0) {
        nudged.set(from, { digest: `sha256:${'0'.repeat(64)}`, snapshot: 'older', startTime: 1, buildCreatedAt: 1 });
      }
    }
    records.set(`${gatingGroup}\u0000${to}`, {
      group: gatingGroup,
      target: to,
      nudged,
      lastPass: { snapshot: names.snapshot(g), startTime: 1_764_162_000 + g, at: '2026-11-26T13:00:00.000Z' },
    });
  }
  const config = {
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name: 'nudge-config', namespace: NAMESPACE },
    spec: { nudges },
  } as ClusterNudgeConfig;
  return {
    graph: namespaceNudgeGraph(NAMESPACE, { components: [], nudgeConfig: config }),
    record: (group, target) => records.get(`${group}\u0000${target}`),
    newestBuildCreatedAt: (component) => builds.get(component),
  };
}

export function benchValidatedStatus(): string {
  const shapes = [
    ['50 groups x 100', 50, TYPICAL],
    ['1 group x 5,000', 1, TYPICAL],
    ['5,000 groups x 1', 5000, TYPICAL],
    ['50 groups x 100, longest names (largest status)', 50, LONGEST],
  ] as const;
  const lines = ['status.validatedNudges at 5,000 validated entries (all waiting), computed in process:'];
  for (const [title, groups, names] of shapes) {
    const inputs = inputsFor(groups, names);
    const samples: number[] = [];
    let bytes = 0;
    for (let run = 0; run < 55; run += 1) {
      const start = performance.now();
      const status = validatedNudgesStatus(inputs);
      const elapsed = performance.now() - start;
      if (run >= 5) samples.push(elapsed);
      bytes = Buffer.byteLength(JSON.stringify(status));
    }
    const stats = summarizeMs(samples);
    lines.push(
      `  ${title}: ${(bytes / 1024).toFixed(1)} KiB (${String(bytes)} bytes; 1 MiB object limit), p50 ${ms(stats.p50)}, p99 ${ms(stats.p99)} (n=${String(stats.n)})`,
    );
  }
  return lines.join('\n');
}
