// Shared vocabulary of the GitOps migration: what each manifest document is to the migration,
// and the edits the planner asks the YAML and JSON writers to make.

/** Same values as src/schema/nudgeconfig.ts; repeated so the pure domain does not load TypeBox. */
export const NUDGER_NUDGE_CONFIG_API_VERSION = 'konflux-ci.dev/v1alpha1';
/** integration-service's shipped CRD: read as an import source, never written (docs/decisions.md D1). */
export const UPSTREAM_NUDGE_CONFIG_API_VERSION = 'appstudio.redhat.com/v1beta2';
/**
 * integration-service's NudgeConfig in nudger's own group (docs/decisions.md D1): the same object as ours,
 * under upstream's looser rules, so migration converts it like the older group's (and judges it).
 */
export const UPSTREAM_KONFLUX_NUDGE_CONFIG_API_VERSION = 'konflux-ci.dev/v1beta2';
/** The only Component version nudger reads (src/schema/component.ts); others are unknown-version. */
export const COMPONENT_API_VERSION = 'appstudio.redhat.com/v1alpha1';
export const BUILD_NUDGES_REF = 'build-nudges-ref';

/** One `spec.nudges[]` entry as the migration copies it: only the fields ADR 67 defines. */
export interface MigrationEntry {
  readonly from: string;
  readonly to: string;
  readonly mode?: string;
  readonly gatingGroup?: string;
}

export type DocRole =
  | {
      readonly kind: 'component';
      readonly namespace: string;
      readonly name: string | undefined;
      /** undefined when the Component has no `spec.build-nudges-ref` key at all. */
      readonly nudgesRef: readonly string[] | undefined;
    }
  | {
      readonly kind: 'nudge-config';
      readonly flavour: 'nudger' | 'upstream-v1beta2';
      /** As written: the upstream flavour has two (UPSTREAM_*_API_VERSION). */
      readonly apiVersion: string;
      readonly namespace: string;
      readonly name: string | undefined;
      readonly entries: readonly MigrationEntry[];
    }
  | { readonly kind: 'kustomization'; readonly resources: unknown; readonly value: unknown }
  /**
   * A Component or NudgeConfig of nudger's groups in an apiVersion nudger does not read (the
   * unknown-api-version rule of src/schema/api-versions.ts): never migrated, never ignored in
   * silence (see migrate-unknown-versions.ts).
   */
  | {
      readonly kind: 'unknown-version';
      readonly objectKind: string;
      readonly apiVersion: string;
      /** The versions nudger reads this kind in. */
      readonly known: readonly string[];
      readonly namespace: string;
      readonly name: string | undefined;
    }
  | { readonly kind: 'other' };

export type DocOp =
  | { readonly kind: 'remove-build-nudges-ref' }
  | { readonly kind: 'set-api-version'; readonly apiVersion: string }
  | { readonly kind: 'append-nudges'; readonly entries: readonly MigrationEntry[] }
  /** Removes `spec.nudges` items by index (entries `--drop-invalid` drops from an existing object). */
  | { readonly kind: 'remove-nudges'; readonly indexes: readonly number[] }
  | { readonly kind: 'append-resources'; readonly names: readonly string[] }
  /** `placeholder` is the whole file's text if no document with content is left in it. */
  | { readonly kind: 'remove-document'; readonly placeholder: string };

/** Finds the 1-based line of the value at a path inside one document, when it can. */
export type Locator = (path: readonly (string | number)[]) => number | undefined;

export function entryKey(from: string, to: string): string {
  return `${from}\u0000${to}`;
}
