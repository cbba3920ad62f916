// The managed block's fixed parts: its markers, its checkbox lines, how it is located in a
// description and how it is fingerprinted. Render and parse share these so they cannot drift.
import { sha256Hex } from './sha256.ts';
import { SKIP_CI } from './skip-markers.ts';

export const MANAGED_BLOCK_VERSION = 'v1';
export const BEGIN_MARKER = `<!-- nudger:managed:begin ${MANAGED_BLOCK_VERSION} -->`;
const END_MARKER_PREFIX = '<!-- nudger:managed:end';

// Markers must sit alone on their line; a trailing CR (a forge that stored CRLF) is tolerated.
const BEGIN_LINE = /^<!-- nudger:managed:begin(?: [^>]*)? -->\s*$/;
const END_LINE = /^<!-- nudger:managed:end(?<attributes>(?: [^>]*)?) -->\s*$/;

export const BUILD_NOW_LABEL = 'build now with the components ready so far';
export const REBASE_LABEL = 'rebase: discard manual changes';
const CHECKBOX_LINE = /^\s*[-*+]\s+\[([ xX])\]\s+(.*?)\s*$/;

export interface EndMarkerAttributes {
  readonly skipCi: boolean;
  /** Fingerprint of the human text around the block when nudger last wrote it. */
  readonly outside: string;
  /** Fingerprint of the block content, boxes unticked and `[skip ci]` line removed. */
  readonly sha256: string;
}

export function endMarker(attributes: EndMarkerAttributes): string {
  const skipCi = attributes.skipCi ? 'on' : 'off';
  return `${END_MARKER_PREFIX} ${MANAGED_BLOCK_VERSION} skip-ci=${skipCi} outside=${attributes.outside} sha256=${attributes.sha256} -->`;
}

/** Reads the end marker's attributes; undefined fields when someone mangled them. */
function parseEndAttributes(attributes: string): Partial<EndMarkerAttributes> & { version?: string } {
  const words = attributes.trim().split(/\s+/);
  const values = new Map<string, string>();
  for (const word of words.slice(1)) {
    const eq = word.indexOf('=');
    if (eq > 0) values.set(word.slice(0, eq), word.slice(eq + 1));
  }
  const skipCi = values.get('skip-ci');
  const hex = (v: string | undefined) => (v !== undefined && /^[0-9a-f]{64}$/.test(v) ? v : undefined);
  return {
    ...(words[0] !== undefined && words[0] !== '' ? { version: words[0] } : {}),
    ...(skipCi === 'on' || skipCi === 'off' ? { skipCi: skipCi === 'on' } : {}),
    ...(hex(values.get('outside')) !== undefined ? { outside: hex(values.get('outside')) } : {}),
    ...(hex(values.get('sha256')) !== undefined ? { sha256: hex(values.get('sha256')) } : {}),
  };
}

export interface LocatedBlock {
  /** Text before the begin marker's line, byte for byte. */
  readonly before: string;
  /** From the start of the begin marker's line to the end of the end marker's line. */
  readonly block: string;
  /** Text after the end marker's line (starting with its line break, if any), byte for byte. */
  readonly after: string;
  /** The lines strictly between the markers, without line breaks (a trailing CR is kept). */
  readonly contentLines: readonly string[];
  readonly end: Partial<EndMarkerAttributes> & { version?: string };
}

export type BlockSearch =
  { readonly found: true; readonly located: LocatedBlock } | { readonly found: false; readonly markerSeen: boolean };

/**
 * Finds the first begin marker that is followed by an end marker with no other begin marker in
 * between. A stray marker a human pasted before the real block is thereby skipped over.
 */
export function locateManagedBlock(text: string): BlockSearch {
  let lineStart = 0;
  let begin: { start: number; contentStart: number } | undefined;
  let markerSeen = false;
  while (lineStart <= text.length) {
    const newline = text.indexOf('\n', lineStart);
    const lineEnd = newline === -1 ? text.length : newline;
    const line = text.slice(lineStart, lineEnd);
    if (line.startsWith('<!-- nudger:managed:')) {
      if (BEGIN_LINE.test(line)) {
        markerSeen = true;
        begin = { start: lineStart, contentStart: newline === -1 ? text.length : newline + 1 };
      } else {
        const end = END_LINE.exec(line);
        if (end) {
          markerSeen = true;
          if (begin !== undefined) {
            const content = begin.contentStart <= lineStart ? text.slice(begin.contentStart, lineStart) : '';
            const contentLines = content === '' ? [] : content.slice(0, -1).split('\n');
            return {
              found: true,
              located: {
                before: text.slice(0, begin.start),
                block: text.slice(begin.start, lineEnd),
                after: text.slice(lineEnd),
                contentLines,
                end: parseEndAttributes(end.groups?.attributes ?? ''),
              },
            };
          }
        }
      }
    }
    if (newline === -1) break;
    lineStart = newline + 1;
  }
  return { found: false, markerSeen };
}

/** Which managed checkbox a line is, and whether it is ticked. */
export function readCheckbox(
  line: string,
): { readonly box: 'buildNow' | 'rebase'; readonly ticked: boolean } | undefined {
  const match = CHECKBOX_LINE.exec(line);
  if (!match) return undefined;
  const label = match[2] ?? '';
  const ticked = match[1] !== ' ';
  if (label === BUILD_NOW_LABEL) return { box: 'buildNow', ticked };
  if (label === REBASE_LABEL) return { box: 'rebase', ticked };
  return undefined;
}

export function checkboxLine(label: string, ticked: boolean): string {
  return `- [${ticked ? 'x' : ' '}] ${label}`;
}

/**
 * Fingerprint of the block content. Normalised so that what humans are invited to do (tick a box,
 * delete the `[skip ci]` line) and what forges do on their own (CRLF, trailing blanks, blank-line
 * changes in the web editor) do not count as tampering.
 */
export function fingerprintBlock(contentLines: readonly string[], skipCi: boolean, outside: string): string {
  const normalised: string[] = [
    `nudger-managed ${MANAGED_BLOCK_VERSION}`,
    `skip-ci=${skipCi ? 'on' : 'off'}`,
    `outside=${outside}`,
  ];
  for (const raw of contentLines) {
    const line = raw.trimEnd();
    if (line === '' || line === SKIP_CI) continue;
    const box = readCheckbox(line);
    normalised.push(box ? checkboxLine(box.box === 'buildNow' ? BUILD_NOW_LABEL : REBASE_LABEL, false) : line);
  }
  return sha256Hex(normalised.join('\n'));
}

function normaliseHumanText(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trimEnd())
    .join('\n')
    .trim();
}

/** Fingerprint of the human text around the block, tolerant of forge whitespace rewrites. */
export function fingerprintOutside(before: string, after: string): string {
  return sha256Hex(`${normaliseHumanText(before)}\u0000${normaliseHumanText(after)}`);
}
