// The admission decision for a NudgeConfig create or update (ADR 67 "Validation Rules"): every
// stateless rule of the offline validator, plus the stateful one, that `from` and `to` name
// Components that exist in the namespace. Existence is checked for every entry on create and only
// for newly added entries on update: an entry that went stale after it was admitted is the
// stale-reference controller's business (a status condition), not a reason to refuse edits.
// The rules are those of the object's version (its flavour): konflux-ci.dev/v1beta2 objects are held
// to upstream's 360 entries and may leave a validated entry ungated (a warning, not a denial).
import { type Finding, type ManifestSet, type NudgeEntry, formatRef } from './model.ts';
import { validateManifestSet } from './validate.ts';

export type AdmissionOperation = 'CREATE' | 'UPDATE';

export interface NudgeConfigAdmissionInput {
  readonly operation: AdmissionOperation;
  /** The incoming object, read like a manifest (exactly one NudgeConfig expected). */
  readonly incoming: ManifestSet;
  /** On UPDATE: the entries of the stored object. */
  readonly previousEntries?: readonly Pick<NudgeEntry, 'from' | 'to'>[];
  /** Names among the entries' `from`/`to` that do not exist as Components in the namespace. */
  readonly missingComponents: ReadonlySet<string>;
}

export interface NudgeConfigAdmissionDecision {
  readonly allowed: boolean;
  /** One message naming every offending entry (for the API server to show to the user). */
  readonly message: string;
  readonly warnings: readonly string[];
  readonly findings: readonly Finding[];
}

/** A denial lists at most this many problems; the rest are counted. */
const MAX_LISTED = 20;

/** The names whose existence must be checked: all entries on create, new entries on update. */
export function namesToCheck(
  operation: AdmissionOperation,
  entries: readonly Pick<NudgeEntry, 'from' | 'to'>[],
  previousEntries: readonly Pick<NudgeEntry, 'from' | 'to'>[] = [],
): string[] {
  const previous = new Set(previousEntries.map((e) => pairKey(e.from, e.to)));
  const names = new Set<string>();
  for (const entry of entries) {
    if (operation === 'UPDATE' && previous.has(pairKey(entry.from, entry.to))) continue;
    names.add(entry.from);
    names.add(entry.to);
  }
  return [...names].sort();
}

export function decideNudgeConfigAdmission(input: NudgeConfigAdmissionInput): NudgeConfigAdmissionDecision {
  const config = input.incoming.nudgeConfigs[0];
  const { findings } = validateManifestSet(input.incoming);
  if (config === undefined) {
    // Nothing nudger reads (an apiVersion it does not know, or no name): admitting it would let a
    // graph in that no rule has looked at, so it is refused with whatever the reader had to say.
    const why = findings.map((f) => f.message);
    return {
      allowed: false,
      message: `not a NudgeConfig nudger can read${why.length === 0 ? '' : `: ${why.slice(0, MAX_LISTED).join('; ')}`}`,
      warnings: [],
      findings,
    };
  }
  const stateful: Finding[] = [];
  const previous = new Set((input.previousEntries ?? []).map((e) => pairKey(e.from, e.to)));
  for (const entry of config.entries) {
    if (input.operation === 'UPDATE' && previous.has(pairKey(entry.from, entry.to))) continue;
    const absent = [entry.from, entry.to].filter((name) => input.missingComponents.has(name));
    if (absent.length === 0) continue;
    stateful.push({
      rule: 'unknown-component',
      severity: 'error',
      message: `spec.nudges[${String(entry.index)}] (${entry.from} -> ${entry.to}): ${absent.map((n) => `component "${n}"`).join(' and ')} does not exist in namespace ${config.ref.namespace}`,
      namespace: config.ref.namespace,
      object: config.ref,
    });
  }
  const all = [...findings, ...stateful];
  const errors = all.filter((f) => f.severity === 'error');
  const warnings = all.filter((f) => f.severity === 'warning').map((f) => f.message);
  if (errors.length === 0) return { allowed: true, message: '', warnings, findings: all };
  const what = formatRef(config.ref);
  const listed = errors.slice(0, MAX_LISTED).map((f) => `[${f.rule}] ${stripObjectPrefix(f.message, what)}`);
  const more = errors.length > MAX_LISTED ? `; and ${String(errors.length - MAX_LISTED)} more` : '';
  return {
    allowed: false,
    message: `${what} is invalid: ${listed.join('; ')}${more}`,
    warnings,
    findings: all,
  };
}

function pairKey(from: string, to: string): string {
  return `${from}\u0000${to}`;
}

/** Findings start with the object's name, which the denial already says once. */
function stripObjectPrefix(message: string, what: string): string {
  return message.startsWith(`${what} `) ? message.slice(what.length + 1) : message;
}
