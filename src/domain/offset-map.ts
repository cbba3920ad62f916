// Offsets of a text derived from another by insertions and deletions, mapped back to the other.
// The YAML reader parses a text with line feeds for CRs and with under-indented quoted
// continuations re-indented (src/domain/yaml-reader.ts); the migration edits the file as it was
// written, so every offset it takes from a parsed node is mapped back through this.

/**
 * Built from splices of the original text in offset order, each an insertion or a deletion. Held in
 * typed arrays: a CRLF file has one splice per line.
 */
export class OffsetMap {
  #at: Int32Array = new Int32Array(16);
  #delta: Int32Array = new Int32Array(16);
  /** Where each splice starts in the derived text; computed when the map is first used. */
  #derived: Int32Array | undefined;
  /** The sum of the deltas of the splices before each. */
  #shift: Int32Array | undefined;
  #length = 0;

  /** Records `count` characters inserted (positive) or deleted (negative) at `at` of the original. */
  splice(at: number, count: number): void {
    if (this.#derived !== undefined) throw new Error('OffsetMap: splice after use');
    if (count === 0) return;
    if (this.#length === this.#at.length) {
      this.#at = grown(this.#at);
      this.#delta = grown(this.#delta);
    }
    this.#at[this.#length] = at;
    this.#delta[this.#length] = count;
    this.#length++;
  }

  get empty(): boolean {
    return this.#length === 0;
  }

  /**
   * The offset of the original text that `offset` of the derived text stands for. A position at a
   * deletion maps before the deleted characters (an edit ending at the LF of a CRLF keeps the CR);
   * one inside inserted characters maps to where they were inserted.
   */
  toOriginal(offset: number): number {
    const { derived, shift } = this.#tables();
    // Splices wholly before `offset`, a prefix of them: a deletion at p is before p + 1 onwards,
    // an insertion of n at p before p + n onwards.
    let low = 0;
    let high = this.#length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      const delta = this.#delta[mid] ?? 0;
      const before = delta < 0 ? (derived[mid] ?? 0) < offset : (derived[mid] ?? 0) + delta <= offset;
      if (before) low = mid + 1;
      else high = mid;
    }
    const next = low < this.#length ? (derived[low] ?? 0) : Infinity;
    if ((this.#delta[low] ?? 0) > 0 && next < offset) return this.#at[low] ?? 0;
    return offset - (shift[low] ?? 0);
  }

  #tables(): { derived: Int32Array; shift: Int32Array } {
    if (this.#derived === undefined || this.#shift === undefined) {
      const derived = new Int32Array(this.#length);
      const shift = new Int32Array(this.#length + 1);
      for (let k = 0; k < this.#length; k++) {
        derived[k] = (this.#at[k] ?? 0) + (shift[k] ?? 0);
        shift[k + 1] = (shift[k] ?? 0) + (this.#delta[k] ?? 0);
      }
      this.#derived = derived;
      this.#shift = shift;
    }
    return { derived: this.#derived, shift: this.#shift };
  }
}

function grown(array: Int32Array): Int32Array {
  const bigger = new Int32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}
