// Full YAML (and JSON, which is YAML) through the `yaml` library: anything the fast path in
// simple-yaml.ts declines. Each document is converted to plain data exactly once; positions are
// looked up afterwards, only along the paths that need them.
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseAllDocuments, visit, type Document, type Node } from 'yaml';
import { KUBECTL_YAML_OPTIONS } from '../domain/kubectl-yaml.ts';
import type { SourceLocation } from '../domain/model.ts';
import { ManifestSyntaxError, type ManifestFormat } from './errors.ts';
import type { FieldPath, SourceDocument, SourceTree } from './source-tree.ts';

/**
 * Each alias may expand to at most this many nodes' worth of data: real manifests use a handful of
 * anchors, while a "billion laughs" document needs thousands. Mirrors yaml's own default.
 */
export const MAX_ALIAS_COUNT = 100;

export function formatOf(file: string): ManifestFormat {
  return file.toLowerCase().endsWith('.json') ? 'JSON' : 'YAML';
}

/**
 * Every non-empty document of `text`. Throws ManifestSyntaxError at the first problem, because a
 * half-understood file could silently drop nudge edges.
 */
export function parseYamlDocuments(file: string, text: string): SourceDocument[] {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { ...KUBECTL_YAML_OPTIONS, lineCounter: lines });
  const result: SourceDocument[] = [];
  for (const doc of docs) {
    const firstError = doc.errors[0];
    if (firstError !== undefined) {
      const { line, col } = lines.linePos(firstError.pos[0]);
      throw new ManifestSyntaxError(file, Math.max(line, 1), Math.max(col, 1), firstError.message, formatOf(file));
    }
    const root = doc.contents;
    if (root === null) continue; // comments only
    const context: TreeContext = { file, lines, doc };
    const value = toPlainData(context, root);
    if (value === null) continue; // an empty document between two `---`
    result.push({ file, value, tree: new YamlTree(context, root) });
  }
  return result;
}

interface TreeContext {
  readonly file: string;
  readonly lines: LineCounter;
  readonly doc: Document.Parsed;
}

function toPlainData(context: TreeContext, root: Node): unknown {
  try {
    return context.doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    // yaml throws ReferenceError for an unknown or excessively expanded alias; both make the
    // document unusable, so they are reported like syntax errors.
    const reason = error instanceof Error ? error.message : String(error);
    const at = locationOf(context, unresolvedAlias(context.doc) ?? root);
    throw new ManifestSyntaxError(context.file, at.line ?? 1, at.column ?? 1, reason, formatOf(context.file));
  }
}

function unresolvedAlias(doc: Document.Parsed): Node | undefined {
  let found: Node | undefined;
  visit(doc, {
    Alias(_, alias) {
      if (alias.resolve(doc) !== undefined) return undefined;
      found = alias;
      return visit.BREAK;
    },
  });
  return found;
}

function locationOf(context: TreeContext, node: Node | undefined): SourceLocation {
  const offset = node?.range?.[0];
  if (offset === undefined) return { file: context.file };
  const { line, col } = context.lines.linePos(offset);
  return { file: context.file, line, column: col };
}

class YamlTree implements SourceTree {
  readonly #context: TreeContext;
  readonly #node: Node;

  constructor(context: TreeContext, node: Node) {
    this.#context = context;
    this.#node = node;
  }

  location(): SourceLocation {
    return locationOf(this.#context, this.#node);
  }

  isMapping(): boolean {
    return isMap(resolve(this.#context, this.#node));
  }

  fieldLocation(path: FieldPath): SourceLocation {
    let current: Node = this.#node;
    let marker: Node = this.#node;
    for (const segment of path) {
      const child = childOf(this.#context, current, segment);
      if (child === undefined) break;
      current = child.value;
      marker = child.key ?? child.value;
    }
    return locationOf(this.#context, marker);
  }

  child(path: FieldPath): SourceTree | undefined {
    let current: Node | undefined = this.#node;
    for (const segment of path) {
      if (current === undefined) return undefined;
      current = childOf(this.#context, current, segment)?.value;
    }
    return current === undefined ? undefined : new YamlTree(this.#context, current);
  }

  items(): readonly (SourceTree | undefined)[] {
    const seq = resolve(this.#context, this.#node);
    if (!isSeq(seq)) return [];
    return seq.items.map((item) => {
      const node = resolve(this.#context, item);
      return node === undefined ? undefined : new YamlTree(this.#context, node);
    });
  }
}

/** Follows an alias to the node it names, so positions and lookups see through `*anchor`. */
function resolve(context: TreeContext, node: unknown): Node | undefined {
  if (isAlias(node)) return node.resolve(context.doc) ?? undefined;
  return isScalar(node) || isMap(node) || isSeq(node) ? node : undefined;
}

function childOf(context: TreeContext, node: Node, segment: string | number): { key?: Node; value: Node } | undefined {
  const resolved = resolve(context, node);
  if (isSeq(resolved)) {
    const item = typeof segment === 'number' ? resolve(context, resolved.items[segment]) : undefined;
    return item === undefined ? undefined : { value: item };
  }
  if (isMap(resolved)) {
    const name = String(segment);
    for (const pair of resolved.items) {
      const key = pair.key;
      if (isScalar(key) && String(key.value) === name) {
        const value = resolve(context, pair.value);
        // `field:` with nothing after it has no value node; the key is still the field's place.
        return value === undefined ? { key, value: key } : { key, value };
      }
    }
  }
  return undefined;
}
