// The dashboard's first view (docs/decisions.md D14): one row per namespace with its NudgeConfig's
// validity (the `Valid` condition, ADR 67), how many Components and distinct nudge edges it has,
// the nudge PRs its components' newest dispatched builds opened or updated, and its active
// ChangeGroups. The figures come from `namespaceSummary`, a pure function the tests and the server
// can check on their own.
import { isTerminalPhase } from '../changegroup/model.ts';
import { compareStrings } from '../compare.ts';
import { edgeKey } from '../graph.ts';
import { VALID_CONDITION } from '../stale-references.ts';
import { dataTable, notShown } from './data-table.ts';
import { dashboardPath, html, type SafeHtml } from './html.ts';
import type { NamespaceSnapshot, ViewContext } from './inputs.ts';
import { newestMarkedBuilds, pullRequestTargets } from './newest-builds.ts';

/**
 * Rows shown at most. Konflux's largest cluster has about 450 tenant namespaces, so there every
 * one is listed; past this the page says how many were left out (each stays reachable by its URL).
 */
export const MAX_NAMESPACE_ROWS = 500;
/** Characters of a condition message shown in the table (a stale-reference message may be 32 KiB). */
export const MAX_MESSAGE_CHARACTERS = 300;
/** What the nudge PR figure is: the dispatcher's marker says a PR was opened or updated, no more. */
const PULL_REQUESTS_HINT =
  "targets marked pullRequest by the dispatcher in each component's newest dispatched push build: opened or updated then, not necessarily still open";

/** What the NudgeConfig's `Valid` condition says. */
export type NudgeConfigValidity =
  | { readonly kind: 'none' }
  | { readonly kind: 'not-validated' }
  | {
      readonly kind: 'valid' | 'invalid' | 'unknown';
      readonly reason: string;
      readonly message: string;
      /** The condition was written for an older generation of the NudgeConfig: validation is due. */
      readonly outdated: boolean;
    };

export interface NamespaceSummary {
  readonly namespace: string;
  readonly validity: NudgeConfigValidity;
  readonly components: number;
  /** Distinct (from, to) pairs, whatever declared them (NudgeConfig entries, build-nudges-ref). */
  readonly edges: number;
  /** `pullRequest` targets in the markers of each component's newest dispatched push build. */
  readonly nudgePullRequests: number;
  /** Components whose newest dispatched build carries a marker the parser refuses. */
  readonly unreadableMarkers: number;
  readonly changeGroups: number;
  /** ChangeGroups not in a terminal phase (Completed, Cancelled, Failed); no phase yet counts. */
  readonly activeChangeGroups: number;
}

function validityOf(snapshot: NamespaceSnapshot): NudgeConfigValidity {
  const config = snapshot.nudgeConfig;
  if (config === undefined) return { kind: 'none' };
  const condition = config.status?.conditions?.find((c) => c.type === VALID_CONDITION);
  if (condition === undefined) return { kind: 'not-validated' };
  const kind = condition.status === 'True' ? 'valid' : condition.status === 'False' ? 'invalid' : 'unknown';
  const observed = condition.observedGeneration ?? config.status?.observedGeneration;
  const generation = config.metadata?.generation;
  const outdated = observed !== undefined && generation !== undefined && observed < generation;
  return { kind, reason: condition.reason, message: condition.message, outdated };
}

/** The figures of one namespace's row. */
export function namespaceSummary(snapshot: NamespaceSnapshot): NamespaceSummary {
  const edges = new Set(snapshot.graph.edges.map(edgeKey)).size;
  let nudgePullRequests = 0;
  let unreadableMarkers = 0;
  for (const { reading } of newestMarkedBuilds(snapshot.buildRuns).values()) {
    if (reading.ok) nudgePullRequests += pullRequestTargets(reading).length;
    else unreadableMarkers += 1;
  }
  const activeChangeGroups = snapshot.changeGroups.filter((group) => {
    const phase = group.status?.phase;
    return phase === undefined || !isTerminalPhase(phase);
  }).length;
  return {
    namespace: snapshot.namespace,
    validity: validityOf(snapshot),
    components: snapshot.components.length,
    edges,
    nudgePullRequests,
    unreadableMarkers,
    changeGroups: snapshot.changeGroups.length,
    activeChangeGroups,
  };
}

function shortened(text: string): string {
  return text.length > MAX_MESSAGE_CHARACTERS ? `${text.slice(0, MAX_MESSAGE_CHARACTERS)}…` : text;
}

function validityCell(validity: NudgeConfigValidity): SafeHtml {
  switch (validity.kind) {
    case 'none':
      return html`<span class="badge badge-muted">no NudgeConfig</span>`;
    case 'not-validated':
      return html`<span class="badge badge-warn">not yet validated</span>`;
    case 'valid':
    case 'invalid':
    case 'unknown': {
      const [label, colour] =
        validity.kind === 'valid'
          ? ['Valid', 'badge-ok']
          : validity.kind === 'invalid'
            ? ['Invalid', 'badge-bad']
            : ['Unknown', 'badge-warn'];
      const outdated = validity.outdated ? html` <span class="muted">(older generation)</span>` : '';
      const detail =
        validity.kind === 'valid'
          ? ''
          : html`<div>
              <span class="mono">${validity.reason}</span>: <span class="error">${shortened(validity.message)}</span>
            </div>`;
      return html`<span class="badge ${colour}" title="${validity.reason}">${label}</span>${outdated}${detail}`;
    }
  }
}

function row(summary: NamespaceSummary): SafeHtml {
  const { namespace } = summary;
  const unreadable =
    summary.unreadableMarkers === 0
      ? ''
      : html` <span class="badge badge-bad" title="markers the dispatcher's parser refuses"
          >${summary.unreadableMarkers} unreadable</span
        >`;
  return html`<tr>
    <td><a class="mono" href="${dashboardPath('ns', namespace, 'graph')}">${namespace}</a></td>
    <td>${validityCell(summary.validity)}</td>
    <td class="num">${summary.components}</td>
    <td class="num">${summary.edges}</td>
    <td class="num">
      <a href="${dashboardPath('ns', namespace, 'nudges')}">${summary.nudgePullRequests}</a>${unreadable}
    </td>
    <td class="num">
      <a href="${dashboardPath('ns', namespace, 'changegroups')}">${summary.activeChangeGroups}</a>
      <span class="muted">of ${summary.changeGroups}</span>
    </td>
  </tr>`;
}

/** The namespaces view: one row per namespace, sorted by name. */
export function namespacesView(namespaces: readonly NamespaceSnapshot[], _context: ViewContext): SafeHtml {
  // Every figure here is a count: nothing depends on the time, so the context goes unread.
  const sorted = [...namespaces].sort((a, b) => compareStrings(a.namespace, b.namespace));
  const shown = sorted.slice(0, MAX_NAMESPACE_ROWS).map(namespaceSummary);
  const hidden = sorted.length - shown.length;
  const header = html`<div class="view-header"><h1>Namespaces</h1></div>`;
  if (sorted.length === 0) {
    return html`${header}
      <p class="empty">No namespaces to show.</p>`;
  }
  const headers = [
    'Namespace',
    'NudgeConfig',
    'Components',
    'Edges',
    html`<span title="${PULL_REQUESTS_HINT}">Nudge PRs (newest builds)</span>`,
    'Active ChangeGroups',
  ];
  return html`${header} ${dataTable(headers, shown.map(row))} ${notShown(hidden, 'namespace')}`;
}
