// The unified diff of a file the migration edits, computed from its edits instead of by diffing
// the two whole texts: jsdiff's Myers diff takes time proportional to the lines of the file times
// the lines changed, hours for a 30 MB file of Components that each lose two lines (issue 8). The
// lines each edit touches are diffed on their own (jsdiff's diffLines), and the hunks are assembled
// as jsdiff's structuredPatch assembles them, so the patch reads as createTwoFilesPatch prints it;
// the unchanged text between edits is counted, never split into lines.
import { diffLines, formatPatch, type HeaderOptions, type StructuredPatchHunk } from 'diff';
import type { TextEdit } from '../../domain/migrate-yaml.ts';

export interface PatchOptions {
  readonly context: number;
  readonly headerOptions: HeaderOptions;
}

/**
 * The unified diff of `before` and the text `edits` make of it. `edits` are non-overlapping and in
 * the order they are made (src/domain/migrate-yaml.ts inSpliceOrder).
 */
export function editsPatch(
  oldFileName: string,
  newFileName: string,
  before: string,
  edits: readonly TextEdit[],
  options: PatchOptions,
): string {
  return [...editsPatchChunks(oldFileName, newFileName, before, edits, options)].join('');
}

/**
 * editsPatch in pieces (the file headers, then each hunk as soon as it is complete), so that a
 * caller can write a diff of tens of thousands of hunks without holding it whole.
 */
export function* editsPatchChunks(
  oldFileName: string,
  newFileName: string,
  before: string,
  edits: readonly TextEdit[],
  options: PatchOptions,
): Generator<string> {
  yield formatPatch(
    { oldFileName, newFileName, oldHeader: undefined, newHeader: undefined, hunks: [] },
    options.headerOptions,
  );
  yield* hunksOf(partsOf(before, regionsOf(before, edits), options.context), options.context);
}

/** Whole lines of `before` that edits change, and what they become. */
interface Region {
  readonly start: number;
  readonly end: number;
  readonly after: string;
}

interface OpenRegion {
  readonly start: number;
  end: number;
  readonly pieces: string[];
  /** The offset of `before` the next piece starts at. */
  from: number;
  /** The new text so far ends a line (or is empty). */
  wholeLines: boolean;
}

function regionsOf(before: string, edits: readonly TextEdit[]): Region[] {
  const regions: Region[] = [];
  let open: OpenRegion | undefined;
  for (const edit of edits) {
    const start = lineStartOf(before, edit.start);
    if (open !== undefined && start > open.end) {
      regions.push(closed(before, open));
      open = undefined;
    }
    open ??= { start, end: start, pieces: [], from: start, wholeLines: true };
    for (const piece of [before.slice(open.from, edit.start), edit.text]) {
      open.pieces.push(piece);
      if (piece !== '') open.wholeLines = piece.endsWith('\n');
    }
    open.from = Math.max(open.from, edit.end);
    // The region ends where the new text ends a line too: at the line start the edit ends on, if
    // the new text so far is whole lines; else at the end of the line the edit ends in (or before).
    const atLineStart = edit.end === 0 || before[edit.end - 1] === '\n';
    open.end = Math.max(open.end, atLineStart && open.wholeLines ? edit.end : lineEndOf(before, edit.end));
  }
  if (open !== undefined) regions.push(closed(before, open));
  return regions;
}

function closed(before: string, region: OpenRegion): Region {
  return {
    start: region.start,
    end: region.end,
    after: region.pieces.join('') + before.slice(region.from, region.end),
  };
}

function lineStartOf(text: string, offset: number): number {
  // lastIndexOf reads a negative position as 0, where a line break would be found.
  return offset === 0 ? 0 : text.lastIndexOf('\n', offset - 1) + 1;
}

/** The offset after the line break that ends the line holding `offset` (the text's end without one). */
function lineEndOf(text: string, offset: number): number {
  const newline = text.indexOf('\n', offset);
  return newline === -1 ? text.length : newline + 1;
}

/**
 * One part of the diff as jsdiff's diffLines gives it: lines kept (a range of `before`, so that a
 * long one need not be split), removed or added.
 */
type Part =
  | { readonly kind: 'kept'; readonly text: string; readonly start: number; readonly end: number }
  | { readonly kind: 'removed' | 'added'; readonly lines: readonly string[] };

/**
 * Each region is diffed with up to `margin` unchanged lines around it (never more than half of
 * those between two regions, so that regions stay apart): where lines repeat (`---` between
 * documents), Myers' choice of which copy to keep depends on the lines around the change.
 */
function* partsOf(before: string, regions: readonly Region[], margin: number): Generator<Part> {
  // Kept lines are held back until the next change: two runs of them in a row are one part.
  let kept: { start: number; end: number } | undefined;
  const keep = (start: number, end: number): void => {
    if (start === end) return;
    if (kept?.end === start) kept.end = end;
    else kept = { start, end };
  };
  function* flush(): Generator<Part> {
    if (kept !== undefined) yield { kind: 'kept', text: before, start: kept.start, end: kept.end };
    kept = undefined;
  }
  let from = 0;
  for (const [i, region] of regions.entries()) {
    const start = linesBack(
      before,
      region.start,
      Math.min(margin, sharedGap(before, regions[i - 1], region, margin, 'after')),
    );
    const end = linesForward(
      before,
      region.end,
      Math.min(margin, sharedGap(before, region, regions[i + 1], margin, 'before')),
    );
    if (kept !== undefined && kept.end !== from) yield* flush();
    keep(from, start);
    const after = before.slice(start, region.start) + region.after + before.slice(region.end, end);
    let at = start;
    for (const change of diffLines(before.slice(start, end), after)) {
      if (change.added || change.removed) {
        yield* flush();
        yield { kind: change.added ? 'added' : 'removed', lines: splitLines(change.value) };
      } else keep(at, at + change.value.length);
      if (!change.added) at += change.value.length;
    }
    from = end;
  }
  keep(from, before.length);
  yield* flush();
}

/**
 * The lines between two regions (or a region and the text's edge) that one side may take: all of
 * them up to `margin` at an edge, else the first half for the region before, the rest for the one
 * after. Counted up to 2 * margin only.
 */
function sharedGap(
  text: string,
  first: Region | undefined,
  second: Region | undefined,
  margin: number,
  side: 'before' | 'after',
): number {
  const lines = countLines(text, first?.end ?? 0, second?.start ?? text.length, 2 * margin);
  if (first === undefined || second === undefined) return lines;
  const forFirst = Math.floor(lines / 2);
  return side === 'before' ? forFirst : lines - forFirst;
}

/** The lines of text[from, to), a last one without a line end included, counted up to `cap`. */
function countLines(text: string, from: number, to: number, cap: number): number {
  let count = 0;
  for (let at = from; at < to && count < cap; at = lineEndOf(text, at)) count++;
  return count;
}

function linesForward(text: string, from: number, n: number): number {
  let at = from;
  for (let k = 0; k < n && at < text.length; k++) at = lineEndOf(text, at);
  return at;
}

function linesBack(text: string, to: number, n: number): number {
  let at = to;
  for (let k = 0; k < n && at > 0; k++) at = lineStartOf(text, at - 1);
  return at;
}

/** Lines with their line ends, as jsdiff splits them. */
function splitLines(text: string): string[] {
  const lines = text.split('\n').map((line) => `${line}\n`);
  const last = lines.pop() ?? '';
  if (!text.endsWith('\n')) lines.push(last.slice(0, -1));
  return lines;
}

function keptCount(part: Part & { kind: 'kept' }): number {
  let count = 0;
  for (let at = part.text.indexOf('\n', part.start); at !== -1 && at < part.end; at = part.text.indexOf('\n', at + 1)) {
    count++;
  }
  return part.text[part.end - 1] === '\n' ? count : count + 1;
}

/** The first `n` lines of a kept part. */
function keptHead(part: Part & { kind: 'kept' }, n: number): string[] {
  const lines: string[] = [];
  let at = part.start;
  while (lines.length < n && at < part.end) {
    const next = Math.min(lineEndOf(part.text, at), part.end);
    lines.push(part.text.slice(at, next));
    at = next;
  }
  return lines;
}

/** The last `n` lines of a kept part. */
function keptTail(part: Part & { kind: 'kept' }, n: number): string[] {
  const lines: string[] = [];
  let end = part.end;
  while (lines.length < n && end > part.start) {
    const start = Math.max(lineStartOf(part.text, end - 1), part.start);
    lines.unshift(part.text.slice(start, end));
    end = start;
  }
  return lines;
}

/** Each part with the one before it and whether it is the last; then jsdiff's empty last part. */
function* withNeighbours(
  parts: Iterable<Part>,
): Generator<{ part: Part | undefined; prev: Part | undefined; last: boolean }> {
  let prev: Part | undefined;
  let held: Part | undefined;
  for (const part of parts) {
    if (held !== undefined) yield { part: held, prev, last: false };
    prev = held;
    held = part;
  }
  if (held !== undefined) yield { part: held, prev, last: true };
  yield { part: undefined, prev: held, last: true };
}

/**
 * jsdiff's structuredPatch hunk assembly (src/patch/create.js), over parts instead of lines, each
 * hunk formatted as formatPatch formats it as soon as it is complete.
 */
function* hunksOf(parts: Iterable<Part>, context: number): Generator<string> {
  let oldRangeStart = 0;
  let newRangeStart = 0;
  let range: string[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const { part, prev, last } of withNeighbours(parts)) {
    if (part !== undefined && part.kind !== 'kept') {
      if (oldRangeStart === 0) {
        oldRangeStart = oldLine;
        newRangeStart = newLine;
        if (prev?.kind === 'kept') {
          range = context > 0 ? keptTail(prev, context).map((line) => ` ${line}`) : [];
          oldRangeStart -= range.length;
          newRangeStart -= range.length;
        }
      }
      for (const line of part.lines) range.push((part.kind === 'added' ? '+' : '-') + line);
      if (part.kind === 'added') newLine += part.lines.length;
      else oldLine += part.lines.length;
      continue;
    }
    const count = part === undefined ? 0 : keptCount(part);
    if (oldRangeStart !== 0 && part !== undefined && count <= context * 2 && !last) {
      for (const line of keptHead(part, count)) range.push(` ${line}`);
    } else if (oldRangeStart !== 0) {
      const size = Math.min(count, context);
      if (part !== undefined) for (const line of keptHead(part, size)) range.push(` ${line}`);
      yield formatHunk({
        oldStart: oldRangeStart,
        oldLines: oldLine - oldRangeStart + size,
        newStart: newRangeStart,
        newLines: newLine - newRangeStart + size,
        lines: range,
      });
      oldRangeStart = 0;
      newRangeStart = 0;
      range = [];
    }
    oldLine += count;
    newLine += count;
  }
}

/**
 * A hunk as formatPatch prints it: a line without its LF is followed by git's "no newline"
 * marker, and an empty side starts one line early (the unified diff format's quirk).
 */
function formatHunk(hunk: StructuredPatchHunk): string {
  const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
  const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
  const lines = hunk.lines.map((line) => (line.endsWith('\n') ? line : `${line}\n\\ No newline at end of file\n`));
  return `@@ -${String(oldStart)},${String(hunk.oldLines)} +${String(newStart)},${String(hunk.newLines)} @@\n${lines.join('')}`;
}
