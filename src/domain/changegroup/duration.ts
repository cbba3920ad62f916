// `spec.timeout` is a Go duration (`24h`, `90m`, `1h30m`), the form Kubernetes users write
// everywhere else. The CRD accepts a subset (whole numbers of h, m, s) so that what the API server
// lets in, this parser and CEL's duration() all read the same way.

import { TIMEOUT_MAX_LENGTH, TIMEOUT_PATTERN } from '../../schema/changegroup.ts';

export { TIMEOUT_MAX_LENGTH, TIMEOUT_PATTERN } from '../../schema/changegroup.ts';
const TIMEOUT = new RegExp(TIMEOUT_PATTERN);
const PART = /([0-9]+)(h|m|s)/g;
const UNIT_MS = { h: 3_600_000, m: 60_000, s: 1000 } as const;
/** Go's time.Duration is int64 nanoseconds: about 292 years. Anything longer Go would refuse. */
const GO_MAX_DURATION_MS = 9_223_372_036_854;

export type DurationParse =
  { readonly ok: true; readonly milliseconds: number } | { readonly ok: false; readonly problem: string };

/** Milliseconds of a timeout, or why it is not one (empty, bad syntax, zero, too large). */
export function parseTimeout(text: string): DurationParse {
  if (text.length > TIMEOUT_MAX_LENGTH || !TIMEOUT.test(text)) {
    return { ok: false, problem: `"${text.slice(0, TIMEOUT_MAX_LENGTH)}" is not a duration such as 24h, 90m or 1h30m` };
  }
  let total = 0;
  for (const [, digits, unit] of text.matchAll(PART)) {
    total += Number(digits) * UNIT_MS[unit as keyof typeof UNIT_MS];
  }
  if (total === 0) return { ok: false, problem: 'must be longer than zero' };
  if (total > GO_MAX_DURATION_MS) return { ok: false, problem: `"${text}" is too long a duration` };
  return { ok: true, milliseconds: total };
}

const MINUTE_MS = 60_000;
const HOUR_MINUTES = 60;
const DAY_MINUTES = 24 * HOUR_MINUTES;

/**
 * An elapsed time as people read an age, in whole minutes and at most two units: `<1m`, `5m`,
 * `1h5m`, `3d4h` (kubectl's style). The dashboard shows how long a ChangeGroup has waited with it
 * (docs/decisions.md D14): minutes are as fine as that needs, and a coarse figure keeps the rendered
 * view unchanged between updates, so the live view is not sent again just because a second passed.
 * A negative time (clock skew between the API server and this process) reads as `<1m`.
 */
export function formatElapsed(ms: number): string {
  const minutes = Math.floor(Math.max(0, ms) / MINUTE_MS);
  if (minutes < 1) return '<1m';
  if (minutes < HOUR_MINUTES) return `${String(minutes)}m`;
  if (minutes < DAY_MINUTES) return twoUnits(Math.floor(minutes / HOUR_MINUTES), 'h', minutes % HOUR_MINUTES, 'm');
  return twoUnits(Math.floor(minutes / DAY_MINUTES), 'd', Math.floor((minutes % DAY_MINUTES) / HOUR_MINUTES), 'h');
}

function twoUnits(large: number, largeUnit: string, small: number, smallUnit: string): string {
  const first = `${String(large)}${largeUnit}`;
  return small === 0 ? first : `${first}${String(small)}${smallUnit}`;
}
