// Sorting for output that must be identical on every machine: plain UTF-16 code-unit order, never
// localeCompare (its order depends on the ICU data and locale of the process).

/** Code-unit order of two strings, for `Array.prototype.sort`. */
export function compareStrings(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
