// A short, stable digest of a value's canonical JSON, for "has this changed since we last wrote it?"
// checks kept in status (D5). Not cryptographic: a collision only delays a description refresh.
// Pure (no node:crypto), so the state machine stays free of I/O modules.
import { compareStrings } from '../compare.ts';
import { fnv1a } from '../fnv1a.ts';

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => compareStrings(a, b));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
  }
  // JSON.stringify gives undefined for functions and symbols, which status values never hold.
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean'
    ? JSON.stringify(value)
    : 'null';
}

/** 16 hex characters: two FNV-1a passes with different offsets, independent of key order. */
export function fingerprint(value: unknown): string {
  const text = canonical(value);
  const hex = (n: number) => n.toString(16).padStart(8, '0');
  return hex(fnv1a(text, 0x811c9dc5)) + hex(fnv1a(text, 0x050c5d1f));
}
