// Judges the NudgeConfigs a migration is about to write with the same rules `nudger validate` and
// nudger's admission webhook apply, so that migration never writes an object they reject: one bad
// entry gets the whole object denied on apply, and with it every edge of the namespace.
//
// The objects are judged as they would be written (flavour `konflux-ci.dev/v1alpha1`, every entry
// in its final order) together with the Components of their namespaces. Each finding is then traced
// back to the lines that declared the edge before the migration (a Component's build-nudges-ref, an
// upstream v1beta2 entry, or an entry already in the target), because those are what a human fixes.
//
// What `--drop-invalid` may drop: edges that can never nudge anything (a target or source that is
// no Component of the namespace, a name that cannot be a Component, a self-nudge). What it never
// drops, because the choice belongs to a human and dropping would lose meaningful edges in silence:
// - a cycle: every edge of it is a real dependency, and which one to cut changes what gets rebuilt
//   (a minimum cut is not unique, so no choice would be "the" right one);
// - more entries than `maxItems`: all are valid, and a namespace has exactly one NudgeConfig;
// - `mode: validated` without `gatingGroup` (upstream reserves the field, nudger requires it): the
//   fix is to name the gating ComponentGroup or to make the entry `immediate`, not to lose it;
// - anything else about the object as a whole (its name, an invalid mode, a repeated pair in it).
import { validateManifestSet } from './validate.ts';
import {
  MAX_NUDGE_ENTRIES,
  formatRef,
  type ComponentObject,
  type Finding,
  type NudgeConfigObject,
  type NudgeEntry,
  type ObjectRef,
  type RuleId,
  type SourceLocation,
} from './model.ts';
import { UnsafeMigrationError, type RefusalProblem } from './migrate-error.ts';
import type { MigrationEntry } from './migrate-model.ts';
import { compareStrings } from './compare.ts';

/** One place an edge was declared before the migration. */
export interface EntrySource {
  readonly file: string;
  readonly object: ObjectRef;
  /** The field that declared it, e.g. `spec.build-nudges-ref[1]` or `spec.nudges[3]`. */
  readonly field: string;
  /** The 1-based line, computed only when a message needs it (it can be costly for JSON). */
  readonly line: () => number | undefined;
}

export interface PlannedEntry extends MigrationEntry {
  /** Every declaration of this (from, to) pair in the namespace; at least one. */
  readonly sources: readonly EntrySource[];
}

/** A NudgeConfig as the migration would write it. */
export interface PlannedNudgeConfig {
  readonly namespace: string;
  readonly name: string;
  /** The file it is written to. */
  readonly file: string;
  /** In the order they would be written. */
  readonly entries: readonly PlannedEntry[];
}

/** A Component of the input (its existence is what `unknown-component` judges). */
export interface KnownComponent {
  readonly namespace: string;
  readonly name: string;
  readonly file: string;
}

export interface OffendingEdge {
  readonly from: string;
  readonly to: string;
  readonly sources: readonly EntrySource[];
}

export interface Offence {
  readonly rule: RuleId;
  readonly namespace: string;
  /** The NudgeConfig file that would have been written. */
  readonly nudgeConfig: string;
  /** The edges at fault: one for an entry rule, every step for a cycle, none for the object as a whole. */
  readonly edges: readonly OffendingEdge[];
  /** Why, without the location (which `formatOffence` adds). */
  readonly reason: string;
  /** Whether `--drop-invalid` drops the edge (see the header). */
  readonly droppable: boolean;
}

export interface MigrationCheck {
  readonly offences: readonly Offence[];
  /**
   * Namespaces whose NudgeConfig would be written although the input holds none of their
   * Components: whether the names it uses exist could not be judged.
   */
  readonly unjudged: readonly string[];
}

const DROPPABLE: ReadonlySet<RuleId> = new Set<RuleId>(['unknown-component', 'invalid-name', 'self-nudge']);

interface Traced {
  readonly config: PlannedNudgeConfig;
  readonly entry: PlannedEntry;
  readonly prefix: string;
}

export function checkPlannedNudgeConfigs(
  configs: readonly PlannedNudgeConfig[],
  components: readonly KnownComponent[],
): MigrationCheck {
  // Findings keep the location object of the entry they are about, so identity traces them back.
  const traced = new Map<SourceLocation, Traced>();
  const byRef = new Map<ObjectRef, PlannedNudgeConfig>();
  const nudgeConfigs = configs.map((config) => {
    const ref: ObjectRef = { kind: 'NudgeConfig', namespace: config.namespace, name: config.name };
    const entries = config.entries.map((entry, index): NudgeEntry => {
      const location: SourceLocation = { file: entry.sources[0]?.file ?? config.file };
      traced.set(location, { config, entry, prefix: `${formatRef(ref)} spec.nudges[${String(index)}]` });
      return {
        index,
        from: entry.from,
        to: entry.to,
        ...(entry.mode === undefined ? {} : { mode: entry.mode }),
        ...(entry.gatingGroup === undefined ? {} : { gatingGroup: entry.gatingGroup }),
        location,
      };
    });
    const object: NudgeConfigObject = { ref, flavour: 'nudger', location: { file: config.file }, entries };
    byRef.set(ref, config);
    return object;
  });
  const namespaces = new Set(configs.map((config) => config.namespace));
  const relevant = components.filter((component) => namespaces.has(component.namespace));
  const componentObjects = relevant.map((component): ComponentObject => ({
    ref: { kind: 'Component', namespace: component.namespace, name: component.name },
    location: { file: component.file },
    buildNudgesRef: [],
  }));
  const withComponents = new Set(relevant.map((component) => component.namespace));
  const findings = validateManifestSet({ components: componentObjects, nudgeConfigs, issues: [] }).findings;

  const offences: Offence[] = [];
  for (const finding of findings) {
    if (finding.severity !== 'error') continue;
    offences.push(offenceOf(finding, traced, byRef, configs));
  }
  return {
    offences: sortOffences(offences),
    unjudged: configs
      .filter((config) => config.entries.length > 0 && !withComponents.has(config.namespace))
      .map((config) => config.namespace),
  };
}

/** By namespace, then the first line that declared the edge (where a human starts reading), then rule. */
function sortOffences(offences: readonly Offence[]): Offence[] {
  const keyed = offences.map((offence) => {
    const first = offence.edges[0]?.sources[0];
    return { offence, file: first?.file ?? offence.nudgeConfig, line: first?.line() ?? 0 };
  });
  keyed.sort(
    (a, b) =>
      compareStrings(a.offence.namespace, b.offence.namespace) ||
      compareStrings(a.file, b.file) ||
      a.line - b.line ||
      compareStrings(a.offence.rule, b.offence.rule),
  );
  return keyed.map(({ offence }) => offence);
}

function offenceOf(
  finding: Finding,
  traced: ReadonlyMap<SourceLocation, Traced>,
  byRef: ReadonlyMap<ObjectRef, PlannedNudgeConfig>,
  configs: readonly PlannedNudgeConfig[],
): Offence {
  const namespace = finding.namespace ?? '';
  const config =
    (finding.object === undefined ? undefined : byRef.get(finding.object)) ??
    configs.find((candidate) => candidate.namespace === namespace);
  const nudgeConfig = config?.file ?? '';
  const edgeOf = (entry: PlannedEntry): OffendingEdge => ({ from: entry.from, to: entry.to, sources: entry.sources });
  if (finding.rule === 'cycle' && finding.cycle !== undefined && config !== undefined) {
    const steps = finding.cycle.slice(1).map((to, i) => ({ from: finding.cycle?.[i] ?? '', to }));
    // Every step is named, each with the lines that declared it: any one of them is the user's to cut.
    const edges = steps.map(({ from, to }): OffendingEdge => {
      const entry = config.entries.find((candidate) => candidate.from === from && candidate.to === to);
      return entry === undefined ? { from, to, sources: [] } : edgeOf(entry);
    });
    return {
      rule: 'cycle',
      namespace,
      nudgeConfig,
      edges,
      reason:
        `the edges form a cycle ${finding.cycle.join(' -> ')}; each is a real dependency, so nudger never ` +
        'picks one to drop (not even with --drop-invalid)',
      droppable: false,
    };
  }
  const here = finding.location === undefined ? undefined : traced.get(finding.location);
  if (here !== undefined) {
    return {
      rule: finding.rule,
      namespace,
      nudgeConfig: here.config.file,
      edges: [edgeOf(here.entry)],
      reason: entryReason(finding, here),
      droppable: DROPPABLE.has(finding.rule),
    };
  }
  return {
    rule: finding.rule,
    namespace,
    nudgeConfig,
    edges: [],
    reason: objectReason(finding),
    droppable: false,
  };
}

function entryReason(finding: Finding, here: Traced): string {
  if (finding.rule === 'missing-gating-group') {
    return (
      'mode is "validated" but gatingGroup is missing or empty; upstream v1beta2 only reserves gatingGroup, ' +
      'but nudger rejects a validated entry without one. Either add gatingGroup (the ComponentGroup whose ' +
      'Snapshot must pass first) or make the entry mode: immediate, then rerun'
    );
  }
  // validate names the entry of the object as written; the caller names the declaring line instead.
  const message = finding.message.startsWith(here.prefix) ? finding.message.slice(here.prefix.length) : finding.message;
  return message.replace(/^(?:\.(\w+))?: /, (_, field: string | undefined) =>
    field === undefined ? '' : `${field}: `,
  );
}

function objectReason(finding: Finding): string {
  if (finding.rule === 'too-many-edges') {
    return (
      `${finding.message.replace(/^.*?spec\.nudges: /, '')}; a namespace has exactly one NudgeConfig, ` +
      `so its edges must fit in ${String(MAX_NUDGE_ENTRIES)} entries: reduce them before migrating`
    );
  }
  return finding.message;
}

/** `file:line: Component ns/a spec.build-nudges-ref[1]`: one declaration of an edge. */
export function formatSource(source: EntrySource): string {
  const line = source.line();
  const where = line === undefined ? source.file : `${source.file}:${String(line)}`;
  return `${where}: ${formatRef(source.object)} ${source.field}`;
}

/**
 * One line per offence, to follow the `file:line: ` of the edge's first declaration: the rule, the
 * declaring field, the edge and why it cannot be written, then any other declaration of it.
 */
export function formatOffence(offence: Offence): string {
  const [only, ...others] = offence.edges;
  if (only === undefined) return `${offence.rule}: ${offence.reason}`;
  if (others.length === 0) {
    const [first, ...more] = only.sources;
    const field = first === undefined ? '' : `${formatRef(first.object)} ${first.field}: `;
    const also = more.length === 0 ? '' : ` (also declared at ${more.map(formatSource).join('; ')})`;
    return `${offence.rule}: ${field}${only.from} -> ${only.to}: ${offence.reason}${also}`;
  }
  // Several edges: the steps of a cycle, removing any one of which breaks it.
  const steps = offence.edges.map(
    (edge) => `${edge.from} -> ${edge.to} at ${edge.sources.map(formatSource).join('; ') || offence.nudgeConfig}`,
  );
  return (
    `${offence.rule}: ${offence.reason}. Remove (or reverse) any one of its ${String(steps.length)} edges ` +
    `by hand to break it: ${steps.join(', or ')}`
  );
}

/** An edge `--drop-invalid` left out, as the JSON output reports it. */
export interface DroppedEdge {
  readonly rule: RuleId;
  readonly namespace: string;
  readonly from: string;
  readonly to: string;
  readonly reason: string;
  /** Every line that declared it (each is removed by the migration). */
  readonly sources: readonly { file: string; line?: number; object: string; field: string }[];
}

export function droppedEdges(offences: readonly Offence[]): DroppedEdge[] {
  return offences.flatMap((offence) =>
    offence.edges.map((edge) => ({
      rule: offence.rule,
      namespace: offence.namespace,
      from: edge.from,
      to: edge.to,
      reason: offence.reason,
      sources: edge.sources.map((source) => {
        const line = source.line();
        return {
          file: source.file,
          ...(line === undefined ? {} : { line }),
          object: formatRef(source.object),
          field: source.field,
        };
      }),
    })),
  );
}

/**
 * The migration would write a NudgeConfig that nudger rejects; nothing is planned. One problem per
 * offence, at the first line that declared it (the message names every other one); the summary
 * says what to do. An UnsafeMigrationError, so the CLI reports it like every other refusal.
 */
export class MigrationRefusedError extends UnsafeMigrationError {
  readonly offences: readonly Offence[];
  /** What to do about them, one line. */
  readonly advice: string;

  constructor(offences: readonly Offence[], dropInvalid: boolean) {
    const droppable = offences.filter((offence) => offence.droppable).length;
    const kept = offences.length - droppable;
    let advice: string;
    if (dropInvalid) {
      advice =
        `${String(kept)} of them cannot be dropped: --drop-invalid drops only unknown or invalid names and ` +
        `self-nudges, never a valid edge (docs/cli.md); ${keptAdvice(offences)}, then rerun`;
    } else if (droppable === 0) {
      advice = 'fix them by hand and rerun (--drop-invalid drops no valid edge, so it would not help)';
    } else if (kept === 0) {
      advice =
        'fix the names (or pass every file of the namespace if a Component was left out), or rerun with ' +
        `--drop-invalid to drop these ${String(droppable)} edge(s)`;
    } else {
      advice =
        `fix them by hand and rerun; --drop-invalid would drop ${String(droppable)} of them ` +
        `(unknown or invalid names, self-nudges) but not the other ${String(kept)}`;
    }
    super(
      `refusing to migrate: nudger would reject the NudgeConfig(s) it would write (${String(offences.length)} problem(s)); nothing was written; ${advice}`,
      offences.map(problemOf),
    );
    this.offences = offences;
    this.advice = advice;
  }
}

/** What to do about the offences `--drop-invalid` does not drop, by rule. */
function keptAdvice(offences: readonly Offence[]): string {
  const rules = new Set(offences.filter((offence) => !offence.droppable).map((offence) => offence.rule));
  const steps: string[] = [];
  if (rules.has('cycle')) steps.push('remove one edge of each cycle (any edge named breaks it)');
  if (rules.has('too-many-edges')) steps.push(`reduce the namespace's edges to ${String(MAX_NUDGE_ENTRIES)}`);
  if (rules.has('missing-gating-group')) steps.push('give each validated entry a gatingGroup or make it immediate');
  const others = [...rules].filter((rule) => !['cycle', 'too-many-edges', 'missing-gating-group'].includes(rule));
  if (others.length > 0) steps.push(`fix the rest (${others.join(', ')}) as each message says`);
  return steps.join('; ');
}

function problemOf(offence: Offence): RefusalProblem {
  const first = offence.edges[0]?.sources[0];
  const line = first?.line();
  const message = formatOffence(offence);
  return { file: first?.file ?? offence.nudgeConfig, ...(line === undefined ? {} : { line }), message };
}
