// The dashboard's document frame (docs/decisions.md D14): the one place that writes `<head>`, the
// navigation and the `<main id="view">` the live updates replace. Styles and script come only from
// the server's own /assets (the CSP allows no inline script or style), so the frame carries no
// `style=` and no `<script>` body; the stylesheet's class vocabulary is documented at the top of
// assets/dashboard/dashboard.css.
import { dashboardPath, html, type HtmlValue, type SafeHtml } from './html.ts';
import type { ViewContext } from './inputs.ts';

/** A namespace's tabs, in navigation order. */
export type DashboardTab = 'graph' | 'changegroups' | 'nudges';

const TABS: readonly { readonly tab: DashboardTab; readonly label: string }[] = [
  { tab: 'graph', label: 'Graph' },
  { tab: 'changegroups', label: 'ChangeGroups' },
  { tab: 'nudges', label: 'Nudges' },
];

/** What `renderPage` frames. */
export interface PageInput {
  /** The document title (escaped; " · nudger" is appended). */
  readonly title: string;
  /** The namespace shown: its tabs appear in the navigation. */
  readonly namespace?: string;
  /** The namespace tab shown (marked current). */
  readonly tab?: DashboardTab;
  /**
   * The top-level page shown when no namespace is: 'namespaces' (the default) or 'korifi'; marks
   * the matching navigation link current.
   */
  readonly section?: 'namespaces' | 'korifi';
  /** The view's `<main>` content. */
  readonly main: SafeHtml;
  /** The view path the client subscribes to for live updates (`/events?view=<live>`). */
  readonly live: string;
  readonly context: ViewContext;
}

function navLink(href: string, label: HtmlValue, current: boolean): SafeHtml {
  return current
    ? html`<a class="tab" href="${href}" aria-current="page">${label}</a>`
    : html`<a class="tab" href="${href}">${label}</a>`;
}

function documentShell(title: string, body: SafeHtml, withScript: boolean): SafeHtml {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="no-referrer" />
        <title>${title} · nudger</title>
        <link rel="stylesheet" href="/assets/dashboard.css" />
        ${withScript ? html`<script type="module" src="/assets/dashboard.js"></script>` : ''}
      </head>
      <body>
        ${body}
      </body>
    </html> `;
}

function header(nav: HtmlValue): SafeHtml {
  return html`<header class="site-header"><a class="brand" href="/">nudger</a>${nav}</header>`;
}

/** A whole dashboard document around one view's `<main>` content. */
export function renderPage(input: PageInput): SafeHtml {
  const { namespace, tab, context } = input;
  const section = namespace === undefined ? (input.section ?? 'namespaces') : undefined;
  const namespaceTabs =
    namespace === undefined
      ? ''
      : html`<span class="tab-group"
          ><span class="tab-label mono" title="namespace">${namespace}</span>${TABS.map((entry) =>
            navLink(dashboardPath('ns', namespace, entry.tab), entry.label, entry.tab === tab),
          )}</span
        >`;
  const nav = html`<nav class="tabs" aria-label="Dashboard">
    ${navLink('/', 'Namespaces', section === 'namespaces')}${namespaceTabs}${
      context.korifi ? navLink('/korifi', 'Korifi', section === 'korifi') : ''
    }
  </nav>`;
  return documentShell(
    input.title,
    html`${header(nav)}
      <main id="view" data-live="${input.live}">${input.main}</main>`,
    true,
  );
}

/**
 * A whole "not found" document (the server answers 404 with it): `what` names what was asked for,
 * e.g. `ChangeGroup team-a/release-1`, and is shown escaped.
 */
export function renderNotFound(what: string): SafeHtml {
  return documentShell(
    'Not found',
    html`${header(html`<nav class="tabs" aria-label="Dashboard">${navLink('/', 'Namespaces', false)}</nav>`)}
      <main id="view">
        <section class="panel">
          <h1>Not found</h1>
          <p>${what} was not found.</p>
          <p><a href="/">Back to the namespaces</a></p>
        </section>
      </main>`,
    false,
  );
}

/**
 * A whole login document: a form that POSTs `token` to /login. No script runs on it; the token
 * field is a password field, never prefilled, so the page never carries a token back. `error`
 * (escaped) says why a previous attempt failed.
 */
export function renderLoginForm(error?: string): SafeHtml {
  return documentShell(
    'Sign in',
    html`${header('')}
      <main id="view">
        <form class="login panel" method="post" action="/login">
          <h1>Sign in</h1>
          ${error === undefined ? '' : html`<p class="error" role="alert">${error}</p>`}<label for="token"
            >Bearer token</label
          ><input id="token" name="token" type="password" autocomplete="off" required /><button type="submit">
            Sign in
          </button>
        </form>
      </main>`,
    false,
  );
}
