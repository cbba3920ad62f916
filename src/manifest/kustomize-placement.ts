// Gives every object of a ManifestSet the namespace kustomize would give it, using the
// kustomizations of the same input (src/domain/kustomize-namespaces.ts has the rules). An object
// built by two kustomizations with different namespaces (a base shared by two tenant overlays)
// becomes one object per namespace, so that no graph ever merges two tenants. Also warns about
// kustomize patches that add build-nudges-ref, which nudger does not apply.
import { findNudgesRefPatches, type NudgesRefPatch } from '../domain/kustomize-patches.ts';
import {
  resolveKustomizeLayout,
  type KustomizationInput,
  type KustomizeLayout,
} from '../domain/kustomize-namespaces.ts';
import { isKustomizationPath, normalizePath } from '../domain/migrate-classify.ts';
import type { ManifestIssue, ManifestSet, ObjectRef, SourceLocation } from '../domain/model.ts';
import { parseDocuments } from './documents.ts';
import type { ManifestFile } from './parse.ts';
import type { SourceDocument } from './source-tree.ts';

/** `set` with kustomize's namespaces applied; `set` itself when the input holds no kustomization. */
export function placeByKustomize(set: ManifestSet, files: readonly ManifestFile[]): ManifestSet {
  const documents = new Map<string, SourceDocument>();
  for (const file of files) {
    if (!isKustomizationPath(file.path)) continue;
    const doc = firstDocument(file);
    if (doc !== undefined) documents.set(file.path, doc);
  }
  if (documents.size === 0) return set;
  const inputs: KustomizationInput[] = [...documents].map(([path, doc]) => ({ path, value: doc.value }));
  const layout = resolveKustomizeLayout(inputs);
  const byPath = new Map(files.map((file) => [normalizePath(file.path), file]));
  const patches = findNudgesRefPatches(inputs, (path) => byPath.get(path));
  return {
    components: set.components.flatMap((component) => placed(component, layout)),
    nudgeConfigs: set.nudgeConfigs.flatMap((config) => placed(config, layout)),
    issues: [...set.issues, ...patches.map((patch) => patchIssue(patch, documents.get(patch.kustomization)))],
  };
}

/** One copy of the object per namespace kustomize gives it; the object itself when that is its own. */
function placed<T extends { readonly ref: ObjectRef; readonly location: SourceLocation }>(
  object: T,
  layout: KustomizeLayout,
): T[] {
  const namespaces = layout.namespacesOf(object.location.file, object.ref.namespace);
  return namespaces.map(({ namespace }) =>
    namespace === object.ref.namespace ? object : { ...object, ref: { ...object.ref, namespace } },
  );
}

/**
 * A kustomization that cannot be read is skipped here: its file is reported (or not) by the
 * manifest reader like any other file, and its objects simply keep the namespace they carry.
 */
function firstDocument(file: ManifestFile): SourceDocument | undefined {
  try {
    return parseDocuments(file.path, file.text)[0];
  } catch {
    return undefined;
  }
}

function patchIssue(patch: NudgesRefPatch, doc: SourceDocument | undefined): ManifestIssue {
  const [field, index] = patch.at;
  const where = `${field}[${String(index)}]${patch.file === undefined ? '' : ` (${patch.file})`}`;
  const names = patch.names.length === 0 ? '' : ` [${patch.names.join(', ')}]`;
  const target = patch.target === undefined ? 'a Component' : `Component ${patch.target}`;
  return {
    rule: 'patched-nudges-ref',
    severity: 'warning',
    message:
      `${patch.kustomization} ${where}: a kustomize patch sets build-nudges-ref${names} on ${target}; ` +
      'nudger does not apply patches, so these edges are not checked here (pipe `kubectl kustomize` ' +
      'output into `nudger validate -`) and `nudger migrate` refuses until they are moved into the NudgeConfig by hand',
    location: doc?.tree.child([field, index])?.location() ?? { file: patch.kustomization },
  };
}
