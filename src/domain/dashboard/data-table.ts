// The dashboard's data table and its "N more not shown" line (docs/decisions.md D14), one
// definition for the views that list rows: a header row, the rows as given, the `.table` and
// `.table-wrap` classes of the stylesheet, and the count of what a capped list left out.
import { html, type HtmlValue, type SafeHtml } from './html.ts';

/** A table with one header row (`headers`, escaped like any value) and `rows` (`<tr>` elements). */
export function dataTable(headers: readonly HtmlValue[], rows: HtmlValue): SafeHtml {
  return html`<div class="table-wrap">
    <table class="table">
      <thead>
        <tr>
          ${headers.map((header) => html`<th>${header}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${rows}
      </tbody>
    </table>
  </div>`;
}

/** `3 more apps not shown.` under a capped list; nothing when nothing was left out. */
export function notShown(count: number, noun: string): SafeHtml | undefined {
  if (count <= 0) return undefined;
  return html`<p class="more">${count} more ${noun}${count === 1 ? '' : 's'} not shown.</p>`;
}
