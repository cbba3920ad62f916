// The ChangeGroups views (ADR 59 asks for the ChangeGroup status to be visible in a UI;
// docs/decisions.md D14): a namespace's list, and one ChangeGroup in detail with its phase, the
// component table (the digest each component had when it joined and the build collected for it),
// the pull request, the conditions and the time since start. Everything shown comes from the
// ChangeGroup's spec and status, which the controller writes and the API server checked; the pull
// request URL is still linked only when it is http(s) (externalUrl), and shown as text otherwise.
import { formatElapsed } from '../changegroup/duration.ts';
import { hasCollectedBuild, type ChangeGroupPhase, type ComponentState } from '../changegroup/model.ts';
import { compareStrings } from '../compare.ts';
import type { ChangeGroupComponentStatus, ClusterChangeGroup } from '../../schema/changegroup.ts';
import type { Condition } from '../../schema/common.ts';
import { dataTable, notShown } from './data-table.ts';
import { dashboardPath, externalUrl, html, type SafeHtml } from './html.ts';
import type { NamespaceSnapshot, ViewContext } from './inputs.ts';

/** Rows of the list at most (ChangeGroups are few; a namespace full of finished ones is not). */
export const MAX_CHANGE_GROUP_ROWS = 200;

const PHASE_BADGES: Readonly<Record<ChangeGroupPhase, string>> = {
  Initialized: 'badge-muted',
  Waiting: 'badge-warn',
  Ready: 'badge-info',
  Completed: 'badge-ok',
  Cancelled: 'badge-muted',
  Failed: 'badge-bad',
};

const STATE_BADGES: Readonly<Record<ComponentState, string>> = {
  Waiting: 'badge-warn',
  Ready: 'badge-ok',
  NotReferenced: 'badge-muted',
};

function nameOf(group: ClusterChangeGroup): string {
  return group.metadata?.name ?? '';
}

function phaseBadge(phase: ChangeGroupPhase | undefined): SafeHtml {
  return phase === undefined
    ? html`<span class="badge badge-muted" title="the controller has not written a phase yet">no phase yet</span>`
    : html`<span class="badge ${PHASE_BADGES[phase]}">${phase}</span>`;
}

/** `<time>` for an API timestamp, with how long ago it was; nothing for an unreadable one. */
function timeWithAge(timestamp: string | null | undefined, context: ViewContext): SafeHtml | undefined {
  if (timestamp === undefined || timestamp === null) return undefined;
  const ms = Date.parse(timestamp);
  if (Number.isNaN(ms)) return html`<span class="mono">${timestamp}</span>`;
  return html`<time datetime="${timestamp}">${timestamp}</time>
    <span class="muted">(${formatElapsed(context.now - ms)} ago)</span>`;
}

function ageOf(timestamp: string | null | undefined, context: ViewContext): string | undefined {
  const ms = Date.parse(timestamp ?? '');
  return Number.isNaN(ms) ? undefined : formatElapsed(context.now - ms);
}

/** `ready/total` from the component table, or from the spec before the controller wrote one. */
function componentCount(group: ClusterChangeGroup): SafeHtml {
  const components = group.status?.components;
  if (components !== undefined) {
    const ready = components.filter((component) => hasCollectedBuild(component.state)).length;
    return html`${ready}/${components.length} <span class="muted">ready</span>`;
  }
  const named = group.spec.nudgingComponents?.length;
  return named === undefined || named === 0
    ? html`<span class="muted">not resolved yet</span>`
    : html`0/${named} <span class="muted">ready</span>`;
}

/** The pull request: a link when its URL is http(s), its URL as text otherwise, or undefined. */
function pullRequestLink(group: ClusterChangeGroup): SafeHtml | undefined {
  const pullRequest = group.status?.pullRequest;
  const url = pullRequest?.url ?? group.status?.pullRequestURL;
  if (url === undefined || url === '') return undefined;
  const label = pullRequest === undefined ? 'pull request' : `#${String(pullRequest.number)}`;
  const href = externalUrl(url);
  return href === undefined
    ? html`<span class="mono" title="not an http(s) URL, not linked">${url}</span>`
    : html`<a href="${href}" rel="noreferrer noopener" target="_blank">${label}</a>`;
}

function listRow(namespace: string, group: ClusterChangeGroup, context: ViewContext): SafeHtml {
  const name = nameOf(group);
  return html`<tr>
    <td><a class="mono" href="${dashboardPath('ns', namespace, 'changegroups', name)}">${name}</a></td>
    <td class="mono">${group.spec.nudgedComponent}</td>
    <td>${phaseBadge(group.status?.phase)}</td>
    <td class="num">${componentCount(group)}</td>
    <td>${pullRequestLink(group) ?? html`<span class="muted">none yet</span>`}</td>
    <td class="num">
      ${ageOf(group.metadata?.creationTimestamp, context) ?? html`<span class="muted">unknown</span>`}
    </td>
  </tr>`;
}

/** A namespace's ChangeGroups, sorted by name, each linking to its detail. */
export function changeGroupsView(snapshot: NamespaceSnapshot, context: ViewContext): SafeHtml {
  const { namespace } = snapshot;
  const sorted = [...snapshot.changeGroups].sort((a, b) => compareStrings(nameOf(a), nameOf(b)));
  const shown = sorted.slice(0, MAX_CHANGE_GROUP_ROWS);
  const hidden = sorted.length - shown.length;
  const header = html`<div class="view-header">
    <h1>ChangeGroups</h1>
    <span class="mono muted">${namespace}</span>
  </div>`;
  if (sorted.length === 0) {
    return html`${header}
      <p class="empty">No ChangeGroups in this namespace.</p>`;
  }
  const headers = ['Name', 'Nudged component', 'Phase', 'Components', 'Pull request', 'Age'];
  const rows = shown.map((group) => listRow(namespace, group, context));
  return html`${header} ${dataTable(headers, rows)} ${notShown(hidden, 'ChangeGroup')}`;
}

function digestCell(digest: string | undefined): SafeHtml {
  return digest === undefined ? html`<span class="muted">none</span>` : html`<code class="digest">${digest}</code>`;
}

function componentRow(component: ChangeGroupComponentStatus, context: ViewContext): SafeHtml {
  return html`<tr>
    <td class="mono">${component.name}</td>
    <td><span class="badge ${STATE_BADGES[component.state]}">${component.state}</span></td>
    <td>${digestCell(component.originalBuild)}</td>
    <td>${digestCell(component.newBuild)}</td>
    <td class="mono">${component.buildPipelineRun ?? ''}</td>
    <td>${timeWithAge(component.lastUpdateTime, context) ?? ''}</td>
  </tr>`;
}

function componentsSection(group: ClusterChangeGroup, context: ViewContext): SafeHtml {
  const components = [...(group.status?.components ?? [])].sort((a, b) => compareStrings(a.name, b.name));
  if (components.length === 0) return html`<p class="empty">The controller has not listed the components yet.</p>`;
  const headers = ['Component', 'State', 'Old digest', 'New digest', 'Build PipelineRun', 'Updated'];
  return dataTable(
    headers,
    components.map((component) => componentRow(component, context)),
  );
}

function conditionsSection(conditions: readonly Condition[] | undefined, context: ViewContext): SafeHtml {
  const sorted = [...(conditions ?? [])].sort((a, b) => compareStrings(a.type, b.type));
  if (sorted.length === 0) return html`<p class="empty">No conditions yet.</p>`;
  return dataTable(
    ['Type', 'Status', 'Reason', 'Message', 'Last transition'],
    sorted.map(
      (condition) =>
        html`<tr>
          <td>${condition.type}</td>
          <td>${condition.status}</td>
          <td class="mono">${condition.reason}</td>
          <td>${condition.message}</td>
          <td>${timeWithAge(condition.lastTransitionTime, context) ?? ''}</td>
        </tr>`,
    ),
  );
}

/** How long since the ChangeGroup started, and how long it took when it has finished. */
function sinceStart(group: ClusterChangeGroup, context: ViewContext): SafeHtml {
  const status = group.status;
  const start = Date.parse(status?.startTime ?? '');
  if (Number.isNaN(start)) return html`<span class="muted">not started yet</span>`;
  const completed = Date.parse(status?.completionTime ?? '');
  const took = Number.isNaN(completed) ? '' : html`; completed after ${formatElapsed(completed - start)}`;
  return html`<strong>${formatElapsed(context.now - start)}</strong>${took}`;
}

function pullRequestFacts(group: ClusterChangeGroup): SafeHtml {
  const link = pullRequestLink(group);
  const pullRequest = group.status?.pullRequest;
  if (link === undefined) return html`<span class="muted">not opened yet</span>`;
  if (pullRequest === undefined) return link;
  const flags = [
    pullRequest.draft ? html`<span class="badge badge-muted">draft</span>` : '',
    pullRequest.final
      ? html`<span class="badge badge-ok" title="last push without [skip ci]">final</span>`
      : html`<span class="badge badge-warn" title="last push carried [skip ci]">collecting</span>`,
  ];
  return html`${link} ${flags}
    <div class="muted">
      <span class="mono">${pullRequest.headBranch}</span> → <span class="mono">${pullRequest.baseBranch}</span>
    </div>`;
}

/** One ChangeGroup in detail, or undefined when the namespace has none of that name. */
export function changeGroupView(snapshot: NamespaceSnapshot, name: string, context: ViewContext): SafeHtml | undefined {
  const group = snapshot.changeGroups.find((candidate) => nameOf(candidate) === name);
  if (group === undefined) return undefined;
  const { spec, status } = group;
  return html`<div class="view-header">
      <h1>ChangeGroup <span class="mono">${name}</span></h1>
      <a href="${dashboardPath('ns', snapshot.namespace, 'changegroups')}">all ChangeGroups</a>
    </div>
    <section class="panel">
      <dl class="facts">
        <dt>Namespace</dt>
        <dd class="mono">${snapshot.namespace}</dd>
        <dt>Nudged component</dt>
        <dd class="mono">${spec.nudgedComponent}</dd>
        <dt>Phase</dt>
        <dd>${phaseBadge(status?.phase)}</dd>
        <dt>Components ready</dt>
        <dd>${componentCount(group)}</dd>
        <dt>Since start</dt>
        <dd>${sinceStart(group, context)}</dd>
        <dt>Started</dt>
        <dd>${timeWithAge(status?.startTime, context) ?? html`<span class="muted">not yet</span>`}</dd>
        ${
          status?.readyTime === undefined
            ? ''
            : html`<dt>Ready</dt>
                <dd>${timeWithAge(status.readyTime, context)}</dd>`
        }
        ${
          status?.completionTime === undefined
            ? ''
            : html`<dt>Completed</dt>
                <dd>${timeWithAge(status.completionTime, context)}</dd>`
        }
        <dt>Timeout</dt>
        <dd class="mono">${spec.timeout ?? html`<span class="muted">none</span>`}</dd>
        <dt>Pull request</dt>
        <dd>${pullRequestFacts(group)}</dd>
      </dl>
    </section>
    <section class="panel">
      <h2>Components</h2>
      ${componentsSection(group, context)}
    </section>
    <section class="panel">
      <h2>Conditions</h2>
      ${conditionsSection(status?.conditions, context)}
    </section>`;
}
