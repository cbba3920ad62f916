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
