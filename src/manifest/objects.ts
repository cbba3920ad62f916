// Finds the Kubernetes objects in a parsed document: the document itself, or the items of a List
// (`kind: List`, or a typed list such as `ComponentList`), recursively.
import type { SourceDocument, SourceTree } from './source-tree.ts';
import { isRecord } from '../domain/records.ts';

/** A mapping that may be a Kubernetes object, with where it was written. */
export interface RawObject {
  readonly value: Record<string, unknown>;
  readonly tree: SourceTree;
}

const LIST_SUFFIX = 'List';

export function objectsOf(doc: SourceDocument): RawObject[] {
  const found: RawObject[] = [];
  collect(doc.value, doc.tree, found);
  return found;
}

function collect(value: unknown, tree: SourceTree, found: RawObject[]): void {
  // A top-level scalar or sequence is not a Kubernetes object (kubectl would refuse it too). Such
  // documents are skipped rather than reported: directories hold other YAML (CI configs, Ansible
  // playbooks) that nudger has no business judging.
  if (!isRecord(value) || !tree.isMapping()) return;
  const items = value.items;
  if (isListKind(value.kind) && Array.isArray(items)) {
    const itemTrees = tree.child(['items'])?.items() ?? [];
    const inherited = itemIdentity(value);
    items.forEach((item: unknown, index) => {
      const itemTree = itemTrees[index];
      if (itemTree === undefined) return; // not from the source text itself (a `<<` merge key)
      collect(withIdentity(item, inherited), itemTree, found);
    });
    return;
  }
  found.push({ value, tree });
}

function isListKind(kind: unknown): boolean {
  return typeof kind === 'string' && kind.endsWith(LIST_SUFFIX);
}

interface Identity {
  readonly apiVersion: unknown;
  readonly kind: string;
}

/**
 * The API server's typed lists (`ComponentList`) may leave `apiVersion` and `kind` off their items;
 * they are implied by the list. `kind: List` implies nothing.
 */
function itemIdentity(list: Record<string, unknown>): Identity | undefined {
  const kind = list.kind;
  if (typeof kind !== 'string' || kind === LIST_SUFFIX) return undefined;
  return { apiVersion: list.apiVersion, kind: kind.slice(0, -LIST_SUFFIX.length) };
}

function withIdentity(item: unknown, inherited: Identity | undefined): unknown {
  if (inherited === undefined || !isRecord(item) || (item.kind !== undefined && item.apiVersion !== undefined)) {
    return item;
  }
  return { apiVersion: inherited.apiVersion, kind: inherited.kind, ...item };
}
