// Server-rendered HTML for the dashboard (docs/decisions.md D14). Every view is built with the
// `html` tag: each interpolated value is escaped unless it is itself `SafeHtml` made by this tag,
// so a component name, digest or pull-request title can never become markup, whatever it holds.
// The same escaping serves SVG, which the graph view writes inline. There is no other way to make
// SafeHtml from a string than `html` and `joinHtml` (they alone call `SafeHtml.trusted`; a test
// keeps it so), so a view cannot forget to escape.

/** HTML (or SVG) text that is safe to place in a document as it is. */
export class SafeHtml {
  readonly text: string;
  /** Use `html`; a raw string never becomes SafeHtml outside this module. */
  private constructor(text: string) {
    this.text = text;
  }
  /** @internal The one door from a string to SafeHtml: only for text this module escaped or wrote. */
  static trusted(text: string): SafeHtml {
    return new SafeHtml(text);
  }
  toString(): string {
    return this.text;
  }
}

/** What a view may interpolate: text (escaped), numbers, SafeHtml, lists of those; nothing renders nothing. */
export type HtmlValue = string | number | SafeHtml | readonly HtmlValue[] | undefined | null | false;

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Escapes text for element content and for quoted attribute values alike. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (character) => ESCAPES[character] ?? character);
}

function render(value: HtmlValue): string {
  if (value === undefined || value === null || value === false) return '';
  if (value instanceof SafeHtml) return value.text;
  if (typeof value === 'number') return escapeHtml(String(value));
  if (typeof value === 'string') return escapeHtml(value);
  return value.map(render).join('');
}

/** The tag every view writes with: `html\`<td>${name}</td>\`` escapes `name`. */
export function html(strings: TemplateStringsArray, ...values: readonly HtmlValue[]): SafeHtml {
  let text = strings[0] ?? '';
  values.forEach((value, index) => {
    text += render(value) + (strings[index + 1] ?? '');
  });
  return SafeHtml.trusted(text);
}

/** Joins rendered parts with an (escaped) separator. */
export function joinHtml(parts: readonly HtmlValue[], separator: HtmlValue = ''): SafeHtml {
  return SafeHtml.trusted(parts.map(render).join(render(separator)));
}

/**
 * A link target from outside (a pull request URL from a ChangeGroup's status): only http(s) URLs,
 * anything else (`javascript:`, `data:`, relative tricks) becomes undefined and is not linked.
 */
export function externalUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'https:' || parsed.protocol === 'http:' ? parsed.href : undefined;
  } catch {
    return undefined;
  }
}

/** A dashboard path from segments, each percent-encoded: `dashboardPath('ns', name, 'graph')`. */
export function dashboardPath(...segments: readonly string[]): string {
  return `/${segments.map((segment) => encodeURIComponent(segment)).join('/')}`;
}
