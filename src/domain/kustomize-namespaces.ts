// Which namespace kustomize gives the objects of each file, worked out from the kustomizations in
// the input alone (no file system, no `kustomize build`). Konflux tenant trees usually leave
// `metadata.namespace` off their Components and let the tenant's kustomization set it; reading
// every such Component as "unset" mixed the tenants of a tree into one graph (issue 8, item 1).
//
// kustomize's rules, as followed here:
// - A kustomization's `namespace:` sets the namespace of every namespaced object it builds,
//   overriding one written in the object (kubectl.docs.kubernetes.io, kustomization/namespace).
// - It builds its `resources:` (and the deprecated `bases:`): files, and directories holding a
//   kustomization, recursively. An outer kustomization's namespace is applied after the inner
//   ones', so the outermost one that sets a namespace wins.
// - `components:` name kustomize Components (`kind: Component`): their resources join the
//   parent's, and their own `namespace:` applies to everything the parent has accumulated so far;
//   the parent's own namespace still comes last.
// - Only roots are built: kustomizations no other kustomization of the input refers to. A base
//   shared by two overlays therefore yields its objects once per overlay, each in that overlay's
//   namespace: base + overlays/tenant-a + overlays/tenant-b puts the base's Components in both
//   tenants, as `kustomize build` of each overlay does.
// Remote resources (URLs) and files outside the input cannot be read and are left out.
import { patchFilesOf } from './kustomize-patches.ts';
import { dirName, isKustomizationPath, joinPath, normalizePath } from './migrate-classify.ts';
import { isRecord } from './records.ts';
import { compareStrings } from './compare.ts';

/** A kustomization file of the input and its decoded first document. */
export interface KustomizationInput {
  readonly path: string;
  readonly value: unknown;
}

/** One way a file reaches the output of a root kustomization. */
export interface Placement {
  /** The namespace kustomize gives the file's objects; undefined when no kustomization on the way sets one. */
  readonly namespace?: string;
  /** The kustomization (as given in the input) whose `namespace:` decided it. */
  readonly setBy?: string;
}

/** The namespace an object ends up in, and the kustomization that decided it (if one did). */
export interface ResolvedNamespace {
  /** UNSET_NAMESPACE ('') when neither the object nor any kustomization names one. */
  readonly namespace: string;
  readonly setBy?: string;
}

export interface KustomizeLayout {
  /** True when the input holds at least one kustomization. */
  readonly hasKustomizations: boolean;
  /** Every placement of a file (by any spelling of its path); empty when no kustomization builds it. */
  placementsOf(path: string): readonly Placement[];
  /**
   * The namespaces an object of `path` written with `explicit` (or '' for none) ends up in: one
   * per distinct namespace, in a stable order; just `explicit` when no kustomization builds it.
   */
  namespacesOf(path: string, explicit: string): readonly ResolvedNamespace[];
}

interface Kustomization {
  readonly path: string;
  readonly dir: string;
  readonly isComponent: boolean;
  readonly namespace: string | undefined;
  readonly resources: readonly string[];
  readonly components: readonly string[];
}

interface Item {
  readonly file: string;
  readonly namespace?: string;
  readonly setBy?: string;
}

export function resolveKustomizeLayout(inputs: readonly KustomizationInput[]): KustomizeLayout {
  const byDir = new Map<string, Kustomization>();
  for (const input of inputs) {
    if (!isKustomizationPath(input.path)) continue;
    const k = readKustomization(input);
    // kustomize refuses a directory with two kustomization files; the first by path stands in.
    if (!byDir.has(k.dir)) byDir.set(k.dir, k);
  }
  const referenced = new Set<string>();
  for (const k of byDir.values()) {
    for (const target of [...k.resources, ...k.components]) if (byDir.has(target)) referenced.add(target);
  }
  const memo = new Map<string, readonly Item[]>();
  const building = new Set<string>();

  // Returns the items `k` adds to `acc` (a fresh list for a Kustomization; the parent's for a Component).
  const build = (k: Kustomization, acc: Item[]): Item[] => {
    if (building.has(k.dir)) return acc; // a cycle: kustomize refuses it; nothing more to add
    building.add(k.dir);
    try {
      for (const target of k.resources) {
        const child = byDir.get(target);
        if (child === undefined) acc.push({ file: target });
        else if (!child.isComponent) acc.push(...buildKustomization(child));
      }
      for (const target of k.components) {
        const child = byDir.get(target);
        if (child !== undefined) acc = build(child, acc);
      }
      if (k.namespace !== undefined) {
        const { namespace } = k;
        acc = acc.map((item) => ({ file: item.file, namespace, setBy: k.path }));
      }
      return acc;
    } finally {
      building.delete(k.dir);
    }
  };
  const buildKustomization = (k: Kustomization): readonly Item[] => {
    let items = memo.get(k.dir);
    if (items === undefined) {
      items = build(k, []);
      memo.set(k.dir, items);
    }
    return items;
  };

  const placements = new Map<string, Placement[]>();
  const seen = new Set<string>();
  const roots = [...byDir.values()]
    .filter((k) => !referenced.has(k.dir))
    .sort((a, b) => compareStrings(a.path, b.path));
  for (const root of roots) {
    for (const item of root.isComponent ? build(root, []) : buildKustomization(root)) {
      const key = JSON.stringify([item.file, item.namespace ?? null, item.setBy ?? null]);
      if (seen.has(key)) continue;
      seen.add(key);
      const placement: Placement = item.namespace === undefined ? {} : { namespace: item.namespace, setBy: item.setBy };
      const list = placements.get(item.file);
      if (list === undefined) placements.set(item.file, [placement]);
      else list.push(placement);
    }
  }

  const placementsOf = (path: string): readonly Placement[] => placements.get(normalizePath(path)) ?? [];
  return {
    hasKustomizations: byDir.size > 0,
    placementsOf,
    namespacesOf(path, explicit) {
      const found = placementsOf(path);
      if (found.length === 0) return [{ namespace: explicit }];
      const out = new Map<string, ResolvedNamespace>();
      for (const placement of found) {
        const namespace = placement.namespace ?? explicit;
        if (out.has(namespace)) continue;
        out.set(namespace, placement.setBy === undefined ? { namespace } : { namespace, setBy: placement.setBy });
      }
      return [...out.values()].sort((a, b) => compareStrings(a.namespace, b.namespace));
    },
  };
}

function readKustomization(input: KustomizationInput): Kustomization {
  const dir = normalizePath(dirName(input.path));
  const value = isRecord(input.value) ? input.value : {};
  const namespace = value.namespace;
  const targets = (field: string): string[] => {
    const list = value[field];
    if (!Array.isArray(list)) return [];
    return list
      .filter((entry): entry is string => typeof entry === 'string' && !isRemote(entry))
      .map((entry) => normalizePath(joinPath(dir, entry)));
  };
  return {
    path: input.path,
    dir,
    isComponent: value.kind === 'Component',
    namespace: typeof namespace === 'string' && namespace !== '' ? namespace : undefined,
    // Patch files are placed too: a strategic-merge patch file is itself read as a Component, and
    // it belongs to the namespace of the kustomization that applies it, not to "unset".
    resources: [...targets('resources'), ...targets('bases'), ...patchFilesOf(value, dir)],
    components: targets('components'),
  };
}

/** `https://…`, `git@…`, `github.com/org/repo//path?ref=…`: fetched by kustomize, not in the input. */
function isRemote(entry: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(entry) || entry.startsWith('git@') || /^(github|gitlab)\.com\//.test(entry);
}
