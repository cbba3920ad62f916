// Multi-line quoted scalars the way Kubernetes reads them. YAML wants the continuation lines of a
// quoted scalar indented deeper than its parent; go-yaml (kubectl, the API server, controller-gen's
// own output) does not check, and controller-gen writes CRD descriptions like
//
//     - description: 'Foo is the
//       bar of a baz'
//
// which `yaml` rejects as an unclosed quote. Leading white space of a continuation line is folded
// away, so indenting those lines further changes no value and no line number: that is the repair.
import { Lexer, type YAMLError } from 'yaml';

/** The error `yaml` reports for a quoted scalar it ended early at an under-indented line. */
export function isUnclosedQuote(error: YAMLError): boolean {
  return error.code === 'MISSING_CHAR' && error.message.includes('quote');
}

// Tokens the lexer emits that are not source text (cst.ts: DOCUMENT, FLOW_END, SCALAR).
const CONTROL_TOKENS = new Set(['\u0002', '\u0018', '\u001f']);

/** Spaces inserted at an offset of the text (the start of a line). */
export interface Indent {
  readonly offset: number;
  readonly spaces: number;
}

/**
 * Where `text` needs spaces so that the continuation lines of every quoted scalar that `yaml` would
 * end early reach the column of its opening quote, in offset order; none when there is no such
 * scalar (or when a scalar is not closed at all, which go-yaml rejects too). The reader keeps them
 * to map offsets of the repaired text back to the file's (src/domain/yaml-reader.ts).
 */
export function quotedContinuationIndents(text: string): Indent[] {
  const insertions: Indent[] = [];
  let offset = 0;
  for (const token of new Lexer().lex(text)) {
    if (CONTROL_TOKENS.has(token)) continue;
    const quote = token[0];
    if (quote === "'" || quote === '"') {
      const close = closingQuote(text, offset, quote);
      if (close > offset + token.length - 1) insertions.push(...continuationIndents(text, offset, close));
    }
    offset += token.length;
  }
  return insertions;
}

/** `text` with `indents` inserted. */
export function withIndents(text: string, indents: readonly Indent[]): string {
  if (indents.length === 0) return text;
  let result = '';
  let from = 0;
  for (const { offset: at, spaces } of indents) {
    result += text.slice(from, at) + ' '.repeat(spaces);
    from = at;
  }
  return result + text.slice(from);
}

/** The offset of the quote that closes the scalar opened at `open`, as go-yaml finds it; -1 if none. */
function closingQuote(text: string, open: number, quote: "'" | '"'): number {
  for (let at = text.indexOf(quote, open + 1); at !== -1; at = text.indexOf(quote, at + 1)) {
    if (quote === "'") {
      if (text[at + 1] !== "'") return at;
      at++; // `''` is an escaped quote
      continue;
    }
    let backslashes = 0;
    while (text[at - 1 - backslashes] === '\\') backslashes++;
    if (backslashes % 2 === 0) return at;
  }
  return -1;
}

/** Spaces to insert at the start of each non-blank line between `open` and `close`. */
function continuationIndents(text: string, open: number, close: number): Indent[] {
  const lineStart = text.lastIndexOf('\n', open) + 1;
  const target = open - lineStart;
  const found: Indent[] = [];
  for (let newline = text.indexOf('\n', open); newline !== -1 && newline < close;) {
    const start = newline + 1;
    let indent = 0;
    while (text[start + indent] === ' ') indent++;
    const first = text[start + indent];
    // A document marker ends the scalar for go-yaml too: leave the file to be reported as it is.
    if (indent === 0 && /^(?:---|\.\.\.)(?:\s|$)/.test(text.slice(start, start + 4))) return [];
    if (first !== '\n' && indent < target) found.push({ offset: start, spaces: target - indent });
    newline = text.indexOf('\n', start);
  }
  return found;
}
