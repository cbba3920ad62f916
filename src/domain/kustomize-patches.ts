// Finds kustomize patches that give a Component `spec.build-nudges-ref` (issue 8, item 8). Those
// edges exist only in `kustomize build` output, so reading the Component files alone misses them:
// `migrate` said "nothing to migrate" while the cluster kept nudging. nudger does not apply patches;
// it finds them so that `validate` can warn and `migrate` can refuse instead of going silent.
//
// The forms kustomize accepts: `patches:` (a `path:` or an inline `patch:`, JSON6902 or strategic
// merge, with an optional `target:`), the deprecated `patchesJson6902:` (same shape) and
// `patchesStrategicMerge:` (file paths or inline YAML strings).
import { parseAllDocuments } from 'yaml';
import { dirName, joinPath, normalizePath } from './migrate-classify.ts';
import type { KustomizationInput } from './kustomize-namespaces.ts';
import { isRecord } from './records.ts';

const BUILD_NUDGES_REF = 'build-nudges-ref';
const PATCH_FIELDS = ['patches', 'patchesJson6902', 'patchesStrategicMerge'] as const;

export interface NudgesRefPatch {
  /** The kustomization that applies the patch, as given in the input. */
  readonly kustomization: string;
  /** Where in the kustomization: the field and the index, e.g. `['patches', 2]`. */
  readonly at: readonly [string, number];
  /** The patch file as given in the input; undefined for an inline patch. */
  readonly file?: string;
  /** The Component patched, when the patch or its target names one. */
  readonly target?: string;
  /** The names the patch adds to build-nudges-ref, when they can be read. */
  readonly names: readonly string[];
}

/** A file of the input by its normalized path. */
export type FileLookup = (normalizedPath: string) => { readonly path: string; readonly text: string } | undefined;

/** Every patch entry whose text mentions build-nudges-ref, in kustomization then entry order. */
export function findNudgesRefPatches(
  kustomizations: readonly KustomizationInput[],
  lookup: FileLookup,
): NudgesRefPatch[] {
  const found: NudgesRefPatch[] = [];
  for (const { path, value } of kustomizations) {
    if (!isRecord(value)) continue;
    const dir = normalizePath(dirName(path));
    for (const field of PATCH_FIELDS) {
      const list = value[field];
      if (!Array.isArray(list)) continue;
      list.forEach((entry: unknown, index) => {
        const source = patchSource(entry, field, dir, lookup);
        if (!source?.text.includes(BUILD_NUDGES_REF)) return;
        const read = readPatch(source.text);
        const target = source.target ?? read.target;
        found.push({
          kustomization: path,
          at: [field, index],
          ...(source.file === undefined ? {} : { file: source.file }),
          ...(target === undefined ? {} : { target }),
          names: read.names,
        });
      });
    }
  }
  return found;
}

/** The file paths (normalized) a kustomization reads patches from. */
export function patchFilesOf(value: unknown, dir: string): string[] {
  if (!isRecord(value)) return [];
  const files: string[] = [];
  for (const field of PATCH_FIELDS) {
    const list = value[field];
    if (!Array.isArray(list)) continue;
    for (const entry of list) {
      const path = patchPath(entry);
      if (path !== undefined) files.push(normalizePath(joinPath(dir, path)));
    }
  }
  return files;
}

function patchPath(entry: unknown): string | undefined {
  if (typeof entry === 'string') return isInlineYaml(entry) ? undefined : entry;
  if (isRecord(entry) && typeof entry.path === 'string') return entry.path;
  return undefined;
}

/** `patchesStrategicMerge` mixes file names and inline documents; a document has a line break or `: `. */
function isInlineYaml(entry: string): boolean {
  return entry.includes('\n') || entry.includes(': ');
}

interface PatchSource {
  readonly text: string;
  readonly file?: string;
  readonly target?: string;
}

function patchSource(entry: unknown, field: string, dir: string, lookup: FileLookup): PatchSource | undefined {
  const targetName = isRecord(entry) && isRecord(entry.target) ? entry.target.name : undefined;
  const target = typeof targetName === 'string' ? { target: targetName } : {};
  if (typeof entry === 'string' && field === 'patchesStrategicMerge' && isInlineYaml(entry)) return { text: entry };
  if (isRecord(entry) && typeof entry.patch === 'string') return { text: entry.patch, ...target };
  const path = patchPath(entry);
  if (path === undefined) return undefined;
  const file = lookup(normalizePath(joinPath(dir, path)));
  return file === undefined ? undefined : { text: file.text, file: file.path, ...target };
}

/** The Component name and the build-nudges-ref names of a JSON6902 or strategic-merge patch. */
function readPatch(text: string): { target?: string; names: string[] } {
  const names: string[] = [];
  let target: string | undefined;
  let values: unknown[];
  try {
    values = parseAllDocuments(text, { logLevel: 'silent' }).flatMap((doc) =>
      'errors' in doc && doc.errors.length === 0 ? [doc.toJS({ maxAliasCount: 100 }) as unknown] : [],
    );
  } catch {
    return { names };
  }
  for (const value of values) {
    if (Array.isArray(value)) {
      // JSON6902: `add`/`replace` of /spec/build-nudges-ref (the list) or /spec/build-nudges-ref/- (one item).
      for (const op of value) {
        if (!isRecord(op) || typeof op.path !== 'string' || !op.path.startsWith(`/spec/${BUILD_NUDGES_REF}`)) continue;
        if (op.op === 'add' || op.op === 'replace') names.push(...stringsOf(op.value));
      }
    } else if (isRecord(value)) {
      const spec = value.spec;
      if (isRecord(spec)) names.push(...stringsOf(spec[BUILD_NUDGES_REF]));
      const name = isRecord(value.metadata) ? value.metadata.name : undefined;
      if (typeof name === 'string') target ??= name;
    }
  }
  return target === undefined ? { names } : { target, names };
}

function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}
