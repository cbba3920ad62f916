// A YAML file as the migration reads it: through the reader `validate` uses (yaml-reader.ts), so it
// reads exactly the files kubectl and validate read, one document at a time. What is kept of each
// document is small: where it lies in the file as written, the line it starts on, and a digest of
// its data; its syntax tree is dropped once it is classified. A document the plan edits, or whose
// position a message needs, is read again from its own text (yamlSegment), so that memory stays
// proportional to the input however many documents a file holds (issue 8).
import type { Document } from 'yaml';
import { fnv1a } from './fnv1a.ts';
import { MigrationError } from './migrate-error.ts';
import { BUILD_NUDGES_REF, type Locator } from './migrate-model.ts';
import { isRecord } from './records.ts';
import { simpleYamlDocuments } from './simple-yaml.ts';
import { YamlReadError, documentValue, readYamlDocuments, withLineFeeds, type ReadDocument } from './yaml-reader.ts';

export interface YamlSource {
  readonly path: string;
  readonly text: string;
  /** Every document of the stream, empty ones included, in order. */
  readonly documents: readonly YamlSpan[];
}

/** Where one document lies in the file as written. */
export interface YamlSpan {
  /** From the end of the previous document (0 for the first): its directives, `---` and comments. */
  readonly start: number;
  /** To its own end (the end of the text for the last document). */
  readonly end: number;
  /** The line `start` is on. */
  readonly line: number;
  /**
   * Of its data (dataDigest), to check a rewritten file still holds the documents it kept;
   * undefined when its data is null (a document of comments only): such a document is not compared.
   */
  readonly digest: number | undefined;
  /** It holds comments only. */
  readonly empty: boolean;
  /** The edit that removes its `spec.build-nudges-ref`, prepared while it was read (see prepare). */
  readonly removal: PreparedEdit | undefined;
}

/** Edits of the file as written, and the digest of the document's data once they are made. */
export interface PreparedEdit {
  readonly edits: readonly TextEdit[];
  readonly digest: number;
}

/** An edit of a text: the text from `start` to `end` becomes `text`. */
export interface TextEdit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/**
 * Reads every document of `text`, giving each one's data and a locator valid during the call to
 * `classify`; `prepare` may compute an edit from the document's syntax tree while it is at hand.
 * Throws MigrationError (file and line) for text that is not YAML nudger can read.
 */
export function readYamlSource<T>(
  path: string,
  text: string,
  classify: (value: unknown, locate: Locator) => T,
  prepare: (read: ReadDocument, value: unknown) => PreparedEdit | undefined,
): { source: YamlSource; results: T[] } {
  const documents: YamlSpan[] = [];
  const results: T[] = [];
  let start = 0;
  let line = 1;
  for (const read of readDocuments(path, text, 1)) {
    const value = valueOf(path, read, 1);
    results.push(classify(value, (fieldPath) => lineOf(read, fieldPath)));
    const end = read.toInput(read.doc.range[2]);
    const removal = prepare(read, value);
    const span: YamlSpan = { start, end, line, digest: digestOf(value), empty: read.doc.contents === null, removal };
    documents.push(span);
    start = end;
    line = read.lines.linePos(read.doc.range[2]).line;
  }
  const last = documents.pop();
  if (last !== undefined) documents.push({ ...last, end: text.length });
  return { source: { path, text, documents }, results };
}

/**
 * The line of the value at a path in one document, read again from the document's own text when
 * asked (positions are wanted for a few documents only: those a message names).
 */
export function yamlLocator(source: YamlSource, index: number): Locator {
  return (fieldPath) => {
    const span = source.documents[index];
    if (span === undefined) return undefined;
    const read = yamlSegment(source, index);
    const line = lineOf(read, fieldPath);
    return line === undefined ? undefined : span.line + line - 1;
  };
}

/**
 * One document read again from its own text: offsets and lines are the segment's. Read alone it
 * must be the same document (one, with the same data), or the migration refuses rather than guess.
 */
export function yamlSegment(source: YamlSource, index: number): ReadDocument {
  const span = source.documents[index];
  if (span === undefined) throw new MigrationError(source.path, 'internal: document index out of range');
  const reads = [...readDocuments(source.path, source.text.slice(span.start, span.end), span.line)];
  const read = reads[0];
  if (reads.length !== 1 || read === undefined || digestOf(valueOf(source.path, read, span.line)) !== span.digest) {
    throw new MigrationError(source.path, 'could not read this document on its own to rewrite it', span.line);
  }
  return read;
}

/** A digest of a document's data as JSON; documents with equal digests are taken to be equal. */
export function dataDigest(value: unknown): number {
  const json = JSON.stringify(value);
  // 53 bits from two passes: a rewritten file holds thousands of documents, none may pass unseen.
  return fnv1a(json, 0x811c9dc5) * 0x200000 + (fnv1a(json, 0x050c5d1f) >>> 11);
}

/**
 * The digest of a Component's data without its `spec.build-nudges-ref`, as removing the key from
 * its syntax tree leaves it (`spec: {}` when nothing else is left); undefined when it has none.
 */
export function withoutNudgesRefDigest(value: unknown): number | undefined {
  const spec = isRecord(value) ? value.spec : undefined;
  if (!isRecord(value) || !isRecord(spec) || !(BUILD_NUDGES_REF in spec)) return undefined;
  const { [BUILD_NUDGES_REF]: _removed, ...rest } = spec;
  return dataDigest({ ...value, spec: rest });
}

/**
 * The digests of the documents of `text` whose data is not null, read as validate reads them (the
 * fast reader when it can, else `yaml`); undefined when it is not YAML nudger reads.
 */
export function dataDigests(text: string): number[] | undefined {
  const read = withLineFeeds(text);
  const digests: number[] = [];
  const reader = simpleYamlDocuments(read);
  let step = reader.next();
  for (; step.done !== true; step = reader.next())
    if (step.value.kind === 'document') digests.push(dataDigest(step.value.value));
  if (step.value) return digests;
  digests.length = 0;
  try {
    for (const document of readYamlDocuments(read)) {
      const digest = digestOf(documentValue(document));
      if (digest !== undefined) digests.push(digest);
    }
  } catch (error) {
    if (error instanceof YamlReadError) return undefined;
    throw error;
  }
  return digests;
}

function digestOf(value: unknown): number | undefined {
  return value === null ? undefined : dataDigest(value);
}

/** The data of a document as the migration compares it: aliases expanded without validate's limit. */
export function yamlDocumentValue(doc: Document): unknown {
  return doc.toJS({ maxAliasCount: -1 });
}

function* readDocuments(path: string, text: string, firstLine: number): Generator<ReadDocument> {
  try {
    yield* readYamlDocuments(text);
  } catch (error) {
    throw asMigrationError(path, error, firstLine);
  }
}

function valueOf(path: string, read: ReadDocument, firstLine: number): unknown {
  try {
    return documentValue(read);
  } catch (error) {
    throw asMigrationError(path, error, firstLine);
  }
}

function asMigrationError(path: string, error: unknown, firstLine: number): unknown {
  if (!(error instanceof YamlReadError)) return error;
  return new MigrationError(path, `not valid YAML: ${error.reason}`, firstLine + error.line - 1);
}

/** The line of the deepest node along `fieldPath` that has a position; undefined without one. */
function lineOf(read: ReadDocument, fieldPath: readonly (string | number)[]): number | undefined {
  const { doc } = read;
  for (let depth = fieldPath.length; depth >= 0; depth--) {
    const node: unknown = depth === 0 ? doc.contents : doc.getIn(fieldPath.slice(0, depth), true);
    const offset = startOf(node);
    if (offset !== undefined) return read.lines.linePos(offset).line;
  }
  return undefined;
}

function startOf(node: unknown): number | undefined {
  if (typeof node !== 'object' || node === null || !('range' in node)) return undefined;
  const range = (node as { range?: unknown }).range;
  return Array.isArray(range) && typeof range[0] === 'number' ? range[0] : undefined;
}
