// The validation rules of ADR 67 (self-nudge, duplicate pairs, cycles, existence, maxItems,
// singleton) and ADR 29 (a DAG of build-nudges-ref), applied to everything a ManifestSet holds.
// Edges from NudgeConfigs and from build-nudges-ref are judged together because that is the graph
// the migration produces and the one nudges actually follow during the deprecation period.
import { findCycles } from './cycles.ts';
import { buildNudgeGraphs, edgeKey, formatOrigin, type NamespaceGraph } from './graph.ts';
import {
  MAX_NUDGE_ENTRIES,
  NUDGE_CONFIG_NAME,
  NUDGE_MODES,
  UNSET_NAMESPACE,
  formatLocation,
  formatRef,
  type ComponentObject,
  type Finding,
  type ManifestIssue,
  type ManifestSet,
  type NudgeConfigFlavour,
  type NudgeConfigObject,
  type NudgeEdge,
  type NudgeEntry,
  type ObjectRef,
  type RuleId,
  type Severity,
  type SourceLocation,
} from './model.ts';
import { isDns1123Label, labelProblem } from './labels.ts';
import { compareStrings } from './compare.ts';
import { nudgeLoopFindings, type RepositoryCheckout } from './monorepo/nudge-loop-check.ts';

export interface ValidationResult {
  /** True when no finding has severity `error`. */
  readonly valid: boolean;
  /** Sorted by namespace, file, line, rule (then column and message, for a total order). */
  readonly findings: readonly Finding[];
}

const FLAVOUR_API_VERSION: Readonly<Record<NudgeConfigFlavour, string>> = {
  nudger: 'konflux-ci.dev/v1alpha1',
  'upstream-v1beta2': 'appstudio.redhat.com/v1beta2',
  'upstream-konflux-v1beta2': 'konflux-ci.dev/v1beta2',
};

/**
 * `spec.nudges` maxItems per flavour. Upstream integration-service ships its CRD with 256, not the
 * 5000 ADR 67 asks for, so a larger upstream object could never have been applied.
 */
export const MAX_ENTRIES_BY_FLAVOUR: Readonly<Record<NudgeConfigFlavour, number>> = {
  nudger: MAX_NUDGE_ENTRIES,
  'upstream-v1beta2': 256,
  'upstream-konflux-v1beta2': 360,
};

/**
 * How many lines after an entry's first line the parser may place a finding about one of its
 * fields (from, to, mode, gatingGroup, each on its own line in block style).
 */
const ENTRY_FIELD_LINES = 4;

function namespaceLabel(namespace: string): string {
  return namespace === UNSET_NAMESPACE ? 'the unset namespace' : `namespace ${namespace}`;
}

function lineNote(location: SourceLocation): string {
  return location.line === undefined ? location.file : `line ${location.line}`;
}

/**
 * `line 7` beside a finding in the same file; `rendered/team-a.yaml:7` when the other declaration
 * is in another file (a Component's kustomize source and a committed rendered copy read alike).
 */
function noteFrom(other: SourceLocation, here: SourceLocation): string {
  return other.file === here.file ? lineNote(other) : formatLocation(other);
}

function quote(value: string): string {
  return JSON.stringify(value);
}

function makeFinding(
  rule: RuleId,
  severity: Severity,
  message: string,
  object: ObjectRef,
  location: SourceLocation,
): Finding {
  return { rule, severity, message, namespace: object.namespace, object, location };
}

function fromIssue(issue: ManifestIssue): Finding {
  return {
    rule: issue.rule,
    severity: issue.severity,
    message: issue.message,
    ...(issue.object === undefined ? {} : { namespace: issue.object.namespace, object: issue.object }),
    location: issue.location,
  };
}

/**
 * The parser reports schema-level problems (bad names, bad modes) of NudgeConfig entries itself,
 * at the line of the offending field. This index lets the domain rules stay silent there.
 */
class ParserReports {
  readonly #lines = new Map<string, Set<number>>();

  constructor(issues: readonly ManifestIssue[]) {
    for (const issue of issues) {
      if (issue.location.line === undefined) continue;
      const key = ParserReports.#key(issue.rule, issue.location.file);
      let lines = this.#lines.get(key);
      if (lines === undefined) {
        lines = new Set();
        this.#lines.set(key, lines);
      }
      lines.add(issue.location.line);
    }
  }

  static #key(rule: RuleId, file: string): string {
    return `${rule}\u0000${file}`;
  }

  /** Whether the parser already reported `rule` somewhere in lines [first, end) of `file`. */
  reported(rule: RuleId, file: string, first: number, end: number): boolean {
    const lines = this.#lines.get(ParserReports.#key(rule, file));
    if (lines === undefined) return false;
    for (let line = first; line < end; line += 1) if (lines.has(line)) return true;
    return false;
  }
}

function entrySpanEnd(entry: NudgeEntry, next: NudgeEntry | undefined): number {
  const first = entry.location.line ?? 0;
  const nextLine = next?.location.file === entry.location.file ? next.location.line : undefined;
  return nextLine !== undefined && nextLine > first ? nextLine : first + ENTRY_FIELD_LINES;
}

const KNOWN_MODES: ReadonlySet<string> = new Set(NUDGE_MODES);

/** Flavours whose schema accepts `mode: validated` without `gatingGroup` (upstream reserves the field). */
const UNGATED_ALLOWED: ReadonlySet<NudgeConfigFlavour> = new Set(['upstream-v1beta2', 'upstream-konflux-v1beta2']);

/**
 * The CRD each flavour is a version of. `konflux-ci.dev/v1alpha1` and `/v1beta2` are two views of
 * one stored object, so one of each in a namespace is two objects where only one can exist.
 */
const FLAVOUR_RESOURCE: Readonly<Record<NudgeConfigFlavour, string>> = {
  nudger: 'nudgeconfigs.konflux-ci.dev',
  'upstream-konflux-v1beta2': 'nudgeconfigs.konflux-ci.dev',
  'upstream-v1beta2': 'nudgeconfigs.appstudio.redhat.com',
};

/** The entry-level rules. Runs for every entry, so it allocates nothing unless it has a finding. */
function checkEntry(
  config: NudgeConfigObject,
  entry: NudgeEntry,
  next: NudgeEntry | undefined,
  parser: ParserReports,
  findings: Finding[],
): void {
  const { from, to, mode, gatingGroup, location } = entry;
  const fromProblem = labelProblem(from);
  const toProblem = labelProblem(to);
  const badMode = mode !== undefined && !KNOWN_MODES.has(mode);
  const selfNudge = from === to;
  const ungated = mode === 'validated' && (gatingGroup === undefined || gatingGroup === '');
  if (fromProblem === undefined && toProblem === undefined && !badMode && !selfNudge && !ungated) return;

  const path = `${formatRef(config.ref)} spec.nudges[${entry.index}]`;
  const add = (rule: RuleId, message: string): void => {
    findings.push(makeFinding(rule, 'error', message, config.ref, location));
  };
  const silenced = (rule: RuleId): boolean =>
    location.line !== undefined && parser.reported(rule, location.file, location.line, entrySpanEnd(entry, next));

  if ((fromProblem !== undefined || toProblem !== undefined) && !silenced('invalid-name')) {
    if (fromProblem !== undefined) {
      add('invalid-name', `${path}.from: ${quote(from)} is not a valid component name: ${fromProblem}`);
    }
    if (toProblem !== undefined) {
      add('invalid-name', `${path}.to: ${quote(to)} is not a valid component name: ${toProblem}`);
    }
  }
  if (selfNudge) add('self-nudge', `${path}: from and to are both ${quote(from)}; a component cannot nudge itself`);
  if (badMode && !silenced('invalid-mode')) {
    add('invalid-mode', `${path}.mode: ${quote(mode)} is not a nudge mode; expected one of ${NUDGE_MODES.join(', ')}`);
  }
  if (ungated) {
    const state = gatingGroup === undefined ? 'missing' : 'empty';
    if (UNGATED_ALLOWED.has(config.flavour)) {
      // Upstream's schema reserves gatingGroup and accepts the entry, so it is not an error there;
      // nudger still has no Snapshot to wait for, and says so.
      findings.push(
        makeFinding(
          'missing-gating-group',
          'warning',
          `${path}: mode is "validated" but gatingGroup is ${state}; ${FLAVOUR_API_VERSION[config.flavour]} allows it, but nudger does not fire this entry until it names the ComponentGroup whose Snapshot must pass first (or make it immediate)`,
          config.ref,
          location,
        ),
      );
    } else {
      add(
        'missing-gating-group',
        `${path}: mode is "validated" but gatingGroup is ${state}; name the ComponentGroup whose Snapshot must pass first`,
      );
    }
  }
}

function checkNudgeConfig(config: NudgeConfigObject, parser: ParserReports, findings: Finding[]): void {
  const { ref, location, entries, flavour } = config;
  if (ref.name !== NUDGE_CONFIG_NAME) {
    findings.push(
      makeFinding(
        'singleton-name',
        'error',
        `${formatRef(ref)} metadata.name: ${quote(ref.name)} is not allowed; a NudgeConfig is a singleton and must be named ${quote(NUDGE_CONFIG_NAME)}`,
        ref,
        location,
      ),
    );
  }
  const limit = MAX_ENTRIES_BY_FLAVOUR[flavour];
  if (entries.length > limit) {
    findings.push(
      makeFinding(
        'too-many-edges',
        'error',
        `${formatRef(ref)} spec.nudges: ${entries.length} entries exceed the limit of ${limit} (maxItems of ${FLAVOUR_API_VERSION[flavour]})`,
        ref,
        location,
      ),
    );
  }
  entries.forEach((entry, i) => {
    checkEntry(config, entry, entries[i + 1], parser, findings);
  });
}

function checkComponent(component: ComponentObject, findings: Finding[]): void {
  const { ref } = component;
  component.buildNudgesRef.forEach((item, index) => {
    const path = `${formatRef(ref)} spec.build-nudges-ref[${index}]`;
    const add = (rule: RuleId, message: string): void => {
      findings.push(makeFinding(rule, 'error', message, ref, item.location));
    };
    const problem = labelProblem(item.name);
    if (problem !== undefined)
      add('invalid-name', `${path}: ${quote(item.name)} is not a valid component name: ${problem}`);
    if (item.name === ref.name)
      add('self-nudge', `${path}: the component lists itself; a component cannot nudge itself`);
  });
}

function checkSingletons(configs: readonly NudgeConfigObject[], findings: Finding[]): void {
  const first = new Map<string, NudgeConfigObject>();
  for (const config of configs) {
    const key = JSON.stringify([config.ref.namespace, FLAVOUR_RESOURCE[config.flavour]]);
    const earlier = first.get(key);
    if (earlier === undefined) {
      first.set(key, config);
      continue;
    }
    const { ref } = config;
    const which =
      earlier.ref.name === ref.name
        ? `another document with the same name (${formatRef(earlier.ref)})`
        : formatRef(earlier.ref);
    findings.push(
      makeFinding(
        'multiple-nudgeconfigs',
        'error',
        `${formatRef(ref)}: ${namespaceLabel(ref.namespace)} already has a ${FLAVOUR_API_VERSION[earlier.flavour]} NudgeConfig, ${which} at ${lineNote(earlier.location)}; only one is allowed per namespace${earlier.flavour === config.flavour ? '' : ` (${FLAVOUR_API_VERSION[config.flavour]} is another version of the same object)`}`,
        ref,
        config.location,
      ),
    );
  }
}

function edgeFinding(rule: RuleId, severity: Severity, message: string, edge: NudgeEdge): Finding {
  return makeFinding(rule, severity, message, edge.origin.object, edge.origin.location);
}

function describeEdge(edge: NudgeEdge): string {
  return `${edge.from} -> ${edge.to}`;
}

/**
 * Whether nudger fires this edge as soon as `from` builds (docs/decisions.md D9): an `immediate`
 * entry of a NudgeConfig in nudger's CRD (`konflux-ci.dev`, either version) named `nudge-config`.
 * `appstudio.redhat.com/v1beta2` is only an import source, and build-service stops nudging a
 * namespace that has one.
 */
function isFiredEntry(edge: NudgeEdge, fired: ReadonlySet<ObjectRef>): boolean {
  return (
    edge.origin.via === 'NudgeConfig' &&
    edge.mode === 'immediate' &&
    edge.origin.object.name === NUDGE_CONFIG_NAME &&
    fired.has(edge.origin.object)
  );
}

/**
 * Among the declarations of one pair seen so far (the first, then the first of each further
 * object, in graph order), the first immediate entry nudger fires. Asked only for a duplicate
 * build-nudges-ref item, so the common case (no duplicates) costs nothing per edge; NudgeConfig
 * edges come before build-nudges-ref ones in the graph, so the fired entry is already among them.
 */
function firedDeclaration(
  first: NudgeEdge,
  others: ReadonlyMap<ObjectRef, NudgeEdge>,
  fired: ReadonlySet<ObjectRef>,
): NudgeEdge | undefined {
  if (isFiredEntry(first, fired)) return first;
  for (const edge of others.values()) if (isFiredEntry(edge, fired)) return edge;
  return undefined;
}

/**
 * The same pair twice in one object is a plain mistake (the API server refuses it for NudgeConfig).
 * The same pair in two objects, typically a NudgeConfig and a build-nudges-ref not yet removed, is
 * the expected state mid-migration: the migration merges them, so it is only a warning. A
 * build-nudges-ref item whose pair is also an immediate entry nudger fires is worse than
 * redundant: build-service still nudges build-nudges-ref, so the target is nudged twice per build
 * (docs/decisions.md D9); the warning says so and names that entry.
 */
function checkDuplicates(graph: NamespaceGraph, fired: ReadonlySet<ObjectRef>, findings: Finding[]): void {
  // First declaration of each pair, keyed by from then to: no key strings to build per edge.
  const firstOf = new Map<string, Map<string, NudgeEdge>>();
  // For pairs declared more than once: the first declaration by each further object.
  const othersOf = new Map<NudgeEdge, Map<ObjectRef, NudgeEdge>>();
  for (const edge of graph.edges) {
    let byTarget = firstOf.get(edge.from);
    if (byTarget === undefined) {
      byTarget = new Map();
      firstOf.set(edge.from, byTarget);
    }
    const first = byTarget.get(edge.to);
    if (first === undefined) {
      byTarget.set(edge.to, edge);
      continue;
    }
    const here = formatOrigin(edge.origin);
    // Origins share their declaring object's ref, so identity tells "same object" apart from
    // "two documents that happen to look alike".
    const object = edge.origin.object;
    let others = othersOf.get(first);
    const sameObject = first.origin.object === object ? first : others?.get(object);
    if (sameObject === undefined) {
      if (others === undefined) {
        others = new Map();
        othersOf.set(first, others);
      }
      others.set(object, edge);
      const firedEntry = edge.origin.via === 'build-nudges-ref' ? firedDeclaration(first, others, fired) : undefined;
      if (firedEntry !== undefined) {
        findings.push(
          edgeFinding(
            'duplicate-edge',
            'warning',
            `${here}: ${describeEdge(edge)} is also an immediate entry of ${formatOrigin(firedEntry.origin)} (${noteFrom(firedEntry.origin.location, edge.origin.location)}), which nudger fires, while build-service still nudges what build-nudges-ref declares: ${edge.to} would be nudged twice for each build of ${edge.from}; remove the build-nudges-ref item (the migration does)`,
            edge,
          ),
        );
        continue;
      }
      findings.push(
        edgeFinding(
          'duplicate-edge',
          'warning',
          `${here}: ${describeEdge(edge)} is also declared by ${formatOrigin(first.origin)} (${noteFrom(first.origin.location, edge.origin.location)}); the migration merges them into one edge, so remove the redundant declaration`,
          edge,
        ),
      );
      continue;
    }
    findings.push(
      edgeFinding(
        'duplicate-edge',
        'error',
        `${here}: ${describeEdge(edge)} is already declared by ${formatOrigin(sameObject.origin)} (${noteFrom(sameObject.origin.location, edge.origin.location)}); only one entry per (from, to) pair is allowed`,
        edge,
      ),
    );
  }
}

/**
 * A message must stay readable even for a cycle through thousands of components; the full path is
 * in the finding's `cycle` field.
 */
const MAX_CYCLE_STEPS_SHOWN = 20;

function formatCyclePath(cycle: readonly string[]): string {
  if (cycle.length <= MAX_CYCLE_STEPS_SHOWN + 1) return cycle.join(' -> ');
  const hidden = cycle.length - 1 - MAX_CYCLE_STEPS_SHOWN;
  return `${cycle.slice(0, MAX_CYCLE_STEPS_SHOWN).join(' -> ')} -> ... (${hidden} more) -> ${cycle[0] ?? ''}`;
}

function checkCycles(graph: NamespaceGraph, findings: Finding[]): void {
  // Self-loops are `self-nudge` findings already; leaving them out also lets a component that
  // nudges itself still show the larger cycle it is part of.
  const withoutSelfLoops = (n: string): readonly string[] => {
    const targets = graph.successors(n);
    return targets.includes(n) ? targets.filter((w) => w !== n) : targets;
  };
  // Every cycle passes through the source of an edge, and findCycles does not need them sorted.
  const cycles = findCycles(
    graph.edges.map((edge) => edge.from),
    withoutSelfLoops,
  );
  if (cycles.length === 0) return;
  const firstDeclaration = new Map<string, NudgeEdge>();
  for (const edge of graph.edges) {
    const key = edgeKey(edge);
    if (!firstDeclaration.has(key)) firstDeclaration.set(key, edge);
  }
  for (const cycle of cycles) {
    const steps = cycle
      .slice(1)
      .map((to, i) => firstDeclaration.get(edgeKey({ namespace: graph.namespace, from: cycle[i] ?? '', to })))
      .filter((edge) => edge !== undefined);
    const [firstStep] = steps;
    /* node:coverage ignore next */
    if (firstStep === undefined) continue; // every step of a found cycle is a declared edge
    const shown = steps.slice(0, MAX_CYCLE_STEPS_SHOWN).map((e) => `${describeEdge(e)} at ${formatOrigin(e.origin)}`);
    if (steps.length > MAX_CYCLE_STEPS_SHOWN) shown.push(`${steps.length - MAX_CYCLE_STEPS_SHOWN} more`);
    findings.push({
      ...edgeFinding('cycle', 'error', `cycle: ${formatCyclePath(cycle)} (${shown.join(', ')})`, firstStep),
      namespace: graph.namespace,
      cycle,
    });
  }
}

const BOTH_ENDS = ['from', 'to'] as const;
const TARGET_END = ['to'] as const;

function checkExistence(graph: NamespaceGraph, findings: Finding[]): void {
  const { components } = graph;
  if (components === undefined) return;
  for (const edge of graph.edges) {
    // build-nudges-ref edges start at the Component that declares them, which exists by definition.
    const ends = edge.origin.via === 'NudgeConfig' ? BOTH_ENDS : TARGET_END;
    for (const end of ends) {
      const name = edge[end];
      // An invalid name can never be a Component and is reported as such already.
      if (components.has(name) || !isDns1123Label(name)) continue;
      const field = edge.origin.via === 'NudgeConfig' ? `.${end}` : '';
      findings.push(
        edgeFinding(
          'unknown-component',
          'error',
          `${formatOrigin(edge.origin)}${field}: component ${quote(name)} does not exist in ${namespaceLabel(graph.namespace)}`,
          edge,
        ),
      );
    }
  }
}

function compareFindings(a: Finding, b: Finding): number {
  return (
    compareStrings(a.namespace ?? '', b.namespace ?? '') ||
    compareStrings(a.location?.file ?? '', b.location?.file ?? '') ||
    (a.location?.line ?? 0) - (b.location?.line ?? 0) ||
    compareStrings(a.rule, b.rule) ||
    (a.location?.column ?? 0) - (b.location?.column ?? 0) ||
    compareStrings(a.message, b.message)
  );
}

function dedupe(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${f.rule}\u0000${f.location?.file ?? ''}\u0000${f.location?.line ?? ''}\u0000${f.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export interface ValidateOptions {
  /** Repository checkouts with their `.tekton/` PipelineRuns, for `nudge-loop` (N33). */
  readonly repositories?: readonly RepositoryCheckout[];
}

/** Every finding about a set of manifests: the parser's own issues and the domain rules. */
export function validateManifestSet(set: ManifestSet, options: ValidateOptions = {}): ValidationResult {
  const findings: Finding[] = set.issues.map(fromIssue);
  findings.push(...nudgeLoopFindings(set, options.repositories ?? []));
  const parser = new ParserReports(set.issues);
  for (const config of set.nudgeConfigs) checkNudgeConfig(config, parser, findings);
  checkSingletons(set.nudgeConfigs, findings);
  for (const component of set.components) checkComponent(component, findings);
  const fired = new Set(set.nudgeConfigs.filter((c) => c.flavour !== 'upstream-v1beta2').map((c) => c.ref));
  for (const graph of buildNudgeGraphs(set).values()) {
    checkDuplicates(graph, fired, findings);
    checkCycles(graph, findings);
    checkExistence(graph, findings);
  }
  const sorted = dedupe(findings).sort(compareFindings);
  return { valid: !sorted.some((f) => f.severity === 'error'), findings: sorted };
}
