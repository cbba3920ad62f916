// The nudge domain as nudger sees it after parsing: plain data, no I/O, no Kubernetes client types.
// Every object remembers where it came from so that findings can point a human at the exact line.

// The API's vocabulary is defined with its schema (src/schema sits innermost: the domain reads it,
// never the other way round).
import type { NUDGE_MODES } from '../schema/nudgeconfig.ts';

export { MAX_NUDGE_ENTRIES, NUDGE_CONFIG_NAME, NUDGE_MODES } from '../schema/nudgeconfig.ts';
export type NudgeMode = (typeof NUDGE_MODES)[number];

/** Where a thing was declared: a file (or `-` for stdin) and a 1-based line and column. */
export interface SourceLocation {
  readonly file: string;
  readonly line?: number;
  readonly column?: number;
}

/** A namespaced object reference as it appears in messages: `Kind namespace/name`. */
export interface ObjectRef {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/**
 * The namespace of objects that carry none. GitOps trees usually leave `metadata.namespace` to
 * kustomize, so "unset" is a namespace of its own rather than an error.
 */
export const UNSET_NAMESPACE = '';

export interface ComponentObject {
  readonly ref: ObjectRef;
  readonly location: SourceLocation;
  /** `spec.containerImage`: an image repository without tag or digest. */
  readonly containerImage?: string;
  /** `status.lastPromotedImage`: the Global Candidate List pull spec, usually by digest. */
  readonly lastPromotedImage?: string;
  /** `spec.build-nudges-ref`, with the location of each item. */
  readonly buildNudgesRef: readonly LocatedName[];
}

export interface LocatedName {
  readonly name: string;
  readonly location: SourceLocation;
}

/** One `spec.nudges[]` entry of a NudgeConfig, as written (not yet validated). */
export interface NudgeEntry {
  readonly index: number;
  readonly from: string;
  readonly to: string;
  /** Absent means `immediate` (ADR 67 default). Kept verbatim so an invalid mode can be reported. */
  readonly mode?: string;
  readonly gatingGroup?: string;
  readonly location: SourceLocation;
}

export type NudgeConfigFlavour =
  /** `konflux-ci.dev/v1alpha1`: ours, ADR 67 as written. */
  | 'nudger'
  /** `appstudio.redhat.com/v1beta2`: integration-service's shipped CRD; read as an import source only. */
  | 'upstream-v1beta2'
  /**
   * `konflux-ci.dev/v1beta2`: integration-service's NudgeConfig in its new group (D1). The same
   * object as `nudger` (one CRD serves both versions), under upstream's rules: at most 360
   * entries, and `mode: validated` without `gatingGroup` is allowed (upstream reserves the field).
   */
  | 'upstream-konflux-v1beta2';

export interface NudgeConfigObject {
  readonly ref: ObjectRef;
  readonly flavour: NudgeConfigFlavour;
  readonly location: SourceLocation;
  readonly entries: readonly NudgeEntry[];
}

export type Severity = 'error' | 'warning';

/** A problem found while reading a manifest that is not a domain rule (e.g. a typo'd field). */
export interface ManifestIssue {
  readonly rule: RuleId;
  readonly severity: Severity;
  readonly message: string;
  readonly object?: ObjectRef;
  readonly location: SourceLocation;
}

/** Everything nudger understood from a set of manifests. */
export interface ManifestSet {
  readonly components: readonly ComponentObject[];
  readonly nudgeConfigs: readonly NudgeConfigObject[];
  /** Schema-level problems found while reading (unknown fields, wrong types, bad names, ...). */
  readonly issues: readonly ManifestIssue[];
}

/** Where a nudge edge was declared. */
export type EdgeOrigin =
  | {
      readonly via: 'NudgeConfig';
      readonly object: ObjectRef;
      readonly index: number;
      readonly location: SourceLocation;
    }
  | {
      readonly via: 'build-nudges-ref';
      readonly object: ObjectRef;
      readonly index: number;
      readonly location: SourceLocation;
    };

export interface NudgeEdge {
  readonly namespace: string;
  readonly from: string;
  readonly to: string;
  readonly mode: NudgeMode;
  readonly gatingGroup?: string;
  readonly origin: EdgeOrigin;
}

/**
 * Stable rule ids. They are part of the JSON output contract (docs/cli.md) and are used by tests,
 * so renaming one is a breaking change.
 */
export const RULE_IDS = [
  'self-nudge',
  'duplicate-edge',
  'cycle',
  'too-many-edges',
  'invalid-name',
  'invalid-mode',
  'missing-gating-group',
  'singleton-name',
  'multiple-nudgeconfigs',
  'unknown-component',
  'unknown-field',
  /** A kind nudger reads (Component, NudgeConfig, ChangeGroup) in an apiVersion it does not know. */
  'unknown-api-version',
  /** A field with the wrong type or a missing required field (`from`/`to`). */
  'invalid-field',
  /** A file nudger cannot parse and needs nothing from (no kind it reads): skipped, with a warning. */
  'unreadable-file',
  /** A kustomize patch adds build-nudges-ref: edges nudger cannot see without `kustomize build`. */
  'patched-nudges-ref',
  /**
   * A nudge between two Components of one repository whose PR would change files matching the
   * nudging component's own push `pathChanged()` (docs/decisions.md N33): merging it rebuilds the
   * nudging component, which nudges again.
   */
  'nudge-loop',
] as const;
export type RuleId = (typeof RULE_IDS)[number];

export interface Finding {
  readonly rule: RuleId;
  readonly severity: Severity;
  readonly message: string;
  readonly namespace?: string;
  readonly object?: ObjectRef;
  readonly location?: SourceLocation;
  /** For `cycle`: the components in order, the first repeated last. */
  readonly cycle?: readonly string[];
}

export function formatRef(ref: ObjectRef): string {
  return ref.namespace === UNSET_NAMESPACE ? `${ref.kind} ${ref.name}` : `${ref.kind} ${ref.namespace}/${ref.name}`;
}

export function formatLocation(location: SourceLocation): string {
  if (location.line === undefined) return location.file;
  return location.column === undefined
    ? `${location.file}:${String(location.line)}`
    : `${location.file}:${String(location.line)}:${String(location.column)}`;
}
