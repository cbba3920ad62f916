// Full YAML (and JSON, which is YAML) through the `yaml` library: anything the fast path in
// simple-yaml.ts declines. Each document is converted to plain data exactly once; positions are
// looked up afterwards, only along the paths that need them.
import {
  Composer,
  LineCounter,
  Parser,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  visit,
  type Document,
  type Node,
  type YAMLError,
} from 'yaml';
import { KUBECTL_YAML_OPTIONS } from '../domain/kubectl-yaml.ts';
import type { SourceLocation } from '../domain/model.ts';
import { ManifestSyntaxError, type ManifestFormat } from './errors.ts';
import { indentQuotedContinuations, isUnclosedQuote } from './quoted-continuations.ts';
import { shapeProblem } from './yaml-shape.ts';
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
  return [...yamlDocuments(file, text)];
}

/** Passes of quoted-scalar re-indentation tried before a file is reported as malformed. */
const MAX_REPAIRS = 3;

/**
 * parseYamlDocuments one document at a time: only the document being read has a syntax tree.
 * Quoted scalars whose continuation lines are indented less than yaml requires (controller-gen
 * writes CRD descriptions that way; Kubernetes' go-yaml reads them) are re-indented and the file is
 * read again from the document where that happened.
 */
export function* yamlDocuments(file: string, text: string): Generator<SourceDocument> {
  let source = text;
  let done = 0; // documents of the stream already handled, yielded or empty
  for (let repairs = 0; ; repairs++) {
    const lines = new LineCounter();
    const composer = new Composer(KUBECTL_YAML_OPTIONS);
    let index = 0;
    let retry = false;
    for (const doc of composer.compose(new Parser(lines.addNewLine).parse(source))) {
      if (index++ < done) continue;
      const firstError = doc.errors[0];
      if (firstError !== undefined) {
        if (repairs < MAX_REPAIRS && doc.errors.some(isUnclosedQuote)) {
          const repaired = indentQuotedContinuations(source);
          if (repaired !== source) {
            source = repaired;
            retry = true;
            break;
          }
        }
        throw syntaxError(file, lines, firstError);
      }
      done++;
      const document = readDocument(file, lines, doc);
      if (document !== undefined) yield document;
    }
    if (!retry) return;
  }
}

function syntaxError(file: string, lines: LineCounter, error: YAMLError): ManifestSyntaxError {
  const { line, col } = lines.linePos(error.pos[0]);
  // yaml turns a stack overflow into this code; the position is where the nesting got too deep.
  const reason = error.code === 'RESOURCE_EXHAUSTION' ? `nesting too deep to read (${error.message})` : error.message;
  return new ManifestSyntaxError(file, Math.max(line, 1), Math.max(col, 1), reason, formatOf(file));
}

function readDocument(file: string, lines: LineCounter, doc: Document.Parsed): SourceDocument | undefined {
  const root = doc.contents;
  if (root === null) return undefined; // comments only
  const context: TreeContext = { file, lines, doc };
  const problem = shapeProblem(root);
  if (problem !== undefined) {
    const at = locationOf(context, problem.node);
    throw new ManifestSyntaxError(file, at.line ?? 1, at.column ?? 1, problem.reason, formatOf(file));
  }
  const value = toPlainData(context, root);
  if (value === null) return undefined; // an empty document between two `---`
  return { file, value, tree: new YamlTree(context, root) };
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
    // document unusable, so they are reported like syntax errors. A RangeError is a stack overflow
    // on nesting that aliases multiplied past what shapeProblem saw.
    const overflow = error instanceof RangeError;
    const reason = overflow
      ? `nesting too deep to read (${error.message})`
      : error instanceof Error
        ? error.message
        : String(error);
    const at = locationOf(context, (overflow ? undefined : unresolvedAlias(context.doc)) ?? root);
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
