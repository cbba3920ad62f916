// The production views of the dashboard (src/domain/dashboard/), as the server's DashboardViews.
// A view not written yet renders a plain "not yet available" panel, so every route answers.
import { html, type SafeHtml } from '../domain/dashboard/html.ts';
import { korifiView } from '../domain/dashboard/korifi-view.ts';
import { namespacesView } from '../domain/dashboard/namespaces-view.ts';
import { nudgesView } from '../domain/dashboard/nudges-view.ts';
import { renderLoginForm, renderNotFound, renderPage } from '../domain/dashboard/page.ts';
import type { DashboardViews } from './server.ts';

function notYet(view: string): SafeHtml {
  return html`<section class="panel">
    <h1>${view}</h1>
    <p>This view is not yet available.</p>
  </section>`;
}

export const DASHBOARD_VIEWS: DashboardViews = {
  page: renderPage,
  notFound: renderNotFound,
  loginForm: renderLoginForm,
  namespaces: namespacesView,
  graph: () => notYet('Nudge graph'),
  changeGroups: () => notYet('ChangeGroups'),
  changeGroup: () => notYet('ChangeGroup'),
  nudges: nudgesView,
  korifi: korifiView,
};
