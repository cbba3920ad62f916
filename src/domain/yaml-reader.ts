// How nudger reads YAML text, one document at a time: the one reader behind `validate`, `graph`,
// `plan` (src/manifest/yaml-source.ts) and `migrate` (migrate-yaml.ts), so that every command reads
// exactly the files kubectl reads, and reads them the same way:
// - bare CRs (old Mac line ends) are line breaks to YAML and go-yaml, but the parsers here split on
//   LF only: they are read as LFs, and CRLFs as LFs too (values and line numbers stay the same);
// - controller-gen's under-indented quoted continuations are re-indented (quoted-continuations.ts)
//   and the text is read again from the document where that happened;
// - runaway nesting and collection keys are reported at their position (yaml-shape.ts), aliases may
//   expand to at most MAX_ALIAS_COUNT nodes each.
// Only the document being read has a syntax tree. Offsets of the text read map back to the text
// given (`toInput`), for the migration's edits of the file as written.
import { Composer, LineCounter, Parser, visit, type Document, type Node, type YAMLError } from 'yaml';
import { KUBECTL_YAML_OPTIONS } from './kubectl-yaml.ts';
import { OffsetMap } from './offset-map.ts';
import { isUnclosedQuote, quotedContinuationIndents, withIndents } from './quoted-continuations.ts';
import { shapeProblem } from './yaml-shape.ts';

/**
 * Each alias may expand to at most this many nodes' worth of data: real manifests use a handful of
 * anchors, while a "billion laughs" document needs thousands. Mirrors yaml's own default.
 */
export const MAX_ALIAS_COUNT = 100;

/** Passes of quoted-scalar re-indentation tried before a file is reported as malformed. */
const MAX_REPAIRS = 3;

/** The text is not YAML nudger can read; line and column (1-based) are those of the text given. */
export class YamlReadError extends Error {
  override readonly name = 'YamlReadError';
  readonly line: number;
  readonly column: number;
  readonly reason: string;

  constructor(line: number, column: number, reason: string) {
    super(`${String(line)}:${String(column)}: ${reason}`);
    this.line = line;
    this.column = column;
    this.reason = reason;
  }
}

/** One document of the stream, as read. */
export interface ReadDocument {
  /** Its place in the stream, empty documents counted. */
  readonly index: number;
  readonly doc: Document.Parsed;
  /** The text its ranges are offsets of: the text given, with the repairs above. */
  readonly source: string;
  readonly lines: LineCounter;
  /** The offset of the text given that an offset of `source` stands for. */
  readonly toInput: (offset: number) => number;
}

/**
 * `text` with a line feed for every CR and CRLF. YAML reads every line break in a scalar as LF, so
 * values stay the same, and so do line and column numbers.
 */
export function withLineFeeds(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

/**
 * Every document of `text` (empty ones included), one at a time. Throws YamlReadError at the first
 * syntax error, because a half-understood file could silently drop nudge edges.
 */
export function* readYamlDocuments(text: string): Generator<ReadDocument> {
  let source = withLineFeeds(text);
  let toInput = lineFeedOffsets(text);
  let done = 0; // documents of the stream already handled
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
          const indents = quotedContinuationIndents(source);
          if (indents.length > 0) {
            const map = new OffsetMap();
            for (const { offset, spaces } of indents) map.splice(offset, spaces);
            const before = toInput;
            toInput = (offset) => before(map.toOriginal(offset));
            source = withIndents(source, indents);
            retry = true;
            break;
          }
        }
        throw syntaxError(lines, firstError);
      }
      yield { index: done, doc, source, lines, toInput };
      done++;
    }
    if (!retry) return;
  }
}

/** Maps an offset of withLineFeeds(text) back to `text` (a CRLF is one character there). */
export function lineFeedOffsets(text: string): (offset: number) => number {
  const map = new OffsetMap();
  for (let at = text.indexOf('\r\n'); at !== -1; at = text.indexOf('\r\n', at + 2)) map.splice(at, -1);
  return map.empty ? (offset) => offset : (offset) => map.toOriginal(offset);
}

function syntaxError(lines: LineCounter, error: YAMLError): YamlReadError {
  const { line, col } = lines.linePos(error.pos[0]);
  // yaml turns a stack overflow into this code; the position is where the nesting got too deep.
  const reason = error.code === 'RESOURCE_EXHAUSTION' ? `nesting too deep to read (${error.message})` : error.message;
  return new YamlReadError(Math.max(line, 1), Math.max(col, 1), reason);
}

/**
 * The document as plain data (null for one of comments only), after the checks that keep
 * converting, validating and walking it from overflowing the stack or expanding without bound.
 */
export function documentValue(read: ReadDocument): unknown {
  const root = read.doc.contents;
  if (root === null) return null;
  const problem = shapeProblem(root);
  if (problem !== undefined) throw errorAt(read, problem.node, problem.reason);
  try {
    return read.doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT });
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
    throw errorAt(read, (overflow ? undefined : unresolvedAlias(read.doc)) ?? root, reason);
  }
}

function errorAt(read: ReadDocument, node: Node, reason: string): YamlReadError {
  const offset = node.range?.[0];
  if (offset === undefined) return new YamlReadError(1, 1, reason);
  const { line, col } = read.lines.linePos(offset);
  return new YamlReadError(line, col, reason);
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
