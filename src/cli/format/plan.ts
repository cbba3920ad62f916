// The rebuild plan for humans and for the JSON contract. Build counts are bigints because ADR 29
// counts multiply along every path; JSON.rawJSON keeps them exact past 2^53.
import type { ImpactPlan } from '../../domain/plan.ts';
import { terminalSafe } from './terminal-text.ts';
import { compareStrings } from '../../domain/compare.ts';

declare global {
  // Node >= 21 (V8's JSON.parse-with-source): not yet in TypeScript's lib files.
  interface JSON {
    rawJSON(text: string): unknown;
  }
}

export interface PlanJson {
  namespace: string;
  changed: string[];
  waves: string[][];
  builds: { adr29: Record<string, unknown>; changegroup: Record<string, unknown> };
  totals: { adr29: unknown; changegroup: unknown };
}

function exactNumber(n: bigint): unknown {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : JSON.rawJSON(n.toString());
}

function countsToJson(counts: ReadonlyMap<string, bigint>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, n] of [...counts].sort(([a], [b]) => compareStrings(a, b))) out[name] = exactNumber(n);
  return out;
}

export function planToJson(plan: ImpactPlan): PlanJson {
  return {
    namespace: plan.namespace,
    changed: [...plan.changed],
    waves: plan.waves.map((wave) => [...wave]),
    builds: { adr29: countsToJson(plan.builds.adr29), changegroup: countsToJson(plan.builds.changegroup) },
    totals: { adr29: exactNumber(plan.totals.adr29), changegroup: exactNumber(plan.totals.changegroup) },
  };
}

export function planToText(plan: ImpactPlan): string {
  const rows: string[][] = [['wave', 'component', 'builds (ADR 29)', 'builds (ChangeGroup)']];
  plan.waves.forEach((wave, index) => {
    for (const name of wave) {
      rows.push([
        String(index),
        terminalSafe(name),
        (plan.builds.adr29.get(name) ?? 0n).toString(),
        (plan.builds.changegroup.get(name) ?? 0n).toString(),
      ]);
    }
  });
  const widths = rows[0]?.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length))) ?? [];
  const table = rows.map((row) =>
    row
      .map((cell, col) => (col >= 2 ? cell.padStart(widths[col] ?? 0) : cell.padEnd(widths[col] ?? 0)))
      .join('  ')
      .trimEnd(),
  );
  const saved = plan.totals.adr29 - plan.totals.changegroup;
  const ns = plan.namespace === '' ? '' : ` in namespace ${terminalSafe(plan.namespace)}`;
  return [
    `Rebuild plan for ${String(plan.changed.length)} changed component(s)${ns}: ${String(plan.waves.length)} wave(s)`,
    '',
    ...table,
    '',
    `Total builds: ${plan.totals.adr29.toString()} with one nudge per build (ADR 29), ${plan.totals.changegroup.toString()} with ChangeGroups (${saved.toString()} saved)`,
    '',
  ].join('\n');
}
