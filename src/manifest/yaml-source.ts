// YAML (and JSON, which is YAML) text to plain values, keeping the node tree so that any field can
// be mapped back to its line and column. Each document is converted to plain data exactly once;
// positions are looked up afterwards only along the paths that need them.
import { LineCounter, isAlias, isMap, isScalar, isSeq, parseAllDocuments, type Document, type Node } from 'yaml';
import type { SourceLocation } from '../domain/model.ts';
import { ManifestSyntaxError, type ManifestFormat } from './errors.ts';

/**
 * Each alias may expand to at most this many nodes' worth of data: real manifests use a handful of
 * anchors, while a "billion laughs" document needs thousands. Mirrors yaml's own default.
 */
export const MAX_ALIAS_COUNT = 100;

const TIMESTAMP_TAG = 'tag:yaml.org,2002:timestamp';

/**
 * Parse like kubectl does: its YAML library follows YAML 1.1, so `yes`/`no`/`on`/`off` are booleans
 * and `0755` is octal, and we must see the same values the API server would. Two 1.1 types are left
 * out because kubectl keeps them as strings: timestamps (`2024-01-01`) and base-60 numbers (`1:20`).
 * A `%YAML 1.2` directive still switches a document to 1.2. Merge keys (`<<`) come with 1.1.
 */
const PARSE_OPTIONS = {
  version: '1.1',
  prettyErrors: false,
  uniqueKeys: true,
  customTags: (tags: unknown[]) => tags.filter((tag) => !isKubectlStringType(tag)),
} as const;

function isKubectlStringType(tag: unknown): boolean {
  if (typeof tag !== 'object' || tag === null) return false;
  const { tag: name, format } = tag as { tag?: unknown; format?: unknown };
  return name === TIMESTAMP_TAG || format === 'TIME';
}

/** One YAML document of a file, as plain data plus the node tree it came from. */
export interface SourceDocument {
  readonly file: string;
  /** The document's root value as plain JSON-like data (after alias and merge-key expansion). */
  readonly value: unknown;
  readonly root: Node;
  readonly positions: PositionIndex;
}

/** Turns node offsets into 1-based line and column for one file. */
export class PositionIndex {
  readonly file: string;
  readonly #lines: LineCounter;
  readonly #doc: Document.Parsed;

  constructor(file: string, lines: LineCounter, doc: Document.Parsed) {
    this.file = file;
    this.#lines = lines;
    this.#doc = doc;
  }

  /** Where `node` starts; the file alone when the node has no position. */
  locationOf(node: Node | undefined): SourceLocation {
    const offset = node?.range?.[0];
    if (offset === undefined) return { file: this.file };
    const { line, col } = this.#lines.linePos(offset);
    return { file: this.file, line, column: col };
  }

  /** Follows an alias to the node it names, so positions and lookups see through `*anchor`. */
  resolve(node: unknown): Node | undefined {
    if (isAlias(node)) return node.resolve(this.#doc) ?? undefined;
    return isNode(node) ? node : undefined;
  }

  /**
   * The node that best represents `path` below `from`: the key of the last field when it is a
   * mapping entry (the line a human reads as "the field"), else the item itself. When the path
   * leaves the node tree (e.g. a value that came in through a `<<` merge key), the deepest node
   * found so far stands in.
   */
  nodeAt(from: Node, path: readonly (string | number)[]): Node {
    let current: Node = from;
    let marker: Node = from;
    for (const segment of path) {
      const child = this.child(current, segment);
      if (child === undefined) return marker;
      current = child.value;
      marker = child.key ?? child.value;
    }
    return marker;
  }

  /** The value node (not the key) at `path`, or undefined when it is not in the node tree. */
  valueAt(from: Node, path: readonly (string | number)[]): Node | undefined {
    let current: Node | undefined = from;
    for (const segment of path) {
      if (current === undefined) return undefined;
      current = this.child(current, segment)?.value;
    }
    return current;
  }

  /** The items of a sequence node, aliases resolved; empty when `node` is not a sequence. */
  itemsOf(node: Node | undefined): readonly (Node | undefined)[] {
    const seq = this.resolve(node);
    if (!isSeq(seq)) return [];
    return seq.items.map((item) => this.resolve(item));
  }

  private child(node: Node, segment: string | number): { key?: Node; value: Node } | undefined {
    const resolved = this.resolve(node);
    if (isSeq(resolved)) {
      const item = typeof segment === 'number' ? this.resolve(resolved.items[segment]) : undefined;
      return item === undefined ? undefined : { value: item };
    }
    if (isMap(resolved)) {
      const name = String(segment);
      for (const pair of resolved.items) {
        const key = pair.key;
        if (isScalar(key) && String(key.value) === name) {
          const value = this.resolve(pair.value);
          // `field:` with nothing after it has no value node; the key is still the field's place.
          return value === undefined ? { key, value: key } : { key, value };
        }
      }
    }
    return undefined;
  }
}

function isNode(value: unknown): value is Node {
  return isScalar(value) || isMap(value) || isSeq(value) || isAlias(value);
}

export function formatOf(file: string): ManifestFormat {
  return file.toLowerCase().endsWith('.json') ? 'JSON' : 'YAML';
}

/**
 * Every non-empty document of `text`. Throws ManifestSyntaxError at the first problem, because a
 * half-understood file could silently drop nudge edges.
 */
export function parseDocuments(file: string, text: string): SourceDocument[] {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { ...PARSE_OPTIONS, lineCounter: lines });
  const result: SourceDocument[] = [];
  for (const doc of docs) {
    const firstError = doc.errors[0];
    if (firstError !== undefined) {
      const { line, col } = lines.linePos(firstError.pos[0]);
      throw new ManifestSyntaxError(file, Math.max(line, 1), col, firstError.message, formatOf(file));
    }
    const root = doc.contents;
    if (root === null) continue; // empty or comments-only document
    const positions = new PositionIndex(file, lines, doc);
    result.push({ file, value: toPlainData(doc, positions, root), root, positions });
  }
  return result;
}

function toPlainData(doc: Document.Parsed, positions: PositionIndex, root: Node): unknown {
  try {
    return doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
  } catch (error) {
    // yaml throws ReferenceError for an unknown or excessively expanded alias; both make the
    // document unusable, so they are reported like syntax errors, at the document.
    const reason = error instanceof Error ? error.message : String(error);
    const at = positions.locationOf(root);
    throw new ManifestSyntaxError(positions.file, at.line ?? 1, at.column ?? 1, reason, formatOf(positions.file));
  }
}
