// The namespaces of the migration's documents, as kustomize gives them (kustomize-namespaces.ts),
// and the refusals that keep the migration from mixing tenants or losing edges (issue 8, items 1,
// 7 and 8). Pure; used by planMigration before it groups documents by namespace.
//
// - A Component or v1beta2 NudgeConfig built by two kustomizations with different namespaces (a
//   base shared by two tenant overlays) takes part in each namespace's migration; its file is
//   rewritten once.
// - Refused, naming the files: an object with edges whose namespace cannot be determined (no
//   `metadata.namespace` and no kustomization of the input sets one); a kustomize patch that sets
//   build-nudges-ref (nudger does not rewrite patches, and the edges exist only after a build);
//   copies of one Component (the same namespace and name, e.g. a kustomize source and a committed
//   rendered copy) that disagree on build-nudges-ref; and one existing NudgeConfig built into
//   several namespaces that would need different entries in each.
import { resolveKustomizeLayout, type KustomizationInput } from './kustomize-namespaces.ts';
import { findNudgesRefPatches, patchFilesOf, type NudgesRefPatch } from './kustomize-patches.ts';
import { dirName, normalizePath } from './migrate-classify.ts';
import { UnsafeMigrationError, type RefusalProblem } from './migrate-error.ts';
import { entryKey, type DocRole, type Locator, type MigrationEntry } from './migrate-model.ts';

interface Doc {
  readonly path: string;
  readonly index: number;
  readonly role: DocRole;
  readonly locate?: Locator;
}

/** A document in one of the namespaces kustomize gives it, with the kustomization that set it. */
export type Placed<T> = T & { readonly setBy?: string };

const REFUSAL = 'refusing to migrate (nothing was written)';

/**
 * `documents` with every Component and NudgeConfig (also those of a version nudger does not read)
 * in the namespace kustomize gives it (one copy per namespace); other documents as they are.
 * Throws UnsafeMigrationError listing every problem.
 */
export function placeDocuments<T extends Doc>(
  files: readonly { readonly path: string; readonly text: string }[],
  documents: readonly T[],
): Placed<T>[] {
  const inputs: KustomizationInput[] = documents.flatMap((doc) =>
    doc.role.kind === 'kustomization' && doc.index === 0 ? [{ path: doc.path, value: doc.role.value }] : [],
  );
  const layout = resolveKustomizeLayout(inputs);
  const placed = documents.flatMap((doc): Placed<T>[] => {
    if (doc.role.kind !== 'component' && doc.role.kind !== 'nudge-config' && doc.role.kind !== 'unknown-version') {
      return [doc];
    }
    const { role } = doc;
    return layout.namespacesOf(doc.path, role.namespace).map(({ namespace, setBy }) => {
      if (namespace === role.namespace && setBy === undefined) return doc;
      return { ...doc, role: { ...role, namespace }, ...(setBy === undefined ? {} : { setBy }) };
    });
  });
  const byPath = new Map(files.map((file) => [normalizePath(file.path), file]));
  const patches = findNudgesRefPatches(inputs, (path) => byPath.get(path));
  // A strategic-merge patch file reads as a Component; it is reported as a patch, not as a copy.
  const patchFiles = new Set(inputs.flatMap(({ path, value }) => patchFilesOf(value, normalizePath(dirName(path)))));
  const objects = placed.filter((doc) => !patchFiles.has(normalizePath(doc.path)));
  const problems = [...patches.map(patchProblem), ...undeterminedProblems(objects), ...copyProblems(objects)];
  if (problems.length > 0) throw new UnsafeMigrationError(REFUSAL, problems);
  return placed;
}

/**
 * The kustomization whose `namespace:` placed most of these documents (ties by path): the new
 * NudgeConfig of their namespace goes beside it and into its resources, so kustomize gives it
 * the same namespace. Undefined when the namespace was written in the objects themselves.
 */
export function namespaceSetter(docs: readonly Placed<Doc>[]): string | undefined {
  const counts = new Map<string, number>();
  for (const doc of docs) if (doc.setBy !== undefined) counts.set(doc.setBy, (counts.get(doc.setBy) ?? 0) + 1);
  let best: { path: string; count: number } | undefined;
  for (const [path, count] of counts) {
    if (best === undefined || count > best.count || (count === best.count && path < best.path)) best = { path, count };
  }
  return best?.path;
}

/**
 * Existing NudgeConfigs that kustomize builds into several namespaces (one in a shared base):
 * appending is fine only when every namespace appends the same entries, else a tenant would
 * receive another's edges.
 */
export class SharedTargets {
  /** The namespaces each NudgeConfig document is built into, by document. */
  readonly #namespaces = new Map<string, Set<string>>();
  readonly #claims = new Map<string, Map<string, string>>();

  constructor(nudgeConfigs: readonly Placed<Doc>[]) {
    for (const doc of nudgeConfigs) {
      if (doc.role.kind !== 'nudge-config') continue;
      const id = docId(doc);
      const set = this.#namespaces.get(id) ?? new Set<string>();
      set.add(doc.role.namespace);
      this.#namespaces.set(id, set);
    }
  }

  /** Records the entries `namespace` appends to `target`. */
  claim(target: Doc, namespace: string, entries: readonly MigrationEntry[]): void {
    const id = docId(target);
    const claims = this.#claims.get(id) ?? new Map<string, string>();
    claims.set(namespace, entries.map((entry) => entryKey(entry.from, entry.to)).join('\u0001'));
    this.#claims.set(id, claims);
  }

  /** Throws when a document built into several namespaces would need different entries in each. */
  verify(documents: readonly Doc[]): void {
    const problems: RefusalProblem[] = [];
    for (const [id, claims] of this.#claims) {
      const namespaces = [...(this.#namespaces.get(id) ?? [])].sort();
      if (namespaces.length < 2) continue;
      const appended = new Set(namespaces.map((namespace) => claims.get(namespace) ?? ''));
      if (appended.size < 2) continue;
      const doc = documents.find((candidate) => docId(candidate) === id);
      problems.push({
        file: doc?.path ?? id,
        message:
          `this NudgeConfig is built into namespaces ${namespaces.join(' and ')} (a shared kustomize base), which ` +
          'would need different entries; give each namespace its own NudgeConfig beside its kustomization and rerun',
      });
    }
    if (problems.length > 0) throw new UnsafeMigrationError(REFUSAL, problems);
  }
}

function docId(doc: Doc): string {
  return `${doc.path}\u0000${String(doc.index)}`;
}

function patchProblem(patch: NudgesRefPatch): RefusalProblem {
  const [field, index] = patch.at;
  const names = patch.names.length === 0 ? '' : ` [${patch.names.join(', ')}]`;
  const target = patch.target === undefined ? 'a Component' : `Component ${patch.target}`;
  const file = patch.file === undefined ? '' : ` (patch file ${patch.file})`;
  return {
    file: patch.kustomization,
    message:
      `${field}[${String(index)}]${file} sets build-nudges-ref${names} on ${target}; nudger does not rewrite kustomize ` +
      "patches: move these edges into the namespace's NudgeConfig (mode: immediate) and remove the patch operation, then rerun",
  };
}

function undeterminedProblems(docs: readonly Placed<Doc>[]): RefusalProblem[] {
  const problems: RefusalProblem[] = [];
  for (const doc of docs) {
    const { role } = doc;
    if (role.kind === 'component' && role.namespace === '' && (role.nudgesRef?.length ?? 0) > 0) {
      problems.push(undetermined(doc, `Component ${role.name ?? '(unnamed)'} has build-nudges-ref`));
    } else if (
      role.kind === 'nudge-config' &&
      role.flavour === 'upstream-v1beta2' &&
      role.namespace === '' &&
      role.entries.length > 0
    ) {
      problems.push(undetermined(doc, `the ${role.name ?? '(unnamed)'} v1beta2 NudgeConfig has entries`));
    }
  }
  return problems;
}

function undetermined(doc: Placed<Doc>, what: string): RefusalProblem {
  const line = doc.locate?.(['metadata']);
  return {
    file: doc.path,
    ...(line === undefined ? {} : { line }),
    message:
      `${what} but its namespace cannot be determined: it has no metadata.namespace and no kustomization ` +
      'in the input sets one; give the paths that include the kustomization with its namespace:, or set one',
  };
}

/** Copies of one Component (same namespace and name) must agree on build-nudges-ref to be migrated together. */
function copyProblems(docs: readonly Placed<Doc>[]): RefusalProblem[] {
  const byObject = new Map<string, Placed<Doc>[]>();
  for (const doc of docs) {
    if (doc.role.kind !== 'component' || doc.role.name === undefined) continue;
    const key = JSON.stringify([doc.role.namespace, doc.role.name]);
    const list = byObject.get(key);
    if (list === undefined) byObject.set(key, [doc]);
    else list.push(doc);
  }
  const problems: RefusalProblem[] = [];
  for (const copies of byObject.values()) {
    const distinct = copies.filter(
      (doc, i) => copies.findIndex((other) => other.path === doc.path && other.index === doc.index) === i,
    );
    if (distinct.length < 2 || !distinct.some(hasNudgesRef)) continue;
    const lists = distinct.map(nudgesRefOf);
    if (lists.every((list) => list === lists[0])) continue;
    const first = distinct[0];
    if (first?.role.kind !== 'component') continue;
    const label = first.role.namespace === '' ? first.role.name : `${first.role.namespace}/${first.role.name ?? ''}`;
    const where = distinct.map((doc, i) => `${doc.path} [${lists[i] ?? ''}]`).join(', ');
    for (const doc of distinct) {
      problems.push({
        file: doc.path,
        message:
          `Component ${label ?? ''} is declared in several places whose build-nudges-ref differ (${where}); ` +
          'make the copies agree (or re-render the generated copy) and rerun',
      });
    }
  }
  return problems;
}

function hasNudgesRef(doc: Placed<Doc>): boolean {
  return doc.role.kind === 'component' && (doc.role.nudgesRef?.length ?? 0) > 0;
}

/** The build-nudges-ref set of a Component copy, sorted and joined, for comparing copies. */
function nudgesRefOf(doc: Placed<Doc>): string {
  if (doc.role.kind !== 'component') return '';
  return [...new Set(doc.role.nudgesRef ?? [])].sort().join(', ');
}
