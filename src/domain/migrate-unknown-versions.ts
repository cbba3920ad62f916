// Components and NudgeConfigs of nudger's groups in an apiVersion nudger does not read (validate's
// unknown-api-version rule, src/schema/api-versions.ts) are never migrated and never passed over in
// silence (issue 8):
// - in a namespace the migration rewrites, it refuses (exit 1, nothing written): such an object may
//   hold edges the migration cannot read, which would be lost when build-nudges-ref goes, and a
//   NudgeConfig of another version is the same singleton object the migration would write beside
//   it (two `nudge-config` objects of one namespace clash on apply);
// - anywhere else, it says so in a note: nothing of that namespace is rewritten, so nothing is lost.
import type { RefusalProblem } from './migrate-error.ts';
import type { DocRole, Locator } from './migrate-model.ts';
import { formatObjectKey } from './object-key.ts';

export interface UnknownVersionDoc {
  readonly path: string;
  readonly role: Extract<DocRole, { kind: 'unknown-version' }>;
  readonly locate: Locator;
}

export interface UnknownVersionReport {
  /** One per object in a namespace the migration rewrites; any one refuses the migration. */
  readonly problems: readonly RefusalProblem[];
  /** One per object elsewhere, with its file and line. */
  readonly notes: readonly string[];
}

/**
 * Judges each object (one copy per namespace kustomize builds it into) against the namespaces the
 * migration rewrites.
 */
export function reportUnknownVersions(
  docs: readonly UnknownVersionDoc[],
  migrated: ReadonlySet<string>,
): UnknownVersionReport {
  const problems: RefusalProblem[] = [];
  const notes = new Set<string>();
  for (const doc of docs) {
    const line = doc.locate(['apiVersion']);
    const { role } = doc;
    const what =
      `${role.objectKind} ${formatObjectKey({ namespace: role.namespace, name: role.name ?? '(unnamed)' })} ` +
      `has apiVersion ${JSON.stringify(role.apiVersion)}, not a version nudger reads (it reads ${role.known.join(', ')})`;
    if (migrated.has(role.namespace)) {
      problems.push({
        file: doc.path,
        ...(line === undefined ? {} : { line }),
        message: `${what}, in ${namespaceLabel(role.namespace)}, which this migration rewrites: ${danger(role.objectKind)}`,
      });
    } else {
      const at = line === undefined ? doc.path : `${doc.path}:${String(line)}`;
      notes.add(
        `${at}: ${what}; left as it is (nothing in ${namespaceLabel(role.namespace)} is migrated, so no edge is lost)`,
      );
    }
  }
  return { problems, notes: [...notes] };
}

function namespaceLabel(namespace: string): string {
  return namespace === '' ? 'the unset namespace' : `namespace ${namespace}`;
}

/** Why migrating beside this object is unsafe, and the way out. */
function danger(kind: string): string {
  if (kind === 'NudgeConfig') {
    return (
      'its entries cannot be read, and the namespace has one NudgeConfig, so the one migrate writes would clash ' +
      'with it; convert it to konflux-ci.dev/v1alpha1 (or delete it if it is obsolete) and rerun'
    );
  }
  return (
    'any edges it declares cannot be read and would not reach the NudgeConfig; convert it to ' +
    "appstudio.redhat.com/v1alpha1, or move its edges into the namespace's NudgeConfig by hand and rerun " +
    'on paths that leave its file out'
  );
}
