// Full YAML (and JSON, which is YAML) through the `yaml` library: anything the fast path in
// simple-yaml.ts declines. Each document is converted to plain data exactly once; positions are
// looked up afterwards, only along the paths that need them.
import { isAlias, isMap, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import type { SourceLocation } from '../domain/model.ts';
import { YamlReadError, documentValue, readYamlDocuments, type ReadDocument } from '../domain/yaml-reader.ts';
import { ManifestSyntaxError, type ManifestFormat } from './errors.ts';
import type { FieldPath, SourceDocument, SourceTree } from './source-tree.ts';

export function formatOf(file: string): ManifestFormat {
  return file.toLowerCase().endsWith('.json') ? 'JSON' : 'YAML';
}

/**
 * Every non-empty document of `text`. Throws ManifestSyntaxError at the first problem, because a
 * half-understood file could silently drop nudge edges.
 */
export function parseYamlDocuments(file: string, text: string): SourceDocument[] {
  return [...yamlDocuments(file, text)];
}

/**
 * parseYamlDocuments one document at a time: only the document being read has a syntax tree. The
 * reading itself (line ends, controller-gen's quoted scalars, nesting, aliases) is the domain's
 * (src/domain/yaml-reader.ts), shared with `migrate`.
 */
export function* yamlDocuments(file: string, text: string): Generator<SourceDocument> {
  try {
    for (const read of readYamlDocuments(text)) {
      const document = readDocument(file, read);
      if (document !== undefined) yield document;
    }
  } catch (error) {
    if (!(error instanceof YamlReadError)) throw error;
    throw new ManifestSyntaxError(file, error.line, error.column, error.reason, formatOf(file));
  }
}

function readDocument(file: string, read: ReadDocument): SourceDocument | undefined {
  const root = read.doc.contents;
  if (root === null) return undefined; // comments only
  const value = documentValue(read);
  if (value === null) return undefined; // an empty document between two `---`
  return { file, value, tree: new YamlTree({ file, lines: read.lines, doc: read.doc }, root) };
}

interface TreeContext {
  readonly file: string;
  readonly lines: LineCounter;
  readonly doc: Document.Parsed;
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
