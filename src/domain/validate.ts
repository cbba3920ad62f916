// The validation rules of ADR 67 (self-nudge, duplicate pairs, cycles, existence, maxItems,
// singleton) and ADR 29 (a DAG of build-nudges-ref), applied to everything a ManifestSet holds.
// Edges from NudgeConfigs and from build-nudges-ref are judged together because that is the graph
// the migration produces and the one nudges actually follow during the deprecation period.
import { findCycles } from './cycles.ts';
import { buildNudgeGraphs, compareStrings, edgeKey, formatOrigin, type NamespaceGraph } from './graph.ts';
import {
  MAX_NUDGE_ENTRIES,
  NUDGE_CONFIG_NAME,
  NUDGE_MODES,
  UNSET_NAMESPACE,
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
import { dns1123LabelProblem } from './names.ts';

export interface ValidationResult {
  /** True when no finding has severity `error`. */
  readonly valid: boolean;
  /** Sorted by namespace, file, line, rule (then column and message, for a total order). */
  readonly findings: readonly Finding[];
}

const FLAVOUR_API_VERSION: Readonly<Record<NudgeConfigFlavour, string>> = {
  nudger: 'konflux-ci.dev/v1alpha1',
  'upstream-v1beta2': 'appstudio.redhat.com/v1beta2',
};

/**
 * `spec.nudges` maxItems per flavour. Upstream integration-service ships its CRD with 256, not the
 * 5000 ADR 67 asks for, so a larger upstream object could never have been applied.
 */
export const MAX_ENTRIES_BY_FLAVOUR: Readonly<Record<NudgeConfigFlavour, number>> = {
  nudger: MAX_NUDGE_ENTRIES,
  'upstream-v1beta2': 256,
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

function checkEntry(
  config: NudgeConfigObject,
  entry: NudgeEntry,
  next: NudgeEntry | undefined,
  parser: ParserReports,
  findings: Finding[],
): void {
  const { ref } = config;
  const path = `${formatRef(ref)} spec.nudges[${entry.index}]`;
  const add = (rule: RuleId, message: string): void => {
    findings.push(makeFinding(rule, 'error', message, ref, entry.location));
  };
  const { file, line } = entry.location;
  const silenced = (rule: RuleId): boolean =>
    line !== undefined && parser.reported(rule, file, line, entrySpanEnd(entry, next));

  if (!silenced('invalid-name')) {
    for (const field of ['from', 'to'] as const) {
      const problem = dns1123LabelProblem(entry[field]);
      if (problem !== undefined) {
        add('invalid-name', `${path}.${field}: ${quote(entry[field])} is not a valid component name: ${problem}`);
      }
    }
  }
  if (entry.from === entry.to) {
    add('self-nudge', `${path}: from and to are both ${quote(entry.from)}; a component cannot nudge itself`);
  }
  const { mode } = entry;
  if (mode !== undefined && !(NUDGE_MODES as readonly string[]).includes(mode) && !silenced('invalid-mode')) {
    add('invalid-mode', `${path}.mode: ${quote(mode)} is not a nudge mode; expected one of ${NUDGE_MODES.join(', ')}`);
  }
  if (mode === 'validated' && (entry.gatingGroup === undefined || entry.gatingGroup === '')) {
    const state = entry.gatingGroup === undefined ? 'missing' : 'empty';
    add(
      'missing-gating-group',
      `${path}: mode is "validated" but gatingGroup is ${state}; name the ComponentGroup whose Snapshot must pass first`,
    );
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
    const problem = dns1123LabelProblem(item.name);
    if (problem !== undefined)
      add('invalid-name', `${path}: ${quote(item.name)} is not a valid component name: ${problem}`);
    if (item.name === ref.name)
      add('self-nudge', `${path}: the component lists itself; a component cannot nudge itself`);
  });
}

function checkSingletons(configs: readonly NudgeConfigObject[], findings: Finding[]): void {
  const first = new Map<string, NudgeConfigObject>();
  for (const config of configs) {
    const key = JSON.stringify([config.ref.namespace, config.flavour]);
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
        `${formatRef(ref)}: ${namespaceLabel(ref.namespace)} already has a ${FLAVOUR_API_VERSION[config.flavour]} NudgeConfig, ${which} at ${lineNote(earlier.location)}; only one is allowed per namespace`,
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
 * The same pair twice in one object is a plain mistake (the API server refuses it for NudgeConfig).
 * The same pair in two objects, typically a NudgeConfig and a build-nudges-ref not yet removed, is
 * the expected state mid-migration: the migration merges them, so it is only a warning.
 */
function checkDuplicates(graph: NamespaceGraph, findings: Finding[]): void {
  interface Declarations {
    readonly first: NudgeEdge;
    readonly byObject: Map<ObjectRef, NudgeEdge>;
  }
  const declared = new Map<string, Declarations>();
  for (const edge of graph.edges) {
    const key = edgeKey(edge);
    const earlier = declared.get(key);
    if (earlier === undefined) {
      declared.set(key, { first: edge, byObject: new Map([[edge.origin.object, edge]]) });
      continue;
    }
    const here = formatOrigin(edge.origin);
    // Origins share their declaring object's ref, so identity tells "same object" apart from
    // "two documents that happen to look alike".
    const sameObject = earlier.byObject.get(edge.origin.object);
    if (sameObject === undefined) {
      earlier.byObject.set(edge.origin.object, edge);
      const { first } = earlier;
      findings.push(
        edgeFinding(
          'duplicate-edge',
          'warning',
          `${here}: ${describeEdge(edge)} is also declared by ${formatOrigin(first.origin)} (${lineNote(first.origin.location)}); the migration merges them into one edge, so remove the redundant declaration`,
          edge,
        ),
      );
      continue;
    }
    findings.push(
      edgeFinding(
        'duplicate-edge',
        'error',
        `${here}: ${describeEdge(edge)} is already declared by ${formatOrigin(sameObject.origin)} (${lineNote(sameObject.origin.location)}); only one entry per (from, to) pair is allowed`,
        edge,
      ),
    );
  }
}

function checkCycles(graph: NamespaceGraph, findings: Finding[]): void {
  // Self-loops are `self-nudge` findings already; leaving them out also lets a component that
  // nudges itself still show the larger cycle it is part of.
  const cycles = findCycles(graph.nodes, (n) => graph.successors(n).filter((w) => w !== n));
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
    const where = steps.map((e) => `${describeEdge(e)} at ${formatOrigin(e.origin)}`).join(', ');
    findings.push({
      ...edgeFinding('cycle', 'error', `cycle: ${cycle.join(' -> ')} (${where})`, firstStep),
      namespace: graph.namespace,
      cycle,
    });
  }
}

function checkExistence(graph: NamespaceGraph, findings: Finding[]): void {
  const { components } = graph;
  if (components === undefined) return;
  for (const edge of graph.edges) {
    // build-nudges-ref edges start at the Component that declares them, which exists by definition.
    const ends = edge.origin.via === 'NudgeConfig' ? (['from', 'to'] as const) : (['to'] as const);
    for (const end of ends) {
      const name = edge[end];
      // An invalid name can never be a Component and is reported as such already.
      if (components.has(name) || dns1123LabelProblem(name) !== undefined) continue;
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
    const key = JSON.stringify([f.rule, f.location?.file, f.location?.line, f.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Every finding about a set of manifests: the parser's own issues and the domain rules. */
export function validateManifestSet(set: ManifestSet): ValidationResult {
  const findings: Finding[] = set.issues.map(fromIssue);
  const parser = new ParserReports(set.issues);
  for (const config of set.nudgeConfigs) checkNudgeConfig(config, parser, findings);
  checkSingletons(set.nudgeConfigs, findings);
  for (const component of set.components) checkComponent(component, findings);
  for (const graph of buildNudgeGraphs(set).values()) {
    checkDuplicates(graph, findings);
    checkCycles(graph, findings);
    checkExistence(graph, findings);
  }
  const sorted = dedupe(findings).sort(compareFindings);
  return { valid: !sorted.some((f) => f.severity === 'error'), findings: sorted };
}
