// Checks and quoting for values nudger copies into commits, pull requests, Renovate configs and
// Event messages, when it did not choose them (ConfigMap values, annotations).

/**
 * Why `value` may not be written into a commit or a pull request, or undefined. Refused: control
 * characters other than tab, line feed, form feed and carriage return (Renovate folds those into
 * spaces), lone surrogates (not UTF-8), and the bidirectional overrides and isolates that make
 * text display in another order than it is stored.
 */
export function unsafeCharacterProblem(value: string): string | undefined {
  for (let i = 0; i < value.length; i += 1) {
    const c = value.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i += 1;
        continue;
      }
      return 'contains a lone surrogate (not valid UTF-8)';
    }
    if (c >= 0xdc00 && c <= 0xdfff) return 'contains a lone surrogate (not valid UTF-8)';
    const allowedWhitespace = c === 0x09 || c === 0x0a || c === 0x0c || c === 0x0d;
    if ((c < 0x20 && !allowedWhitespace) || (c >= 0x7f && c <= 0x9f)) {
      return `contains the control character U+${hex4(c)}`;
    }
    if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069)) {
      return `contains the bidirectional control U+${hex4(c)}`;
    }
  }
  return undefined;
}

function hex4(code: number): string {
  return code.toString(16).toUpperCase().padStart(4, '0');
}

/** Maximum characters of a value quoted in a message. */
const QUOTE_MAX = 40;

/**
 * A short, printable-ASCII quotation of `value` for an Event or log message: at most 40
 * characters of it, JSON-quoted, every non-ASCII character as `\uXXXX`, `…` when cut.
 */
export function quoteForMessage(value: string): string {
  const cut = value.length > QUOTE_MAX;
  const quoted = JSON.stringify(value.slice(0, QUOTE_MAX)).replace(
    /[^\x20-\x7e]/g,
    (char) => `\\u${hex4(char.charCodeAt(0))}`,
  );
  return cut ? `${quoted}…` : quoted;
}
