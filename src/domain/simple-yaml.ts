// A fast path for the YAML that Kubernetes manifests nearly always are: block mappings and
// sequences of one-line scalars, as kubectl, kustomize and people write them. The `yaml` library
// builds a full syntax tree and is an order of magnitude slower, which matters for thousands of
// files or a 100,000-entry NudgeConfig. Anything outside the subset (anchors, tags, block scalars,
// multi-line or unusual scalars, flow mappings, tabs, directives) makes this parser decline the
// whole file, and the caller hands it to `yaml`; so does every syntax error, which `yaml` then
// reports. Whatever this parser accepts it must read exactly as `yaml` would (with the options in
// kubectl-yaml.ts); test/manifest/simple-yaml.test.ts holds it to that. Shared by validate's reader
// (src/manifest/documents.ts) and migrate's (migrate-simple-source.ts).

/** Where a value starts (1-based), and for collections where their parts start. */
export interface PositionNode {
  readonly line: number;
  readonly column: number;
  readonly fields?: ReadonlyMap<string, PositionField>;
  readonly items?: readonly PositionNode[];
}

export interface PositionField {
  /** The key's position. */
  readonly line: number;
  readonly column: number;
  readonly value: PositionNode;
}

/**
 * A document of the stream as `yaml` counts them (text before the first `---` that holds nothing is
 * none), and where `yaml` ends it: at the `---` that ends it, or the text's end. Where it cannot
 * say (an empty document, or one whose last value is empty: `yaml` ends those before the `---`, by
 * rules of its own), `end` is undefined.
 */
export type SimpleRegion =
  | {
      readonly kind: 'document';
      readonly value: unknown;
      readonly position: PositionNode;
      readonly end: number | undefined;
      /** The line `end` is on. */
      readonly endLine: number;
    }
  | { readonly kind: 'empty' };

interface Line {
  readonly number: number;
  /** Mutable: a compact `- key: value` item is re-read as a mapping indented past the dash. */
  indent: number;
  text: string;
}

type Parsed = readonly [value: unknown, position: PositionNode];

/** Thrown inside the parser to decline the file; never escapes this module. */
class Unsupported extends Error {}

// YAML 1.1 scalar resolution as `yaml` does it (its yaml-1.1 schema), for the plain scalars
// accepted here: everything else declines.
const NULL = /^(?:~|[Nn]ull|NULL)$/;
const TRUE = /^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/;
const FALSE = /^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/;
/** Decimal integers without sign quirks, underscores, octal-looking zeros or precision loss. */
const SAFE_INT = /^(?:0|-?[1-9][0-9]{0,14})$/;
/** Starts like a string and cannot be a number (1.1 floats may start with `e`: `e5`). */
const STRING_START = /^[A-Za-z_/]/;
const EXPONENT_ONLY = /^[eE][-+]?[0-9]+$/;
const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
const FLOW_ITEM = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
/**
 * Characters that make a file worth leaving to the full parser: control characters, and every
 * whitespace but space and newline (tabs, CR, a BOM, Unicode spaces that JavaScript's trim would
 * strip and YAML would keep).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const DECLINE_CHARACTERS = /[^\S \n]|[\u0000-\u0008\u000e-\u001f\u007f]/;
/**
 * Deeper documents are left to `yaml`, which reports runaway nesting (`[[[[...`) with a position
 * instead of overflowing the stack here. Real manifests, CRD schemas included, stay far below.
 */
export const MAX_FAST_NESTING = 128;
const DOUBLE_QUOTE_ESCAPES: Readonly<Record<string, string>> = { '"': '"', '\\': '\\', n: '\n', t: '\t' };

/**
 * The documents of `text` one at a time, so that a caller can keep what it needs of each and let
 * the rest go (a 30 MB file of plain manifests would otherwise hold every document's data and
 * positions at once). Returns true when the whole file was read, false when it declined: the
 * documents yielded until then are exactly what `yaml` reads for the first documents of the file.
 */
export function* simpleYamlDocuments(text: string): Generator<SimpleRegion, boolean> {
  if (DECLINE_CHARACTERS.test(text)) return false;
  try {
    for (const { lines, end, endLine, leading } of documentLines(text)) {
      if (lines.length === 0) {
        if (!leading) yield { kind: 'empty' };
        continue;
      }
      const parser = new BlockParser(lines);
      const [value, position] = parser.parseDocument();
      const emptyLast = lines[lines.length - 1]?.text.endsWith(':') === true; // `key:` with no value
      yield { kind: 'document', value, position, end: emptyLast ? undefined : end, endLine };
    }
    return true;
  } catch (error) {
    if (error instanceof Unsupported) return false;
    throw error;
  }
}

/**
 * The significant lines of each document, read lazily: one document's lines exist at a time. Only
 * spaces can surround content here (DECLINE_CHARACTERS), so lines are trimmed by index and each
 * costs one string. With each, where it ends (the `---` after it or the text's end) and whether it
 * is the text before the first `---`.
 */
function* documentLines(text: string): Generator<{ lines: Line[]; end: number; endLine: number; leading: boolean }> {
  let document: Line[] = [];
  let number = 0;
  let leading = true;
  for (let start = 0; start <= text.length;) {
    const newline = text.indexOf('\n', start);
    const lineEnd = newline === -1 ? text.length : newline;
    const lineStart = start;
    start = lineEnd + 1;
    number++;
    if (text.startsWith('---', lineStart)) {
      const rest = text.slice(lineStart + 3, lineEnd);
      if (rest.trim() !== '' && !/^\s+#/.test(rest)) throw new Unsupported(); // `--- value`
      yield { lines: document, end: lineStart, endLine: number, leading };
      document = [];
      leading = false;
      continue;
    }
    if (text.startsWith('...', lineStart) || text.startsWith('%', lineStart)) throw new Unsupported();
    let end = lineEnd;
    while (end > lineStart && text.charCodeAt(end - 1) === SPACE) end--;
    let first = lineStart;
    while (first < end && text.charCodeAt(first) === SPACE) first++;
    if (first === end || text.charCodeAt(first) === HASH) continue;
    // `key:   ` would need the trailing spaces to place its null where yaml does.
    if (end !== lineEnd && text.charCodeAt(end - 1) === COLON) throw new Unsupported();
    document.push({ number, indent: first - lineStart, text: text.slice(first, end) });
  }
  yield { lines: document, end: text.length, endLine: number, leading };
}

const SPACE = 0x20;
const HASH = 0x23;
const COLON = 0x3a;

function isSequenceItem(text: string): boolean {
  return text === '-' || text.startsWith('- ');
}

/** The index of the `:` ending a plain key, or -1 when the line is not `key: ...`. */
function keyEnd(text: string): number {
  let from = 0;
  for (;;) {
    const colon = text.indexOf(':', from);
    if (colon === -1) return -1;
    if (colon + 1 === text.length || text[colon + 1] === ' ') return colon;
    from = colon + 1;
  }
}

function resolvePlain(text: string): unknown {
  if (NULL.test(text)) return null;
  if (TRUE.test(text)) return true;
  if (FALSE.test(text)) return false;
  if (SAFE_INT.test(text)) return Number(text);
  if (STRING_START.test(text) && !EXPONENT_ONLY.test(text)) return text;
  throw new Unsupported();
}

class BlockParser {
  readonly #lines: Line[];
  #next = 0;
  #depth = 0;

  constructor(lines: Line[]) {
    this.#lines = lines;
  }

  parseDocument(): Parsed {
    const first = this.#peek();
    if (first === undefined) throw new Unsupported();
    const parsed = this.#block(first.indent);
    if (this.#next < this.#lines.length) throw new Unsupported(); // e.g. a dedented stray line
    return parsed;
  }

  #peek(): Line | undefined {
    return this.#lines[this.#next];
  }

  #block(indent: number): Parsed {
    const line = this.#peek();
    if (line?.indent !== indent || this.#depth >= MAX_FAST_NESTING) throw new Unsupported();
    this.#depth++;
    try {
      if (isSequenceItem(line.text)) return this.#sequence(indent);
      if (keyEnd(line.text) !== -1) return this.#mapping(indent);
      throw new Unsupported(); // a scalar document or a multi-line scalar
    } finally {
      this.#depth--;
    }
  }

  #mapping(indent: number): Parsed {
    const first = this.#peek();
    if (first === undefined) throw new Unsupported();
    const value: Record<string, unknown> = {};
    const fields = new Map<string, PositionField>();
    for (let line = this.#peek(); line !== undefined && line.indent >= indent; line = this.#peek()) {
      if (line.indent > indent || isSequenceItem(line.text)) throw new Unsupported();
      const colon = keyEnd(line.text);
      const key = line.text.slice(0, colon);
      if (colon === -1 || !PLAIN_KEY.test(key) || typeof resolvePlain(key) !== 'string') throw new Unsupported();
      if (fields.has(key) || key === '__proto__') throw new Unsupported();
      this.#next++;
      const rest = line.text.slice(colon + 1).trimStart();
      const restColumn = line.indent + line.text.length - rest.length + 1;
      // Where yaml places the null of a `key:` with no value: after the colon and any spaces.
      const [fieldValue, position] =
        rest === '' || rest.startsWith('#')
          ? this.#nestedValue(indent, {
              line: line.number,
              column: rest === '' ? line.indent + colon + 2 : restColumn,
            })
          : inlineValue(rest, line.number, restColumn);
      value[key] = fieldValue;
      fields.set(key, { line: line.number, column: line.indent + 1, value: position });
    }
    return [value, { line: first.number, column: first.indent + 1, fields }];
  }

  /** The value of `key:` with nothing after it: a deeper block, a same-indent sequence, or null. */
  #nestedValue(indent: number, nullPosition: { line: number; column: number }): Parsed {
    const next = this.#peek();
    if (next !== undefined && next.indent > indent) return this.#block(next.indent);
    if (next?.indent === indent && isSequenceItem(next.text)) return this.#sequence(indent);
    return [null, nullPosition];
  }

  #sequence(indent: number): Parsed {
    const first = this.#peek();
    if (first === undefined) throw new Unsupported();
    // Read now: the first line is rewritten below when it holds a compact mapping.
    const start = { line: first.number, column: first.indent + 1 };
    const value: unknown[] = [];
    const items: PositionNode[] = [];
    for (let line = this.#peek(); line?.indent === indent && isSequenceItem(line.text); line = this.#peek()) {
      const rest = line.text.slice(1).trimStart();
      if (rest === '' || rest.startsWith('#')) throw new Unsupported(); // `-` alone: rare, leave it
      const restIndent = line.indent + line.text.length - rest.length;
      let item: Parsed;
      if (isSequenceItem(rest) || keyEnd(rest) !== -1) {
        // `- key: value` opens a mapping whose keys line up with `key`.
        line.indent = restIndent;
        line.text = rest;
        item = this.#block(restIndent);
      } else {
        this.#next++;
        item = inlineValue(rest, line.number, restIndent + 1);
      }
      value.push(item[0]);
      items.push(item[1]);
      const after = this.#peek();
      if (after !== undefined && after.indent > indent) throw new Unsupported();
    }
    return [value, { ...start, items }];
  }
}

/** A value on the rest of a line: a quoted or plain scalar, `[]`, `{}` or a flat `[a, b]`. */
function inlineValue(text: string, line: number, column: number): Parsed {
  const position = { line, column };
  switch (text[0]) {
    case "'":
      return [singleQuoted(text), position];
    case '"':
      return [doubleQuoted(text), position];
    case '[':
      return flowSequence(withoutComment(text), line, column);
    case '{':
      if (withoutComment(text) === '{}') return [{}, position];
      throw new Unsupported();
    default:
      break;
  }
  const plain = withoutComment(text);
  if (plain.includes(': ') || plain.endsWith(':')) throw new Unsupported();
  return [resolvePlain(plain), position];
}

function withoutComment(text: string): string {
  const hash = text.indexOf(' #');
  return hash === -1 ? text : text.slice(0, hash).trimEnd();
}

/** Only a comment may follow a closing quote, and only after a space. */
function checkAfterQuote(text: string, end: number): void {
  const after = text.slice(end + 1);
  if (after === '') return;
  if (!after.startsWith(' ') || !after.trimStart().startsWith('#')) throw new Unsupported();
}

function singleQuoted(text: string): string {
  let from = 1;
  for (;;) {
    const quote = text.indexOf("'", from);
    if (quote === -1) throw new Unsupported(); // continues on the next line
    if (text[quote + 1] === "'") {
      from = quote + 2;
      continue;
    }
    checkAfterQuote(text, quote);
    return text.slice(1, quote).replaceAll("''", "'");
  }
}

function doubleQuoted(text: string): string {
  let value = '';
  for (let index = 1; index < text.length; index++) {
    const char = text[index] ?? '';
    if (char === '"') {
      checkAfterQuote(text, index);
      return value;
    }
    if (char === '\\') {
      const escaped = DOUBLE_QUOTE_ESCAPES[text[index + 1] ?? ''];
      if (escaped === undefined) throw new Unsupported();
      value += escaped;
      index++;
    } else {
      value += char;
    }
  }
  throw new Unsupported(); // continues on the next line
}

/** `[]`, or `[a, b-c]` of plain names: the form people use for short `build-nudges-ref` lists. */
function flowSequence(text: string, line: number, column: number): Parsed {
  if (!text.endsWith(']')) throw new Unsupported();
  const inner = text.slice(1, -1);
  if (inner.trim() === '') return [[], { line, column, items: [] }];
  const value: string[] = [];
  const items: PositionNode[] = [];
  let offset = 1;
  for (const part of inner.split(',')) {
    const name = part.trim();
    if (!FLOW_ITEM.test(name) || typeof resolvePlain(name) !== 'string') throw new Unsupported();
    value.push(name);
    items.push({ line, column: column + offset + part.length - part.trimStart().length });
    offset += part.length + 1;
  }
  return [value, { line, column, items }];
}
