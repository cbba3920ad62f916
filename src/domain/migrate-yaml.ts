// Rewrites YAML manifests for the migration without disturbing what it does not mean to change.
//
// Each changed document is read again from its own text (migrate-yaml-source.ts) and first changed
// through the yaml Document API (the "expected" result). The writer then tries a surgical text edit
// located by the parsed node ranges, which keeps every other byte (comment spacing, blank lines,
// flow padding, CR or CRLF line ends) exactly as the author wrote it, and accepts it only if
// re-reading it yields the expected data. The reader may have read a repaired text (LF for CRs,
// controller-gen's quoted continuations re-indented): edit offsets are mapped back to the file as
// written, and new lines take the file's line ends. When the shape is unusual (flow collections,
// missing parents) it falls back to `doc.toString()` with style options detected from the source.
// Documents without changes are not read again: the file is the original text with the edits
// spliced in, and the whole result is read once more to check it holds the documents planned.
import {
  type Document,
  Pair,
  Scalar,
  stringify,
  YAMLMap,
  YAMLSeq,
  isMap,
  isScalar,
  isSeq,
  type Node,
  type ToStringOptions,
} from 'yaml';
import { MigrationError } from './migrate-error.ts';
import { BUILD_NUDGES_REF, type DocOp, type Locator, type MigrationEntry } from './migrate-model.ts';
import {
  dataDigest,
  dataDigests,
  readYamlSource,
  withoutNudgesRefDigest,
  yamlDocumentValue,
  yamlSegment,
  type PreparedEdit,
  type TextEdit,
  type YamlSource,
} from './migrate-yaml-source.ts';
import { readSimpleSource } from './migrate-simple-source.ts';
import type { ReadDocument } from './yaml-reader.ts';

export { yamlDocumentValue, yamlLocator, type TextEdit, type YamlSource } from './migrate-yaml-source.ts';

type ParsedDocument = Document.Parsed;

/**
 * Reads a YAML file for the migration: plain manifests by the fast reader validate uses
 * (migrate-simple-source.ts), anything else through `yaml` (migrate-yaml-source.ts). The edit that
 * removes a Component's `spec.build-nudges-ref`, the one every migrated Component gets, is prepared
 * while its document is at hand, so that rendering a file of thousands of them need not read each
 * again.
 */
export function parseYamlSource<T>(
  path: string,
  text: string,
  classify: (value: unknown, locate: Locator) => T,
): { source: YamlSource; results: T[] } {
  return readSimpleSource(path, text, classify) ?? readYamlSource(path, text, classify, prepareNudgesRefRemoval);
}

/**
 * The surgical removal of `spec.build-nudges-ref` and the data it leaves, when the document has
 * one as a key of its own `spec`; undefined otherwise. Checked when the file is read back whole.
 */
export function prepareNudgesRefRemoval(read: ReadDocument, value: unknown): PreparedEdit | undefined {
  const digest = withoutNudgesRefDigest(value);
  if (digest === undefined) return undefined;
  const edits = surgicalEdit(read.source, read.doc, { kind: 'remove-build-nudges-ref' }, '\n');
  return edits === undefined ? undefined : { edits: edits.map((edit) => asWritten(read, edit, '\n')), digest };
}

/**
 * Names both YAML versions read as strings, known without asking `yaml` (which builds two
 * documents per name, too many for a migration of tens of thousands of edges): a lower-case
 * letter, then letters, digits and dashes (a DNS-1123 name that starts with a letter, i.e. nearly
 * every component name), except the words YAML 1.1 reads as booleans or null (true, false and null
 * in 1.2 too) and YAML 1.1's floats without a mantissa (`e5`); yaml's schema tests
 * (node_modules/yaml/dist/schema) match no other such name.
 */
const PLAIN_NAME = /^[a-z][a-z0-9-]*$/;
const YAML_1_1_WORDS = new Set(['y', 'n', 'yes', 'no', 'on', 'off', 'true', 'false', 'null']);
const YAML_1_1_EXPONENT = /^e-?[0-9]+$/;

/**
 * A name as YAML text that reads back as the same string both in YAML 1.2 and in the YAML 1.1
 * dialect Kubernetes tooling (go-yaml) speaks, where e.g. `on`, `no` or `0755` are not strings.
 */
export function yamlNameText(name: string): string {
  if (PLAIN_NAME.test(name) && !YAML_1_1_WORDS.has(name) && !YAML_1_1_EXPONENT.test(name)) return name;
  const modern = stringify(name, { lineWidth: 0 }).trimEnd();
  const legacy = stringify(name, { version: '1.1', lineWidth: 0 }).trimEnd();
  return modern === name && legacy === name ? name : JSON.stringify(name);
}

function nameNode(name: string): Scalar<string> {
  const node = new Scalar(name);
  if (yamlNameText(name) !== name) node.type = Scalar.QUOTE_DOUBLE;
  return node;
}

export function entryNode(entry: MigrationEntry): YAMLMap {
  const map = new YAMLMap();
  map.items.push(new Pair(new Scalar('from'), nameNode(entry.from)));
  map.items.push(new Pair(new Scalar('to'), nameNode(entry.to)));
  if (entry.mode !== undefined) map.items.push(new Pair(new Scalar('mode'), nameNode(entry.mode)));
  if (entry.gatingGroup !== undefined) map.items.push(new Pair(new Scalar('gatingGroup'), nameNode(entry.gatingGroup)));
  return map;
}

/** An entry's fields as YAML lines, names quoted where YAML would not read them back as written. */
export function entryLines(entry: MigrationEntry): string[] {
  const lines = [`from: ${yamlNameText(entry.from)}`, `to: ${yamlNameText(entry.to)}`];
  if (entry.mode !== undefined) lines.push(`mode: ${yamlNameText(entry.mode)}`);
  if (entry.gatingGroup !== undefined) lines.push(`gatingGroup: ${yamlNameText(entry.gatingGroup)}`);
  return lines;
}

/** Renders a complete file from a Document built in memory (a new NudgeConfig). */
export function renderNewDocument(doc: Document): string {
  return doc.toString({ lineWidth: 0 });
}

// ---------------------------------------------------------------------------------------------
// Applying operations

/** A file's new text, and the edits of its text as written that give it, in order. */
export interface RenderedText {
  readonly text: string;
  readonly edits: readonly TextEdit[];
}

export function renderYamlSource(
  source: YamlSource,
  opsByDocument: ReadonlyMap<number, readonly DocOp[]>,
): RenderedText {
  // Prepared removals are taken on trust and checked by reading the new file back whole; a
  // document that does not read back as planned is rewritten the careful way, one at a time.
  let careful = new Set<number>();
  for (;;) {
    const planned = planYamlEdits(source, opsByDocument, careful);
    if (planned.placeholder !== undefined) {
      return { text: planned.placeholder, edits: [{ start: 0, end: source.text.length, text: planned.placeholder }] };
    }
    const result = applyEdits(source.text, planned.edits);
    // A last guard against a splice gone wrong: the whole new file must hold exactly the documents
    // planned, in order.
    const actual = dataDigests(result);
    const wrong =
      actual?.length === planned.digests.length
        ? planned.digests.flatMap((digest, i) => (actual[i] === digest ? [] : [planned.kept[i] ?? -1]))
        : planned.kept;
    if (wrong.length === 0) return { text: result, edits: inSpliceOrder(planned.edits) };
    const retry = wrong.filter((index) => source.documents[index]?.removal !== undefined && !careful.has(index));
    if (retry.length === 0) {
      throw new MigrationError(source.path, 'could not rewrite this file without changing the documents it keeps');
    }
    careful = new Set([...careful, ...retry]);
  }
}

interface YamlEdits {
  /** In the file as written, in order. */
  readonly edits: readonly TextEdit[];
  /** The whole new text when no document with content is left. */
  readonly placeholder: string | undefined;
  /** The digests of the documents with data the new file holds, in order (see dataDigests). */
  readonly digests: readonly number[];
  /** The index in the stream of each of those documents. */
  readonly kept: readonly number[];
}

function planYamlEdits(
  source: YamlSource,
  opsByDocument: ReadonlyMap<number, readonly DocOp[]>,
  careful: ReadonlySet<number>,
): YamlEdits {
  const edits: TextEdit[] = [];
  const digests: number[] = [];
  const kept: number[] = [];
  let placeholder: string | undefined;
  let keptContent = false;
  for (const [index, span] of source.documents.entries()) {
    const ops = opsByDocument.get(index) ?? [];
    const removal = ops.find((op) => op.kind === 'remove-document');
    if (removal !== undefined) {
      placeholder ??= removal.placeholder;
      edits.push({ start: span.start, end: span.end, text: '' });
      continue;
    }
    if (!span.empty) keptContent = true;
    const prepared = span.removal;
    if (ops.length === 0) {
      if (span.digest === undefined) continue; // no data to compare
      kept.push(index);
      digests.push(span.digest);
      continue;
    }
    const rewritten =
      prepared !== undefined && !careful.has(index) && ops.every((op) => op.kind === 'remove-build-nudges-ref')
        ? prepared
        : rewriteDocument(source, index, ops);
    kept.push(index);
    edits.push(...rewritten.edits);
    digests.push(rewritten.digest);
  }
  return { edits, placeholder: keptContent ? undefined : placeholder, digests, kept };
}

interface Rewritten {
  /** In the file as written. */
  readonly edits: readonly TextEdit[];
  readonly digest: number;
}

function rewriteDocument(source: YamlSource, index: number, ops: readonly DocOp[]): Rewritten {
  const span = source.documents[index];
  if (span === undefined) throw new MigrationError(source.path, 'internal: document index out of range');
  const read = yamlSegment(source, index);
  const original = read.doc;
  const line = span.line + read.lines.linePos(rangeStart(original)).line - 1;
  const expectedDoc = original.clone();
  for (const op of ops) applyOp(expectedDoc, op, source.path);
  const expectedValue = expectedValueOf(expectedDoc, source.path, line);
  if (ops.some((op) => op.kind === 'remove-build-nudges-ref') && hasBuildNudgesRef(expectedValue)) {
    throw new MigrationError(
      source.path,
      `spec.${BUILD_NUDGES_REF} comes from a merge key (<<); remove it by hand and rerun`,
      line,
    );
  }
  const expected = dataDigest(expectedValue);
  const segment = source.text.slice(span.start, span.end);
  const eol = lineEndOf(segment);
  const inFile = (edits: readonly TextEdit[]): Rewritten => ({
    edits: edits.map((edit) => ({ ...edit, start: edit.start + span.start, end: edit.end + span.start })),
    digest: expected,
  });

  // The reader's text has LF line ends; the edits are made in the file as written.
  const edits = surgicalEdits(read.source, original, ops, '\n')?.map((edit) => asWritten(read, edit, eol));
  if (edits !== undefined) {
    const candidate = applyEdits(segment, edits);
    if (segmentMeans(candidate, expected)) return inFile(edits);
  }

  const tail = segment.slice(read.toInput(rangeEnd(original)));
  const rendered = expectedDoc.toString(detectStyle(read.source)).replace(/\n/g, eol);
  const candidate = tail.trim() === '' ? rendered : rendered + tail;
  if (segmentMeans(candidate, expected)) return inFile([{ start: 0, end: segment.length, text: candidate }]);
  throw new MigrationError(source.path, 'could not rewrite this document safely', line);
}

/** An edit of the text read, as an edit of the text written: offsets mapped, line ends the file's. */
function asWritten(read: ReadDocument, edit: TextEdit, eol: string): TextEdit {
  return { start: read.toInput(edit.start), end: read.toInput(edit.end), text: edit.text.replace(/\n/g, eol) };
}

/** The line end the file is written with: CRLF if it has any, else its first one (LF or a bare CR). */
function lineEndOf(text: string): string {
  if (text.includes('\r\n')) return '\r\n';
  return /\r|\n/.exec(text)?.[0] ?? '\n';
}

function expectedValueOf(doc: Document, file: string, line: number): unknown {
  try {
    return yamlDocumentValue(doc);
  } catch (error) {
    // Typically an alias whose anchor sat inside the removed build-nudges-ref.
    const detail = error instanceof Error ? error.message : String(error);
    throw new MigrationError(
      file,
      `removing spec.${BUILD_NUDGES_REF} would break this document (${detail}); edit it by hand`,
      line,
    );
  }
}

function hasBuildNudgesRef(value: unknown): boolean {
  const spec: unknown =
    typeof value === 'object' && value !== null ? (value as Record<string, unknown>).spec : undefined;
  return typeof spec === 'object' && spec !== null && BUILD_NUDGES_REF in spec;
}

/** `text` reads as one document with the expected data. */
function segmentMeans(text: string, expected: number): boolean {
  const digests = dataDigests(text);
  return digests?.length === 1 && digests[0] === expected;
}

function applyOp(doc: Document, op: DocOp, file: string): void {
  switch (op.kind) {
    case 'remove-build-nudges-ref': {
      const spec = doc.get('spec', true);
      if (!isMap(spec)) throw new MigrationError(file, 'Component spec must be a mapping');
      spec.delete(BUILD_NUDGES_REF);
      // Component requires spec, so an emptied spec stays as `{}` rather than null.
      if (spec.items.length === 0) spec.flow = true;
      return;
    }
    case 'set-api-version':
      doc.set('apiVersion', op.apiVersion);
      return;
    case 'append-nudges': {
      const spec = ensureMap(
        doc,
        doc.get('spec', true),
        () => {
          doc.set('spec', new YAMLMap());
        },
        file,
        'spec',
      );
      // `spec: {}` is a placeholder, not a style choice: grow it as a block mapping.
      if (spec.items.length === 0) spec.flow = false;
      appendItems(spec, 'nudges', op.entries.map(entryNode), file);
      return;
    }
    case 'remove-nudges': {
      const nudges = doc.getIn(['spec', 'nudges'], true);
      if (!isSeq(nudges)) throw new MigrationError(file, 'NudgeConfig spec.nudges must be a list');
      const removed = new Set(op.indexes);
      nudges.items = nudges.items.filter((_, index) => !removed.has(index));
      // An emptied list stays a list (`nudges: []`), not a null.
      if (nudges.items.length === 0) nudges.flow = true;
      return;
    }
    case 'append-resources': {
      const root = doc.contents;
      if (!isMap(root)) throw new MigrationError(file, 'kustomization must be a mapping');
      appendItems(root, 'resources', op.names.map(nameNode), file);
      return;
    }
    case 'remove-document':
      return;
  }
}

function ensureMap(doc: Document, node: unknown, create: () => void, file: string, what: string): YAMLMap {
  if (isMap(node)) return node;
  if (node === undefined || node === null || (isScalar(node) && node.value === null)) {
    create();
    const created = doc.get(what, true);
    if (isMap(created)) return created;
  }
  throw new MigrationError(file, `${what} must be a mapping`);
}

function appendItems(map: YAMLMap, key: string, items: readonly Node[], file: string): void {
  const existing = map.get(key, true);
  if (isSeq(existing)) {
    if (existing.items.length === 0) existing.flow = false;
    existing.items.push(...items);
    return;
  }
  if (existing === undefined || (isScalar(existing) && existing.value === null)) {
    const seq = new YAMLSeq();
    seq.items.push(...items);
    map.set(key, seq);
    return;
  }
  throw new MigrationError(file, `${key} must be a list`);
}

// ---------------------------------------------------------------------------------------------
// Surgical text edits. Each helper returns undefined when the source has a shape it does not
// handle; the caller then falls back to rendering the document.

type Range = readonly [number, number, number];

function rangeOf(node: unknown): Range | undefined {
  if (typeof node !== 'object' || node === null || !('range' in node)) return undefined;
  const range = (node as { range?: unknown }).range;
  return Array.isArray(range) && range.length === 3 ? (range as unknown as Range) : undefined;
}

function rangeStart(doc: ParsedDocument): number {
  return doc.range[0];
}

function rangeEnd(doc: ParsedDocument | undefined): number {
  return doc === undefined ? 0 : doc.range[2];
}

function lineStart(text: string, pos: number): number {
  return text.lastIndexOf('\n', pos - 1) + 1;
}

/** The offset just after the line break ending the line that holds `pos` (or the text end). */
function nextLineStart(text: string, pos: number): number {
  const newline = text.indexOf('\n', pos);
  return newline === -1 ? text.length : newline + 1;
}

/**
 * `edits` (non-overlapping) in the order they are made: by offset, and at one offset insertions
 * first, the last given first.
 */
export function inSpliceOrder(edits: readonly TextEdit[]): TextEdit[] {
  return edits
    .map((edit, index) => ({ edit, index }))
    .sort(
      (a, b) =>
        a.edit.start - b.edit.start || a.edit.end - a.edit.start - (b.edit.end - b.edit.start) || b.index - a.index,
    )
    .map(({ edit }) => edit);
}

/**
 * `text` with `edits` made, in one pass: a file of tens of thousands of edited documents must not
 * be copied once per edit.
 */
export function applyEdits(text: string, edits: readonly TextEdit[]): string {
  const pieces: string[] = [];
  let from = 0;
  for (const edit of inSpliceOrder(edits)) {
    pieces.push(text.slice(from, edit.start), edit.text);
    from = Math.max(from, edit.end);
  }
  pieces.push(text.slice(from));
  return pieces.join('');
}

function surgicalEdits(text: string, doc: ParsedDocument, ops: readonly DocOp[], eol: string): TextEdit[] | undefined {
  const edits: TextEdit[] = [];
  for (const op of ops) {
    const more = surgicalEdit(text, doc, op, eol);
    if (more === undefined) return undefined;
    edits.push(...more);
  }
  return edits;
}

function surgicalEdit(text: string, doc: ParsedDocument, op: DocOp, eol: string): TextEdit[] | undefined {
  const root = doc.contents;
  if (!isMap(root) || root.flow) return undefined;
  switch (op.kind) {
    case 'remove-build-nudges-ref':
      return removePairEdits(text, root, 'spec', BUILD_NUDGES_REF);
    case 'set-api-version':
      return replaceScalarEdits(text, root.get('apiVersion', true), op.apiVersion);
    case 'append-nudges': {
      const spec = root.get('spec', true);
      if (!isMap(spec) || spec.flow) return undefined;
      return appendToListEdits(text, spec, 'nudges', op.entries.map(entryLines), eol);
    }
    case 'remove-nudges': {
      const spec = root.get('spec', true);
      const nudges = isMap(spec) && !spec.flow ? spec.get('nudges', true) : undefined;
      return isSeq(nudges) ? removeItemsEdits(text, nudges, op.indexes) : undefined;
    }
    case 'append-resources':
      return appendToListEdits(
        text,
        root,
        'resources',
        op.names.map((name) => [yamlNameText(name)]),
        eol,
      );
    case 'remove-document':
      return [];
  }
}

function findPair(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((pair) => isScalar(pair.key) && pair.key.value === key);
}

/** Offset and column of a block-mapping key that starts its own line, else undefined. */
function blockKeyColumn(text: string, key: unknown): { start: number; column: number } | undefined {
  const range = rangeOf(key);
  if (range === undefined) return undefined;
  const start = lineStart(text, range[0]);
  const indent = text.slice(start, range[0]);
  return /^[ ]*$/.test(indent) ? { start, column: indent.length } : undefined;
}

/** Where the last line of a pair ends: after its value, or its key when the value is empty. */
function pairEnd(pair: Pair): number | undefined {
  const keyRange = rangeOf(pair.key);
  const valueRange = rangeOf(pair.value);
  if (keyRange === undefined) return undefined;
  return valueRange !== undefined && valueRange[1] > valueRange[0] ? valueRange[1] : keyRange[1];
}

function removePairEdits(text: string, root: YAMLMap, parentKey: string, key: string): TextEdit[] | undefined {
  const parentPair = findPair(root, parentKey);
  const parent = parentPair?.value;
  if (parentPair === undefined || !isMap(parent) || parent.flow) return undefined;
  const pair = findPair(parent, key);
  const keyStart = pair === undefined ? undefined : blockKeyColumn(text, pair.key);
  const end = pair === undefined ? undefined : pairEnd(pair);
  if (keyStart === undefined || end === undefined) return undefined;
  const edits: TextEdit[] = [{ start: keyStart.start, end: nextLineStart(text, end - 1), text: '' }];
  if (parent.items.length === 1) {
    // The parent (spec) would become null; Component requires it, so write `spec: {}`.
    const colon = colonAfter(text, parentPair.key);
    if (colon === undefined) return undefined;
    edits.push({ start: colon + 1, end: colon + 1, text: ' {}' });
  }
  return edits;
}

/** Removes whole lines of block-sequence items; undefined when the list would become empty. */
function removeItemsEdits(text: string, seq: YAMLSeq, indexes: readonly number[]): TextEdit[] | undefined {
  if (seq.flow || indexes.length >= seq.items.length) return undefined;
  const edits: TextEdit[] = [];
  for (const index of indexes) {
    const range = rangeOf(seq.items[index]);
    if (range === undefined) return undefined;
    const start = lineStart(text, range[0]);
    if (!/^ *- +$/.test(text.slice(start, range[0]))) return undefined;
    const next = rangeOf(seq.items[index + 1]);
    const end = next === undefined ? nextLineStart(text, range[1] - 1) : lineStart(text, next[0]);
    edits.push({ start, end, text: '' });
  }
  return edits;
}

function colonAfter(text: string, key: unknown): number | undefined {
  const range = rangeOf(key);
  if (range === undefined) return undefined;
  let at = range[1];
  while (text[at] === ' ' || text[at] === '\t') at++;
  return text[at] === ':' ? at : undefined;
}

function replaceScalarEdits(text: string, node: unknown, value: string): TextEdit[] | undefined {
  const range = rangeOf(node);
  if (!isScalar(node) || range === undefined) return undefined;
  let written: string;
  if (node.type === Scalar.PLAIN && yamlNameText(value) === value) written = value;
  else if (node.type === Scalar.QUOTE_DOUBLE) written = JSON.stringify(value);
  else if (node.type === Scalar.QUOTE_SINGLE && !value.includes("'")) written = `'${value}'`;
  else return undefined;
  return [{ start: range[0], end: range[1], text: written }];
}

/**
 * Appends items to the block sequence under `key`, copying the indentation of its first item, or
 * adds `key:` with a new block sequence after the map's last pair when the key is absent.
 */
function appendToListEdits(
  text: string,
  map: YAMLMap,
  key: string,
  items: readonly string[][],
  eol: string,
): TextEdit[] | undefined {
  const pair = findPair(map, key);
  if (pair === undefined) return addListPairEdits(text, map, key, items, eol);
  const seq = pair.value;
  if (!isSeq(seq) || seq.flow || seq.items.length === 0) return undefined;
  const first = rangeOf(seq.items[0]);
  const last = rangeOf(seq.items[seq.items.length - 1]);
  if (first === undefined || last === undefined) return undefined;
  const prefix = text.slice(lineStart(text, first[0]), first[0]);
  const match = /^( *)-( +)$/.exec(prefix);
  if (match === null) return undefined;
  const dashColumn = match[1]?.length ?? 0;
  const at = nextLineStart(text, last[1] - 1);
  const lead = at > 0 && text[at - 1] !== '\n' ? eol : '';
  return [{ start: at, end: at, text: lead + blockItemsText(items, dashColumn, prefix.length, eol) }];
}

function addListPairEdits(
  text: string,
  map: YAMLMap,
  key: string,
  items: readonly string[][],
  eol: string,
): TextEdit[] | undefined {
  const firstPair = map.items[0];
  const lastPair = map.items[map.items.length - 1];
  if (firstPair === undefined || lastPair === undefined) return undefined;
  const column = blockKeyColumn(text, firstPair.key)?.column;
  const end = pairEnd(lastPair);
  if (column === undefined || end === undefined) return undefined;
  const dashColumn = column + detectSequenceIndent(text, 2);
  const at = nextLineStart(text, end - 1);
  const lead = at > 0 && text[at - 1] !== '\n' ? eol : '';
  const keyLine = `${' '.repeat(column)}${key}:${eol}`;
  return [{ start: at, end: at, text: lead + keyLine + blockItemsText(items, dashColumn, dashColumn + 2, eol) }];
}

function blockItemsText(items: readonly string[][], dashColumn: number, contentColumn: number, eol: string): string {
  const dash = `${' '.repeat(dashColumn)}-${' '.repeat(Math.max(1, contentColumn - dashColumn - 1))}`;
  const continuation = ' '.repeat(contentColumn);
  return items.map((lines) => lines.map((line, i) => (i === 0 ? dash : continuation) + line + eol).join('')).join('');
}

// ---------------------------------------------------------------------------------------------
// Style detection for the fallback renderer.

/** How far the `-` of block sequences sits right of their parent key in this text (0 or 2 usually). */
function detectSequenceIndent(text: string, fallback: number): number {
  const match = /^( *)[^\s#-][^\n]*:[ \t]*(?:#[^\n]*)?\r?\n( *)- /m.exec(text);
  if (match === null) return fallback;
  return Math.max(0, (match[2]?.length ?? 0) - (match[1]?.length ?? 0));
}

function detectStyle(segment: string): ToStringOptions {
  const tight = /[{[][^\s{}[\]]/.test(segment) && !/[{[] /.test(segment);
  return {
    lineWidth: 0,
    minContentWidth: 0,
    indentSeq: detectSequenceIndent(segment, 2) > 0,
    flowCollectionPadding: !tight,
  };
}
