// The ChangeGroup admission decision (ADR 59), pure, beside its NudgeConfig counterpart
// (src/domain/nudgeconfig-admission.ts): the nudged Component exists, every listed nudging
// Component has a nudge edge to it, no other active ChangeGroup already holds one of its
// (nudging, nudged) pairs, and the timeout parses. The webhook gathers the facts; this decides.
import { compareStrings } from '../compare.ts';
import type { ClusterChangeGroup } from '../../schema/changegroup.ts';
import { parseTimeout } from './duration.ts';
import type { ChangeGroupView } from './hold-decision.ts';
import { isTerminalPhase } from './model.ts';

/** A ChangeGroup as admission reads it: the hold decision's view plus the timeout to check. */
export interface ChangeGroupAdmissionView extends ChangeGroupView {
  readonly timeout?: string;
}

/**
 * The fields admission and the hold decision need from a decoded ChangeGroup (the cache's, or an
 * admission request's). `namespace` overrides `metadata.namespace`, which a CREATE request may
 * leave out.
 */
export function changeGroupView(changeGroup: ClusterChangeGroup, namespace?: string): ChangeGroupAdmissionView {
  const { metadata, spec, status } = changeGroup;
  return {
    name: metadata?.name ?? '',
    namespace: namespace ?? metadata?.namespace ?? '',
    nudgedComponent: spec.nudgedComponent,
    nudgingComponents: (spec.nudgingComponents ?? []).map((component) => component.name),
    ...(status?.phase === undefined ? {} : { phase: status.phase }),
    ...(spec.timeout === undefined ? {} : { timeout: spec.timeout }),
  };
}

/** Active: holding or about to hold nudges. No status yet counts, the controller has not got to it. */
export function isActiveChangeGroup(changeGroup: ChangeGroupView): boolean {
  return changeGroup.phase === undefined || !isTerminalPhase(changeGroup.phase);
}

/**
 * The nudging names whose edge must be checked: all of them on create; on update only the added
 * ones, so that removing a component (or an edge disappearing later) never blocks an edit.
 */
export function nudgersToCheck(
  operation: 'CREATE' | 'UPDATE',
  changeGroup: ChangeGroupView,
  previous: ChangeGroupView | undefined,
): string[] {
  const before = new Set(operation === 'UPDATE' ? (previous?.nudgingComponents ?? []) : []);
  return [...new Set(changeGroup.nudgingComponents)].filter((name) => !before.has(name));
}

export interface ChangeGroupAdmissionInput {
  readonly operation: 'CREATE' | 'UPDATE';
  readonly changeGroup: ChangeGroupAdmissionView;
  /** False only when a live read confirmed the nudged Component is absent. Not checked on UPDATE. */
  readonly nudgedExists: boolean;
  /** Among the names checked (nudgersToCheck), those with no edge to the nudged component. */
  readonly nudgersWithoutEdge: ReadonlySet<string>;
  /** The ChangeGroups of the namespace; the one being admitted is skipped by name. */
  readonly changeGroups: readonly ChangeGroupView[];
}

export type ChangeGroupAdmission = { readonly allowed: true } | { readonly allowed: false; readonly message: string };

/** The (nudging) names two ChangeGroups of the same target both hold; `every` when either lists none. */
function sharedNudgers(a: ChangeGroupView, b: ChangeGroupView): readonly string[] | 'every' | undefined {
  if (a.nudgedComponent !== b.nudgedComponent) return undefined;
  if (a.nudgingComponents.length === 0 || b.nudgingComponents.length === 0) return 'every';
  const shared = a.nudgingComponents.filter((name) => b.nudgingComponents.includes(name));
  return shared.length === 0 ? undefined : [...new Set(shared)].sort();
}

export function decideChangeGroupAdmission(input: ChangeGroupAdmissionInput): ChangeGroupAdmission {
  const { changeGroup: cg } = input;
  const problems: string[] = [];
  if (input.operation === 'CREATE' && !input.nudgedExists) {
    problems.push(
      `spec.nudgedComponent: component "${cg.nudgedComponent}" does not exist in namespace ${cg.namespace}`,
    );
  }
  cg.nudgingComponents.forEach((name, index) => {
    if (!input.nudgersWithoutEdge.has(name)) return;
    problems.push(
      `spec.nudgingComponents[${String(index)}].name: component "${name}" does not nudge "${cg.nudgedComponent}" ` +
        '(no nudge-config entry and no build-nudges-ref)',
    );
  });
  if (cg.timeout !== undefined) {
    const parsed = parseTimeout(cg.timeout);
    if (!parsed.ok) problems.push(`spec.timeout: ${parsed.problem}`);
  }
  if (isActiveChangeGroup(cg)) {
    const others = input.changeGroups
      .filter((other) => other.namespace === cg.namespace && other.name !== cg.name && isActiveChangeGroup(other))
      .sort((a, b) => compareStrings(a.name, b.name));
    for (const other of others) {
      const shared = sharedNudgers(cg, other);
      if (shared === undefined) continue;
      const which = shared === 'every' ? 'from every nudging component' : `from ${shared.join(', ')}`;
      problems.push(
        `spec.nudgingComponents: active ChangeGroup "${other.name}" already holds the nudges of ` +
          `"${cg.nudgedComponent}" ${which}`,
      );
    }
  }
  if (problems.length === 0) return { allowed: true };
  return { allowed: false, message: `ChangeGroup ${cg.namespace}/${cg.name}: ${problems.join('; ')}` };
}
