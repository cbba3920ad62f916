// The production views of the dashboard (src/domain/dashboard/), as the server's DashboardViews.
import { changeGroupView, changeGroupsView } from '../domain/dashboard/changegroups-view.ts';
import { graphView } from '../domain/dashboard/graph-view.ts';
import { korifiView } from '../domain/dashboard/korifi-view.ts';
import { namespacesView } from '../domain/dashboard/namespaces-view.ts';
import { nudgesView } from '../domain/dashboard/nudges-view.ts';
import { renderLoginForm, renderNotFound, renderPage } from '../domain/dashboard/page.ts';
import type { DashboardViews } from './server.ts';

export const DASHBOARD_VIEWS: DashboardViews = {
  page: renderPage,
  notFound: renderNotFound,
  loginForm: renderLoginForm,
  namespaces: namespacesView,
  graph: graphView,
  changeGroups: changeGroupsView,
  changeGroup: changeGroupView,
  nudges: nudgesView,
  korifi: korifiView,
};
