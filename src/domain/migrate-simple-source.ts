// The fast path of reading a YAML file for the migration: plain manifests, the YAML nearly every
// GitOps repository holds, read by the reader validate uses for them (simple-yaml.ts) instead of
// building a `yaml` syntax tree per document, which costs an order of magnitude more time and
// most of migrate's memory (issue 8). It yields what the `yaml` path (migrate-yaml-source.ts)
// yields for the same file: the same data, positions, document spans and prepared removal of
// build-nudges-ref; test/domain/migrate-simple-source.test.ts holds it to that. A file outside the
// subset, or with an empty document (whose span this reader does not place as `yaml` does), is left
// to the `yaml` path.
import { BUILD_NUDGES_REF, type Locator } from './migrate-model.ts';
import {
  dataDigest,
  withoutNudgesRefDigest,
  type PreparedEdit,
  type TextEdit,
  type YamlSource,
  type YamlSpan,
} from './migrate-yaml-source.ts';
import { simpleYamlDocuments, type PositionNode } from './simple-yaml.ts';
import { lineFeedOffsets, withLineFeeds } from './yaml-reader.ts';

/**
 * readYamlSource for a file in the fast reader's subset; undefined for any other (the caller reads
 * it with `yaml`, which also reports its errors).
 */
export function readSimpleSource<T>(
  path: string,
  text: string,
  classify: (value: unknown, locate: Locator) => T,
): { source: YamlSource; results: T[] } | undefined {
  const read = withLineFeeds(text);
  const toInput = lineFeedOffsets(text);
  const lines = new LineStarts(read);
  const documents: YamlSpan[] = [];
  const results: T[] = [];
  let start = 0;
  let line = 1;
  const reader = simpleYamlDocuments(read);
  let step = reader.next();
  let ending = false; // a document yaml ends where this reader cannot say: it must be the last
  for (; step.done !== true; step = reader.next()) {
    if (ending) return undefined;
    const region = step.value;
    if (region.kind === 'empty') return undefined;
    const { value, position } = region;
    results.push(classify(value, (fieldPath) => positionLine(position, fieldPath)));
    // Only the last document's end does not matter (it is the text's end).
    ending = region.end === undefined;
    const end = region.end === undefined ? text.length : toInput(region.end);
    const removal = preparedRemoval(value, position, lines, toInput);
    // One shape for every span, removal or not: a spread would give each a property array too.
    const span: YamlSpan = { start, end, line, digest: dataDigest(value), empty: false, removal };
    documents.push(span);
    start = end;
    line = region.endLine;
  }
  // The reader declined part-way (or read nothing): the `yaml` path reads the whole file again.
  if (!step.value || documents.length === 0) return undefined;
  const last = documents.pop();
  if (last !== undefined) documents.push({ ...last, end: text.length });
  return { source: { path, text, documents }, results };
}

/** The line of the deepest part of the document along `fieldPath` (as the `yaml` path locates). */
function positionLine(node: PositionNode, fieldPath: readonly (string | number)[]): number {
  let current = node;
  for (const segment of fieldPath) {
    const next = typeof segment === 'number' ? current.items?.[segment] : current.fields?.get(segment)?.value;
    if (next === undefined) break;
    current = next;
  }
  return current.line;
}

/**
 * What migrate-yaml.ts prepares from a `yaml` syntax tree (removePairEdits): the whole lines from
 * `build-nudges-ref:` to its last item, and `{}` after `spec:` when nothing else is left in it.
 */
function preparedRemoval(
  value: unknown,
  position: PositionNode,
  lines: LineStarts,
  toInput: (offset: number) => number,
): PreparedEdit | undefined {
  const digest = withoutNudgesRefDigest(value);
  const spec = position.fields?.get('spec');
  const field = spec?.value.fields?.get(BUILD_NUDGES_REF);
  if (digest === undefined || spec === undefined || field === undefined) return undefined;
  const last = Math.max(field.line, ...(field.value.items ?? []).map((item) => item.line));
  const specLine = lines.offsetOf(spec.line);
  const edits: TextEdit[] = [
    { start: toInput(lines.offsetOf(field.line)), end: toInput(lines.offsetOf(last + 1)), text: '' },
  ];
  if (spec.value.fields?.size === 1) {
    const colon = specLine + spec.column - 1 + 'spec'.length;
    if (lines.text[colon] !== ':') return undefined;
    edits.push({ start: toInput(colon + 1), end: toInput(colon + 1), text: ' {}' });
  }
  return { edits, digest };
}

/** Offsets of line starts, found moving forward through the text (documents are read in order). */
class LineStarts {
  readonly text: string;
  #line = 1;
  #offset = 0;

  constructor(text: string) {
    this.text = text;
  }

  /** Where 1-based `line` starts; the text's end past its last line. */
  offsetOf(line: number): number {
    if (line < this.#line) {
      this.#line = 1;
      this.#offset = 0;
    }
    while (this.#line < line) {
      const newline = this.text.indexOf('\n', this.#offset);
      if (newline === -1) return this.text.length;
      this.#offset = newline + 1;
      this.#line++;
    }
    return this.#offset;
  }
}
