// Where each part of a parsed document came from. Two parsers produce documents (the fast path for
// plain block YAML and the full `yaml` library); this is the one view of positions both offer.
import type { SourceLocation } from '../domain/model.ts';

export type FieldPath = readonly (string | number)[];

export interface SourceTree {
  /** Where this value starts (a mapping starts at its first key). */
  location(): SourceLocation;
  isMapping(): boolean;
  /**
   * The line of the field at `path` below this value: the key of the last field when it is a
   * mapping entry (the line a human reads as "the field"), else the item itself. When the path
   * leaves the tree (e.g. a value that came in through a `<<` merge key), the deepest part found
   * stands in.
   */
  fieldLocation(path: FieldPath): SourceLocation;
  /** The value at `path`, or undefined when it is not in the tree. */
  child(path: FieldPath): SourceTree | undefined;
  /** The items of a sequence; empty for anything else. */
  items(): readonly (SourceTree | undefined)[];
}

/** One YAML document of a file: plain data plus where each part of it was written. */
export interface SourceDocument {
  readonly file: string;
  /** The root value as plain JSON-like data (after alias and merge-key expansion). */
  readonly value: unknown;
  readonly tree: SourceTree;
}
