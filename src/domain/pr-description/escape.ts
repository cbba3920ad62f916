// Reversible escaping for values nudger places in Markdown. Every character that Markdown, GFM
// tables or HTML could give meaning to becomes a numeric character reference, so a value can
// neither break a table row, start emphasis or a link, open an HTML comment (and so forge the
// managed block's markers), nor spread over several lines. The parser reverses it exactly.

// `&` must be escaped so that every `&#...;` in the output is known to come from this function.
const SPECIAL = new Set(['\\', '`', '*', '_', '[', ']', '<', '>', '|', '&', '~', '$']);
const WHITESPACE = /\s/u;

function needsEscape(char: string, codePoint: number, atEdge: boolean): boolean {
  if (SPECIAL.has(char)) return true;
  if (codePoint < 0x20 || (codePoint >= 0x7f && codePoint <= 0x9f)) return true;
  // Lone surrogates would make the description invalid UTF-8 on the wire.
  if (codePoint >= 0xd800 && codePoint <= 0xdfff) return true;
  // Markdown trims cells and joins lines: only an inner plain space survives as itself.
  if (WHITESPACE.test(char)) return char !== ' ' || atEdge;
  return false;
}

/** Escapes `value` for a Markdown table cell or an inline position. */
export function escapeMarkdown(value: string): string {
  const chars = Array.from(value);
  let out = '';
  chars.forEach((char, i) => {
    const codePoint = char.codePointAt(0) ?? 0;
    out += needsEscape(char, codePoint, i === 0 || i === chars.length - 1) ? `&#${String(codePoint)};` : char;
  });
  return out;
}

/** The exact inverse of `escapeMarkdown`. */
export function unescapeMarkdown(text: string): string {
  return text.replace(/&#(\d{1,7});/g, (whole, digits: string) => {
    const codePoint = Number(digits);
    return codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : whole;
  });
}

// RFC 3986 characters that may appear in a URL as they are, minus the parentheses and brackets
// that would end a Markdown link destination early. `%` stays: the template may already hold
// percent-escapes, and encoding it again would change the link.
const URL_SAFE = /[A-Za-z0-9\-._~:/?#@!$&'*+,;=%]/;

/** Percent-encodes every character of `url` that could break a Markdown link destination. */
export function escapeUrlForMarkdown(url: string): string {
  let out = '';
  for (const char of url) {
    if (URL_SAFE.test(char)) out += char;
    else
      out += Array.from(
        new TextEncoder().encode(char),
        (b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
      ).join('');
  }
  return out;
}
