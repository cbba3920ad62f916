// A regex-free DNS-1123 label check. Validation asks it for every end of every edge, thousands of
// times per run, so it must be cheap; names.ts stays the single source of the rule and its wording,
// and a property test holds the two to the same verdict.
import { DNS1123_LABEL_MAX_LENGTH, dns1123LabelProblem } from '../schema/names.ts';

const LOWER_A = 0x61;
const LOWER_Z = 0x7a;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;
const HYPHEN = 0x2d;

/** True exactly when `dns1123LabelProblem(name)` is undefined. */
export function isDns1123Label(name: string): boolean {
  const last = name.length - 1;
  if (last < 0 || last >= DNS1123_LABEL_MAX_LENGTH) return false;
  for (let i = 0; i <= last; i += 1) {
    const c = name.charCodeAt(i);
    const alphanumeric = (c >= LOWER_A && c <= LOWER_Z) || (c >= DIGIT_0 && c <= DIGIT_9);
    if (!alphanumeric && (c !== HYPHEN || i === 0 || i === last)) return false;
  }
  return true;
}

/** Why `name` is not a DNS-1123 label, or undefined; fast for the common valid case. */
export function labelProblem(name: string): string | undefined {
  return isDns1123Label(name) ? undefined : dns1123LabelProblem(name);
}
