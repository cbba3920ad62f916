// The dispatcher's done-marker (docs/decisions.md N18): one annotation on the build PipelineRun that
// names every target of that build and where its nudge stands. It is the dispatcher's only memory,
// so it must survive restarts, replicas and hand edits without ever reading as "nothing done": a
// value this module cannot read is a typed problem, never an empty marker, because an empty marker
// would fire every target a second time.
//
//   marker = "v1" *(" " entry)              entries sorted by name, each name once
//   entry  = target "=" state | "*=skipped:" reason       ("*" is the build itself, alone)
//   state  = "pullRequest" | "held:" changegroup | "failed:" reason | "skipped:" reason   (final)
//          | "holding:" changegroup                       (the held-nudge record is being created)
//          | "firing:" attempt ":" time                   (attempt started, result not yet written)
//          | "retry:" failures ":" time ":" reason        (failed so often; next attempt not before time)
//   time   = YYYYMMDD "T" HHMMSS "Z" (UTC)      reason = a kebab-case token of at most 63 characters
import { dns1123SubdomainProblem } from '../../schema/names.ts';
import { compareStrings } from '../compare.ts';
import { isDns1123Label } from '../labels.ts';

/** The done-marker on the build PipelineRun. */
export const DISPATCH_MARKER_ANNOTATION = 'nudger.konflux-ci.dev/nudges';
/** Held on the build PipelineRun from before the first effect until every target is final. */
export const DISPATCH_FINALIZER = 'nudger.konflux-ci.dev/nudge';
export const MARKER_VERSION = 'v1';
/** The entry name that stands for the build as a whole (never a component name). */
export const BUILD_ENTRY = '*';
/** Attempts are counted in at most three digits; the policy refuses more. */
export const MAX_MARKER_ATTEMPTS = 999;
export const MAX_REASON_LENGTH = 63;

export type TargetState =
  /** Fired: the direct executor opened or updated the PR, or the renovate executor created its run. */
  | { readonly kind: 'pullRequest' }
  /** Handed to a ChangeGroup through the held-nudge record; fired after all if it releases it (N19). */
  | { readonly kind: 'held'; readonly changeGroup: string }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'skipped'; readonly reason: string }
  /** Decided held; the record is being created (write-ahead, so a crash completes the same hold). */
  | { readonly kind: 'holding'; readonly changeGroup: string }
  /** Attempt `attempt` started at `startedAt` (ms); found on a later decision, it was interrupted. */
  | { readonly kind: 'firing'; readonly attempt: number; readonly startedAt: number }
  /** `failures` attempts failed, the last for `reason`; the next not before `notBefore` (ms). */
  | { readonly kind: 'retry'; readonly failures: number; readonly notBefore: number; readonly reason: string };

export interface MarkerEntry {
  /** A target component, or BUILD_ENTRY. */
  readonly name: string;
  readonly state: TargetState;
}

/** Entries sorted by name (code-unit order), each name once. */
export interface DispatchMarker {
  readonly entries: readonly MarkerEntry[];
}

export const EMPTY_MARKER: DispatchMarker = Object.freeze({ entries: Object.freeze([]) });

export interface MarkerProblem {
  readonly annotation: typeof DISPATCH_MARKER_ANNOTATION;
  /** Names the position and the rule broken; quotes at most 64 characters of the value. */
  readonly message: string;
}

export type MarkerReading =
  { readonly ok: true; readonly marker: DispatchMarker } | { readonly ok: false; readonly problem: MarkerProblem };

/** A marker nudger was asked to write that it could not read back: a programming error. */
export class MarkerError extends Error {
  readonly entry: string;
  constructor(entry: string, reason: string) {
    super(`${DISPATCH_MARKER_ANNOTATION} entry ${JSON.stringify(entry.slice(0, 64))}: ${reason}`);
    this.name = 'MarkerError';
    this.entry = entry;
  }
}

const FINAL_KINDS: ReadonlySet<TargetState['kind']> = new Set(['pullRequest', 'held', 'failed', 'skipped']);

export function isFinal(state: TargetState): boolean {
  return FINAL_KINDS.has(state.kind);
}

/** Every entry final: the finalizer may go and nothing is left to do. */
export function isSettled(marker: DispatchMarker): boolean {
  return marker.entries.every((entry) => isFinal(entry.state));
}

export function stateOf(marker: DispatchMarker | undefined, name: string): TargetState | undefined {
  return marker?.entries.find((entry) => entry.name === name)?.state;
}

/** `marker` with `entries` put in (replacing entries of the same name), sorted. */
export function withEntries(marker: DispatchMarker | undefined, entries: readonly MarkerEntry[]): DispatchMarker {
  const byName = new Map((marker ?? EMPTY_MARKER).entries.map((entry) => [entry.name, entry]));
  for (const entry of entries) byName.set(entry.name, entry);
  return { entries: [...byName.values()].sort((a, b) => compareStrings(a.name, b.name)) };
}

const REASON = /^[a-z0-9]+(-[a-z0-9]+)*$/;

export function isReasonToken(text: string): boolean {
  return text.length <= MAX_REASON_LENGTH && REASON.test(text);
}

/**
 * A reason token from a free-form classification (lower case, runs of anything else become one
 * `-`, at most 63 characters), or `unclassified` when nothing is left. For the controller's error
 * classes; messages belong in Events, never in the marker.
 */
export function reasonToken(text: string): string {
  const token = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_REASON_LENGTH)
    .replace(/^-+|-+$/g, '');
  return token === '' ? 'unclassified' : token;
}

const TIME = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

/** `20250115T100000Z`: whole seconds (rounded down), UTC, no `:` so it can sit between separators. */
export function formatMarkerTime(ms: number): string {
  const iso = new Date(Math.floor(ms / 1000) * 1000).toISOString();
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}T${iso.slice(11, 13)}${iso.slice(14, 16)}${iso.slice(17, 19)}Z`;
}

/** The instant (ms) a marker time names, or undefined when it is not one (month 13, Feb 30, ...). */
export function parseMarkerTime(text: string): number | undefined {
  const match = TIME.exec(text);
  if (match === null) return undefined;
  const [, year, month, day, hour, minute, second] = match.map(Number);
  const ms = Date.UTC(year ?? 0, (month ?? 0) - 1, day, hour, minute, second);
  // Date.UTC rolls over (Feb 30 → Mar 2); a real time formats back to the same text.
  return Number.isFinite(ms) && ms >= 0 && formatMarkerTime(ms) === text ? ms : undefined;
}

const COUNT = /^[1-9][0-9]{0,2}$/;
const LAST_TIME = Date.UTC(10000, 0, 1);

function stateText(state: TargetState): string {
  switch (state.kind) {
    case 'pullRequest':
      return 'pullRequest';
    case 'held':
    case 'holding':
      return `${state.kind}:${state.changeGroup}`;
    case 'failed':
    case 'skipped':
      return `${state.kind}:${state.reason}`;
    case 'firing':
      return `firing:${String(state.attempt)}:${formatMarkerTime(state.startedAt)}`;
    case 'retry':
      return `retry:${String(state.failures)}:${formatMarkerTime(state.notBefore)}:${state.reason}`;
  }
}

/** Why `entry` cannot be written, or undefined: what serialize refuses and parse reports. */
function entryProblem(entry: MarkerEntry): string | undefined {
  const { name, state } = entry;
  if (name === BUILD_ENTRY) {
    if (state.kind !== 'skipped') return `the build entry ${BUILD_ENTRY} can only be skipped`;
  } else if (!isDns1123Label(name)) {
    return 'the target is not a component name (DNS-1123 label)';
  }
  switch (state.kind) {
    case 'pullRequest':
      return undefined;
    case 'held':
    case 'holding': {
      const problem = dns1123SubdomainProblem(state.changeGroup);
      return problem === undefined ? undefined : `the ChangeGroup name ${problem}`;
    }
    case 'failed':
    case 'skipped':
    case 'retry':
      if (!isReasonToken(state.reason)) return 'the reason is not a kebab-case token of at most 63 characters';
      if (state.kind !== 'retry') return undefined;
      return countProblem(state.failures, 'failures') ?? timeProblem(state.notBefore);
    case 'firing':
      return countProblem(state.attempt, 'attempt') ?? timeProblem(state.startedAt);
  }
}

function countProblem(n: number, what: string): string | undefined {
  return Number.isInteger(n) && n >= 1 && n <= MAX_MARKER_ATTEMPTS
    ? undefined
    : `${what} must be a whole number from 1 to ${String(MAX_MARKER_ATTEMPTS)}`;
}

function timeProblem(ms: number): string | undefined {
  // 1970 to 9999: four-digit years (the format has no room for more) that Date.UTC reads as given.
  return Number.isFinite(ms) && ms >= 0 && ms < LAST_TIME && ms % 1000 === 0
    ? undefined
    : 'the time must be a whole second from 1970 to the end of 9999';
}

/** The annotation value: canonical, so equal markers always serialise to equal text. */
export function serializeMarker(marker: DispatchMarker): string {
  const parts = [MARKER_VERSION];
  let previous: string | undefined;
  for (const entry of marker.entries) {
    const text = `${entry.name}=${stateText(entry.state)}`;
    const problem = entryProblem(entry);
    if (problem !== undefined) throw new MarkerError(text, problem);
    if (previous !== undefined && compareStrings(previous, entry.name) >= 0) {
      throw new MarkerError(text, 'entries must be sorted by name, each name once');
    }
    previous = entry.name;
    parts.push(text);
  }
  if (marker.entries.length > 1 && marker.entries.some((entry) => entry.name === BUILD_ENTRY)) {
    throw new MarkerError(BUILD_ENTRY, 'the build entry stands alone');
  }
  return parts.join(' ');
}

function problem(message: string): MarkerReading {
  return { ok: false, problem: { annotation: DISPATCH_MARKER_ANNOTATION, message } };
}

function quote(text: string): string {
  return JSON.stringify(text.length > 64 ? `${text.slice(0, 64)}...` : text);
}

/** The state a marker entry's text names, or why it names none. */
function parseState(text: string): TargetState | string {
  const [kind = '', ...fields] = text.split(':');
  const [first = '', second = '', third = ''] = fields;
  const arity = (n: number): string | undefined =>
    fields.length === n ? undefined : `${kind} takes ${String(n)} field(s) after it, separated by ':'`;
  switch (kind) {
    case 'pullRequest':
      return arity(0) ?? { kind };
    case 'held':
    case 'holding':
      return arity(1) ?? { kind, changeGroup: first };
    case 'failed':
    case 'skipped':
      return arity(1) ?? { kind, reason: first };
    case 'firing': {
      const startedAt = parseMarkerTime(second);
      if (arity(2) !== undefined || !COUNT.test(first) || startedAt === undefined) {
        return 'firing takes an attempt (1-999) and a time (YYYYMMDDTHHMMSSZ): firing:<attempt>:<time>';
      }
      return { kind, attempt: Number(first), startedAt };
    }
    case 'retry': {
      const notBefore = parseMarkerTime(second);
      if (arity(3) !== undefined || !COUNT.test(first) || notBefore === undefined) {
        return 'retry takes failures (1-999), a time (YYYYMMDDTHHMMSSZ) and a reason: retry:<failures>:<time>:<reason>';
      }
      return { kind, failures: Number(first), notBefore, reason: third };
    }
    default:
      return `unknown state ${quote(kind)} (pullRequest, held, failed, skipped, holding, firing or retry)`;
  }
}

/**
 * Reads the annotation value. Whitespace between entries may be any run of blanks or newlines and
 * entries may come in any order (a human may have edited it); each entry must be exactly what
 * serializeMarker writes, and an unknown version, state or name is a problem, not something to skip.
 */
export function parseMarker(text: string): MarkerReading {
  const [version, ...items] = text.trim().split(/\s+/);
  if (version !== MARKER_VERSION) {
    return problem(`starts with ${quote(version ?? '')}, not the version ${MARKER_VERSION} this nudger reads`);
  }
  const entries: MarkerEntry[] = [];
  const seen = new Set<string>();
  for (const [index, item] of items.entries()) {
    const where = `entry ${String(index + 1)} ${quote(item)}`;
    const equals = item.indexOf('=');
    if (equals <= 0) return problem(`${where} is not <target>=<state>`);
    const name = item.slice(0, equals);
    const state = parseState(item.slice(equals + 1));
    if (typeof state === 'string') return problem(`${where}: ${state}`);
    const entry = { name, state };
    const invalid = entryProblem(entry);
    if (invalid !== undefined) return problem(`${where}: ${invalid}`);
    if (seen.has(name)) return problem(`${where}: ${name} is named twice`);
    seen.add(name);
    entries.push(entry);
  }
  if (seen.has(BUILD_ENTRY) && entries.length > 1) {
    return problem(`the build entry ${BUILD_ENTRY} stands alone, but there are ${String(entries.length - 1)} more`);
  }
  return { ok: true, marker: { entries: entries.sort((a, b) => compareStrings(a.name, b.name)) } };
}
