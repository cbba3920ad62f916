// The "nudges in flight" view of one namespace (issue 14, docs/decisions.md D14): what the
// dispatcher did with each recent push build (its done-marker, N18), the nudges ChangeGroups hold
// (the held-nudge records of D2 and D9, whoever wrote them) and the validated entries waiting on
// their gating group (the NudgeConfig's status.validatedNudges, D10). Pure and deterministic: the
// same snapshot and time render the same HTML. The marker is read by its own parser only, and an
// unreadable one is shown as the problem the parser names, never as "nothing done".
import {
  HELD_TARGETS_ANNOTATION,
  HOLD_REASON_ANNOTATION,
  RELEASED_TARGETS_ANNOTATION,
  targetPairsOf,
} from '../changegroup/hold-decision.ts';
import { compareStrings } from '../compare.ts';
import {
  NUDGING_COMPONENT_ANNOTATION,
  NUDGING_PIPELINE_ANNOTATION,
  buildPipelineRunOf,
  type BuildPipelineRun,
} from '../nudge-pipelinerun.ts';
import {
  BUILD_ENTRY,
  DISPATCH_MARKER_ANNOTATION,
  parseMarker,
  type MarkerEntry,
  type MarkerReading,
  type TargetState,
} from '../nudge/dispatch-marker.ts';
import { SKIP_REASONS, skipText } from '../nudge/dispatch-messages.ts';
import { isDispatcherHeldRecord } from '../nudge/dispatch-release.ts';
import { immediateTargets } from '../nudge/dispatch-targets.ts';
import { finishedBefore } from '../nudge/dispatch.ts';
import type { ValidatedGroupStatus, ValidatedNudgesStatus } from '../../schema/nudgeconfig.ts';
import type { PipelineRun } from '../../schema/pipelinerun.ts';
import { dataTable, notShown } from './data-table.ts';
import { dashboardPath, html, joinHtml, type SafeHtml } from './html.ts';
import type { NamespaceSnapshot, ViewContext } from './inputs.ts';

/** Builds listed under recent outcomes, newest first; the rest are counted. */
export const MAX_OUTCOME_BUILDS = 100;
/** Held nudges listed; the rest are counted. */
export const MAX_HELD_ROWS = 200;

export function nudgesView(snapshot: NamespaceSnapshot, context: ViewContext): SafeHtml {
  return html`<div class="view-header">
      <h1>Nudges in flight in <span class="mono">${snapshot.namespace}</span></h1>
    </div>
    <section class="panel">
      <h2>Recent dispatcher outcomes</h2>
      ${outcomesSection(snapshot, context)}
    </section>
    <section class="panel">
      <h2>Held nudges</h2>
      ${heldSection(snapshot)}
    </section>
    <section class="panel">
      <h2>Validated entries waiting on their gating group</h2>
      ${validatedSection(snapshot)}
    </section>`;
}

// --- recent outcomes ------------------------------------------------------------------------------

interface BuildOutcome {
  readonly build: BuildPipelineRun;
  /** When it finished (else was created), ms; 0 when neither reads. */
  readonly at: number;
  /** Undefined: no marker yet. */
  readonly reading: MarkerReading | undefined;
  /** Its immediate targets, for a build with no marker yet. */
  readonly targets: readonly string[];
}

function timeOf(run: PipelineRun): number {
  const text = run.status?.completionTime ?? run.metadata?.creationTimestamp ?? '';
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : 0;
}

function isFinished(build: BuildPipelineRun): boolean {
  return build.succeeded === 'True' || build.succeeded === 'False';
}

/**
 * The builds that have an outcome to show: every one with a marker, and every finished push build
 * with immediate targets but no marker yet (the dispatcher has not written it). A running build,
 * one nothing is nudged from, or one the dispatcher leaves alone has nothing to show.
 */
function buildOutcomes(snapshot: NamespaceSnapshot): BuildOutcome[] {
  const outcomes: BuildOutcome[] = [];
  const configCreatedAt = snapshot.nudgeConfig?.metadata?.creationTimestamp ?? undefined;
  for (const run of snapshot.buildRuns) {
    const build = buildPipelineRunOf(run);
    const text = build.pipelineRun.annotations[DISPATCH_MARKER_ANNOTATION];
    const reading = text === undefined ? undefined : parseMarker(text);
    const component = build.component;
    // The dispatcher leaves a build alone that finished before the NudgeConfig existed (N25).
    const waits =
      reading === undefined &&
      component !== undefined &&
      build.eventType === 'push' &&
      isFinished(build) &&
      !finishedBefore(run, configCreatedAt);
    const targets = waits ? immediateTargets(snapshot.graph, component) : [];
    if (reading === undefined && targets.length === 0) continue;
    outcomes.push({ build, at: timeOf(run), reading, targets });
  }
  return outcomes.sort((a, b) => b.at - a.at || compareStrings(a.build.pipelineRun.name, b.build.pipelineRun.name));
}

function outcomesSection(snapshot: NamespaceSnapshot, context: ViewContext): SafeHtml {
  const outcomes = buildOutcomes(snapshot);
  if (outcomes.length === 0) return html`<p class="empty">No push build with nudges to show.</p>`;
  const shown = outcomes.slice(0, MAX_OUTCOME_BUILDS);
  return html`${dataTable(
    ['Build', 'Component', 'Target', 'Outcome', 'Reason'],
    shown.map((outcome) => outcomeRows(snapshot.namespace, outcome, context)),
  )}
  ${notShown(outcomes.length - shown.length, 'build')}`;
}

/** One row per (build, target); the build's cells span them. */
function outcomeRows(namespace: string, outcome: BuildOutcome, context: ViewContext): SafeHtml {
  const { build, reading } = outcome;
  const cells = (rows: readonly SafeHtml[]): SafeHtml[] =>
    rows.map((row, index) =>
      index === 0
        ? html`<tr>
            ${buildCells(namespace, outcome, rows.length)}${row}
          </tr>`
        : html`<tr>
            ${row}
          </tr>`,
    );
  if (reading === undefined) {
    return joinHtml(
      cells([
        html`<td class="mono">${outcome.targets.join(', ')}</td>
          <td><span class="badge badge-warn">waiting for the dispatcher</span></td>
          <td>${build.succeeded === 'True' ? 'build succeeded' : 'build failed'}; no marker yet</td>`,
      ]),
    );
  }
  if (!reading.ok) {
    return joinHtml(
      cells([
        html`<td>—</td>
          <td><span class="badge badge-bad">unreadable marker</span></td>
          <td class="error">${reading.problem.annotation}: ${reading.problem.message}</td>`,
      ]),
    );
  }
  const { entries } = reading.marker;
  if (entries.length === 0) {
    return joinHtml(
      cells([
        html`<td>—</td>
          <td><span class="badge badge-muted">no targets</span></td>
          <td></td>`,
      ]),
    );
  }
  return joinHtml(cells(entries.map((entry) => entryCells(namespace, build, entry, context))));
}

function buildCells(namespace: string, outcome: BuildOutcome, rows: number): SafeHtml {
  const { build } = outcome;
  const at = outcome.at === 0 ? undefined : html`<br /><span class="muted">${formatTime(outcome.at)}</span>`;
  return html`<td rowspan="${rows}" class="mono">${build.pipelineRun.name}${at}</td>
    <td rowspan="${rows}">${build.component === undefined ? '—' : componentLink(namespace, build.component)}</td>`;
}

function entryCells(namespace: string, build: BuildPipelineRun, entry: MarkerEntry, context: ViewContext): SafeHtml {
  const target =
    entry.name === BUILD_ENTRY ? html`<em>the whole build</em>` : html`<span class="mono">${entry.name}</span>`;
  return html`<td>${target}</td>
    <td>${outcomeText(namespace, entry.state, context)}</td>
    <td>${reasonText(build, entry)}</td>`;
}

function outcomeText(namespace: string, state: TargetState, context: ViewContext): SafeHtml {
  switch (state.kind) {
    case 'pullRequest':
      return html`<span class="badge badge-ok">pull request</span>`;
    case 'held':
      return html`<span class="badge badge-warn">held by</span> ${changeGroupLink(namespace, state.changeGroup)}`;
    case 'holding':
      return html`<span class="badge badge-warn">being held by</span> ${changeGroupLink(namespace, state.changeGroup)}
        (record being created)`;
    case 'failed':
      return html`<span class="badge badge-bad">failed</span>`;
    case 'skipped':
      return html`<span class="badge badge-muted">skipped</span>`;
    case 'firing':
      return html`<span class="badge badge-info">firing attempt ${state.attempt}</span>, started
        ${formatTime(state.startedAt)}`;
    case 'retry': {
      const due = state.notBefore <= context.now ? ' (due)' : '';
      return html`<span class="badge badge-warn"
          >retry after ${state.failures} failure${state.failures === 1 ? '' : 's'}</span
        >, next not before ${formatTime(state.notBefore)}${due}`;
    }
  }
}

function reasonText(build: BuildPipelineRun, entry: MarkerEntry): SafeHtml | undefined {
  const { state } = entry;
  if (state.kind === 'skipped') {
    const component = build.component ?? '';
    // The marker does not name the newer build; the Event the dispatcher told does.
    const why =
      state.reason === SKIP_REASONS.superseded
        ? `a newer build of ${component} nudges instead`
        : skipText(
            { build: build.pipelineRun.name, component },
            entry.name === BUILD_ENTRY ? '' : entry.name,
            state.reason,
          );
    return why === state.reason ? html`<code>${state.reason}</code>` : html`<code>${state.reason}</code>: ${why}`;
  }
  if (state.kind === 'failed' || state.kind === 'retry') return html`<code>${state.reason}</code>`;
  return undefined;
}

// --- held nudges ----------------------------------------------------------------------------------

type HeldStatus = 'held' | 'released' | 'holding' | 'no-record';

interface HeldRow {
  readonly changeGroup: string;
  readonly target: string;
  /** The build PipelineRun whose image is held. */
  readonly build: string;
  readonly source: string;
  /** The nudge PipelineRun recording the hold, when there is one. */
  readonly record?: string;
  /** `dispatcher`: a record nudger's dispatcher made; `admission`: a nudge PipelineRun cancelled at admission. */
  readonly origin?: 'dispatcher' | 'admission';
  readonly status: HeldStatus;
  readonly reason?: string;
}

/** `target=changegroup` split at its first `=`; undefined for a pair without one. */
function splitPair(pair: string): { readonly target: string; readonly changeGroup: string } | undefined {
  const equals = pair.indexOf('=');
  if (equals <= 0 || equals === pair.length - 1) return undefined;
  return { target: pair.slice(0, equals), changeGroup: pair.slice(equals + 1) };
}

/**
 * Every (build, target) a ChangeGroup holds: each hold a nudge PipelineRun records (the webhook's
 * and the sweeper's cancelled runs and the dispatcher's records alike carry the held-targets
 * annotation, D2), and each `held:`/`holding:` marker entry whose record is not (yet) there.
 */
function heldRows(snapshot: NamespaceSnapshot): HeldRow[] {
  const rows = new Map<string, HeldRow>();
  const key = (build: string, target: string, changeGroup: string): string =>
    JSON.stringify([build, target, changeGroup]);
  for (const run of snapshot.nudgeRuns) {
    const annotations = run.metadata?.annotations ?? {};
    const released = targetPairsOf(annotations[RELEASED_TARGETS_ANNOTATION]);
    const build = annotations[NUDGING_PIPELINE_ANNOTATION]?.trim() ?? '';
    const reason = annotations[HOLD_REASON_ANNOTATION];
    for (const pair of targetPairsOf(annotations[HELD_TARGETS_ANNOTATION])) {
      const split = splitPair(pair);
      if (split === undefined) continue;
      rows.set(key(build, split.target, split.changeGroup), {
        ...split,
        build,
        source: annotations[NUDGING_COMPONENT_ANNOTATION]?.trim() ?? '',
        record: run.metadata?.name ?? '',
        origin: isDispatcherHeldRecord(run) ? 'dispatcher' : 'admission',
        status: released.has(pair) ? 'released' : 'held',
        ...(reason === undefined ? {} : { reason }),
      });
    }
  }
  for (const run of snapshot.buildRuns) {
    const text = run.metadata?.annotations?.[DISPATCH_MARKER_ANNOTATION];
    const reading = text === undefined ? undefined : parseMarker(text);
    if (reading?.ok !== true) continue;
    const build = buildPipelineRunOf(run);
    for (const { name, state } of reading.marker.entries) {
      if (state.kind !== 'held' && state.kind !== 'holding') continue;
      const id = key(build.pipelineRun.name, name, state.changeGroup);
      if (rows.has(id)) continue;
      rows.set(id, {
        changeGroup: state.changeGroup,
        target: name,
        build: build.pipelineRun.name,
        source: build.component ?? '',
        status: state.kind === 'holding' ? 'holding' : 'no-record',
      });
    }
  }
  return [...rows.values()].sort(
    (a, b) =>
      compareStrings(a.changeGroup, b.changeGroup) ||
      compareStrings(a.target, b.target) ||
      compareStrings(a.build, b.build) ||
      compareStrings(a.record ?? '', b.record ?? ''),
  );
}

const HELD_STATUS_TEXT: Readonly<Record<HeldStatus, string>> = {
  held: 'held',
  released: 'released: handed back to ordinary nudging',
  holding: 'holding: the held-nudge record is being created',
  'no-record': 'held; its held-nudge record is gone',
};

const ORIGIN_TEXT = {
  dispatcher: 'held-nudge record (dispatcher)',
  admission: 'nudge PipelineRun cancelled at admission',
} as const;

function heldSection(snapshot: NamespaceSnapshot): SafeHtml {
  const rows = heldRows(snapshot);
  if (rows.length === 0) return html`<p class="empty">No nudge is held by a ChangeGroup.</p>`;
  const shown = rows.slice(0, MAX_HELD_ROWS);
  const { namespace } = snapshot;
  return html`${dataTable(
    ['ChangeGroup', 'Target', 'From', 'Build', 'Record', 'State'],
    shown.map((row) => heldRow(namespace, row)),
  )}
  ${notShown(rows.length - shown.length, 'held nudge')}`;
}

function heldRow(namespace: string, row: HeldRow): SafeHtml {
  const record =
    row.record === undefined
      ? '—'
      : html`<span class="mono">${row.record}</span><br /><span class="muted"
            >${row.origin === undefined ? '' : ORIGIN_TEXT[row.origin]}</span
          >`;
  return html`<tr>
    <td>${changeGroupLink(namespace, row.changeGroup)}</td>
    <td class="mono">${row.target}</td>
    <td>${row.source === '' ? '—' : componentLink(namespace, row.source)}</td>
    <td class="mono">${row.build === '' ? '—' : row.build}</td>
    <td>${record}</td>
    <td>
      <span class="badge ${row.status === 'released' ? 'badge-ok' : 'badge-warn'}">${HELD_STATUS_TEXT[row.status]}</span
      >${row.reason === undefined ? '' : html`<br /><span class="muted">${row.reason}</span>`}
    </td>
  </tr>`;
}

// --- validated entries ----------------------------------------------------------------------------

function validatedSection(snapshot: NamespaceSnapshot): SafeHtml {
  const config = snapshot.nudgeConfig;
  if (config === undefined) return html`<p class="empty">This namespace has no NudgeConfig.</p>`;
  const status = config.status?.validatedNudges;
  if (status === undefined) {
    return html`<p class="empty">No validated entry with a gating group (or the status is not written yet).</p>`;
  }
  return html`<p>
      ${status.entries} validated entr${status.entries === 1 ? 'y' : 'ies'} in ${status.gatingGroups} gating
      group${status.gatingGroups === 1 ? '' : 's'}; ${status.waiting} waiting on their group's next passing Snapshot.
    </p>
    ${groupsTable(status)}`;
}

function groupsTable(status: ValidatedNudgesStatus): SafeHtml {
  const missing = status.gatingGroups - status.groups.length;
  return html`${dataTable(
    ['Gating group', 'Entries', 'Targets', 'Waiting', 'Last passing Snapshot', 'Last nudge'],
    status.groups.map((group) => groupRow(group)),
  )}
  ${
    missing > 0
      ? html`<p class="more">
          ${missing} more gating group${missing === 1 ? '' : 's'} not listed in the status (it lists those with the most
          waiting entries).
        </p>`
      : undefined
  }`;
}

function groupRow(group: ValidatedGroupStatus): SafeHtml {
  const listed = group.waitingEntries ?? [];
  const unlisted = group.waiting - listed.length;
  const pass = group.lastPassingSnapshot;
  const started = pass?.startTime === undefined ? undefined : formatTime(pass.startTime * 1000);
  return html`<tr>
    <td class="mono">${group.gatingGroup}</td>
    <td class="num">${group.entries}</td>
    <td class="num">${group.targets}</td>
    <td>
      ${group.waiting}
      ${
        listed.length === 0
          ? undefined
          : html`<ul class="mono">
              ${listed.map((entry) => html`<li>${entry}</li>`)}
            </ul>`
      }
      ${unlisted > 0 && listed.length > 0 ? html`<span class="muted">and ${unlisted} more</span>` : undefined}
    </td>
    <td>
      ${
        pass === undefined
          ? html`<span class="muted">none yet</span>`
          : html`<span class="mono">${pass.name}</span
              >${started === undefined ? '' : html`<br /><span class="muted">started ${started}</span>`}`
      }
    </td>
    <td>${group.lastNudgeTime === undefined ? '—' : formatIsoTime(group.lastNudgeTime)}</td>
  </tr>`;
}

// --- shared bits ----------------------------------------------------------------------------------

function changeGroupLink(namespace: string, name: string): SafeHtml {
  return html`<a href="${dashboardPath('ns', namespace, 'changegroups', name)}">${name}</a>`;
}

function componentLink(namespace: string, name: string): SafeHtml {
  return html`<a href="${dashboardPath('ns', namespace, 'graph')}?component=${encodeURIComponent(name)}">${name}</a>`;
}

/** `2026-01-15 10:20:00Z`, in a <time> element; whole seconds (markers and statuses carry no more). */
function formatTime(ms: number): SafeHtml {
  const date = new Date(ms);
  // A status may hold any integer; one past what a Date holds is shown as it is.
  if (!Number.isFinite(date.getTime())) return html`${ms}`;
  const iso = date.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return html`<time datetime="${iso}">${iso.replace('T', ' ')}</time>`;
}

function formatIsoTime(text: string): SafeHtml | string {
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? formatTime(ms) : text;
}
