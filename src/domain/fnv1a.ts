// FNV-1a over UTF-16 code units: a fast, pure (no node:crypto) digest for "is this the same text?"
// checks. Not cryptographic: the callers only compare their own outputs.

/** 32-bit FNV-1a of `text`, from `seed` (0x811c9dc5 is the standard offset basis). */
export function fnv1a(text: string, seed: number): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
}
