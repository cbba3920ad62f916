// The rebuild plan for humans and for the JSON contract. Build counts are bigints because ADR 29
// counts multiply along every path; JSON.rawJSON keeps them exact past 2^53 (N3).
import { PLAN_POLICIES, type ImpactPlan, type PlanPolicy } from '../../domain/plan.ts';
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
  /** One key per policy shown, in PLAN_POLICIES order. */
  builds: Partial<Record<PlanPolicy, Record<string, unknown>>>;
  totals: Partial<Record<PlanPolicy, unknown>>;
  /** With `validated` shown: each gating group that passes, with the waves it passes after. */
  passes?: Record<string, number[]>;
}

/**
 * The policies shown when `--policy` is not given: `adr29` and `changegroup` always, `validated`
 * when an affected edge is validated; without one it would repeat the `adr29` numbers, and the
 * output stays what it was before validated nudges.
 */
export function defaultPolicies(plan: ImpactPlan): PlanPolicy[] {
  return plan.hasValidatedEdges ? [...PLAN_POLICIES] : ['adr29', 'changegroup'];
}

/** `policies` distinct and in PLAN_POLICIES order, whatever order they were asked in. */
function ordered(policies: readonly PlanPolicy[]): PlanPolicy[] {
  return PLAN_POLICIES.filter((policy) => policies.includes(policy));
}

function exactNumber(n: bigint): unknown {
  return n <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(n) : JSON.rawJSON(n.toString());
}

function countsToJson(counts: ReadonlyMap<string, bigint>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, n] of [...counts].sort(([a], [b]) => compareStrings(a, b))) out[name] = exactNumber(n);
  return out;
}

export function planToJson(plan: ImpactPlan, policies: readonly PlanPolicy[] = defaultPolicies(plan)): PlanJson {
  const shown = ordered(policies);
  const builds: PlanJson['builds'] = {};
  const totals: PlanJson['totals'] = {};
  for (const policy of shown) {
    builds[policy] = countsToJson(plan.builds[policy]);
    totals[policy] = exactNumber(plan.totals[policy]);
  }
  return {
    namespace: plan.namespace,
    changed: [...plan.changed],
    waves: plan.waves.map((wave) => [...wave]),
    builds,
    totals,
    ...(shown.includes('validated')
      ? { passes: Object.fromEntries([...plan.passes].map(([g, at]) => [g, [...at]])) }
      : {}),
  };
}

const COLUMN: Record<PlanPolicy, string> = {
  adr29: 'builds (ADR 29)',
  changegroup: 'builds (ChangeGroup)',
  validated: 'builds (validated)',
};

const TOTAL: Record<PlanPolicy, string> = {
  adr29: 'with one nudge per build (ADR 29)',
  changegroup: 'with ChangeGroups',
  validated: 'with validated nudges',
};

function passesText(plan: ImpactPlan): string[] {
  if (plan.passes.size === 0) return ['No gating group passes: no validated entry fires.', ''];
  const groups = [...plan.passes].map(([group, at]) => {
    const times = at.length === 1 ? 'once' : `${String(at.length)} times`;
    return `${terminalSafe(group)} ${times} (after wave${at.length === 1 ? '' : 's'} ${at.join(', ')})`;
  });
  return [`Gating groups pass: ${groups.join('; ')}`, ''];
}

export function planToText(plan: ImpactPlan, policies: readonly PlanPolicy[] = defaultPolicies(plan)): string {
  const shown = ordered(policies);
  const rows: string[][] = [['wave', 'component', ...shown.map((policy) => COLUMN[policy])]];
  plan.waves.forEach((wave, index) => {
    for (const name of wave) {
      rows.push([
        String(index),
        terminalSafe(name),
        ...shown.map((policy) => (plan.builds[policy].get(name) ?? 0n).toString()),
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
  // Savings are against ADR 29, the cost every other policy is there to cut; shown only beside it.
  const totals = shown.map((policy) => {
    const total = plan.totals[policy];
    const saved =
      policy !== 'adr29' && shown.includes('adr29') ? ` (${(plan.totals.adr29 - total).toString()} saved)` : '';
    return `${total.toString()} ${TOTAL[policy]}${saved}`;
  });
  const ns = plan.namespace === '' ? '' : ` in namespace ${terminalSafe(plan.namespace)}`;
  return [
    `Rebuild plan for ${String(plan.changed.length)} changed component(s)${ns}: ${String(plan.waves.length)} wave(s)`,
    '',
    ...table,
    '',
    `Total builds: ${totals.join(', ')}`,
    '',
    ...(shown.includes('validated') ? passesText(plan) : []),
  ].join('\n');
}
