// Everything the CLI prints as text passes through here: names and messages come from the input,
// and a Component named with an ANSI or OSC escape (ESC ] 8 ; ; url BEL makes a hidden link, ESC [ 2 J
// clears the screen) must not reach the terminal as one, nor may a newline in a name forge a line
// of output (a fake finding, or a CI annotation such as `::error::`). JSON output needs none of
// this: JSON escapes control characters itself.

/**
 * C0 controls (newline and tab included: every string passed to terminalSafe is one line), DEL, C1
 * controls (U+0080-U+009F, which some terminals read as ESC sequences), the line and paragraph
 * separators, and the bidirectional overrides that reorder what a reader sees (Trojan Source).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** One line of output with every unsafe character written as a visible escape (`\x1b`, `\u202e`). */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, escapeOf);
}

/**
 * Text whose line structure is the input's own, such as a file in a diff: its newlines and tabs
 * stay, and so does a carriage return that ends a line (CRLF files: it moves the cursor nowhere
 * anything follows on that line); every other unsafe character is escaped as terminalSafe does.
 * A line of it can therefore hold no terminal escape and cannot be overwritten from column 0.
 */
export function terminalSafeLines(text: string): string {
  return text.replace(UNSAFE, (char: string, offset: number) =>
    char === '\n' || char === '\t' || (char === '\r' && text[offset + 1] === '\n') ? char : escapeOf(char),
  );
}

function escapeOf(char: string): string {
  const code = char.charCodeAt(0);
  if (char === '\n') return '\\n';
  if (char === '\t') return '\\t';
  if (char === '\r') return '\\r';
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
