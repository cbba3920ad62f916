// Pipelines-as-Code skips a build when the head commit message contains one of these, exactly
// (lower case, with brackets, anywhere in the text). nudger must agree with it byte for byte, or
// it would count on a skip that PaC does not honour.

export const SKIP_MARKERS = ['[skip ci]', '[ci skip]', '[skip tkn]', '[tkn skip]'] as const;
export type SkipMarker = (typeof SKIP_MARKERS)[number];

/** The marker nudger writes itself. */
export const SKIP_CI: SkipMarker = '[skip ci]';

/** True when `message` contains a marker PaC honours (case-sensitive, like PaC). */
export function hasSkipMarker(message: string): boolean {
  return SKIP_MARKERS.some((marker) => message.includes(marker));
}

/**
 * Replaces the brackets of every skip marker in text nudger did not write (names, digests, notes),
 * so a value can never switch a build off, nor keep a "final" commit from building.
 */
export function neutraliseSkipMarkers(text: string): string {
  let out = text;
  for (const marker of SKIP_MARKERS) out = out.split(marker).join(`(${marker.slice(1, -1)})`);
  return out;
}
