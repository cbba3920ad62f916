// The nudge graph of one namespace (issue 14, docs/decisions.md D14, N47): an inline SVG laid out on
// the server by dagre (graph-layout.ts), every component a plain link to the same view with that
// component selected, so clicking through needs no client code. Immediate edges are solid,
// validated edges dashed and labelled with their gating group; edges naming a Component that does
// not exist (ADR 67 stale references, judged only when the namespace's Components are known) and
// edges inside a cycle are red. A table lists every declared edge below the drawing, for screen
// readers, for graphs too large to draw whole, and for the tests. The selected component's panel
// shows what its newest push build nudged, read from the dispatcher's marker by the marker's own
// parser (N18). Built only with the `html` tag; presentation attributes, never `style=`.
// The layout is an input, not computed here: dagre can take seconds, so the server asks
// `graphLayoutInput` for the plain input, has it laid out off its event loop (N47), and passes the
// outcome to `graphView`, which stays a pure and cheap function of its arguments.
import { formatElapsed } from '../changegroup/duration.ts';
import { compareStrings } from '../compare.ts';
import { findCycles, stronglyConnectedComponents } from '../cycles.ts';
import { formatOrigin, type NamespaceGraph } from '../graph.ts';
import type { NudgeEdge } from '../model.ts';
import { buildPipelineRunOf, type BuildPipelineRun } from '../nudge-pipelinerun.ts';
import {
  BUILD_ENTRY,
  DISPATCH_MARKER_ANNOTATION,
  parseMarker,
  type MarkerEntry,
  type TargetState,
} from '../nudge/dispatch-marker.ts';
import { skipText, type MessageContext } from '../nudge/dispatch-messages.ts';
import { staleReferences } from '../stale-references.ts';
import {
  MAX_LAYOUT_EDGES,
  MAX_LAYOUT_NODES,
  type EdgeLine,
  type LayoutInput,
  type LayoutOutcome,
  type NodeBox,
  type Point,
} from './graph-layout.ts';
import { dataTable, notShown } from './data-table.ts';
import { createdAt, isNewer } from './newest-builds.ts';
import { dashboardPath, html, joinHtml, type SafeHtml } from './html.ts';
import type { NamespaceSnapshot, ViewContext } from './inputs.ts';

/** Declared edges listed in the table at most; the rest are counted. */
export const MAX_EDGE_ROWS = 500;
/** Cycles named above the drawing at most. */
export const MAX_CYCLES_LISTED = 20;

const COLOUR = {
  edge: '#57606a',
  bad: '#cf222e',
  nodeFill: '#f6f8fa',
  nodeStroke: '#57606a',
  badFill: '#ffebe9',
  selectedFill: '#ddf4ff',
  selectedStroke: '#0969da',
  text: '#1f2328',
  halo: '#ffffff',
} as const;
const DASH = '6 4';
const ARROW_ID = 'nudge-arrow';
const BAD_ARROW_ID = 'nudge-arrow-bad';

/** The link to this view with `component` selected. */
export function componentHref(namespace: string, component: string): string {
  return `${dashboardPath('ns', namespace, 'graph')}?component=${encodeURIComponent(component)}`;
}

/** What the drawing and the table know about the graph's problems. */
interface Findings {
  /** Names edges refer to with no Component; undefined when Components are not known. */
  readonly missing: ReadonlySet<string> | undefined;
  /** Strongly connected component index of each name in a cycle of two or more. */
  readonly cycleGroup: ReadonlyMap<string, number>;
  /** One cycle per strongly connected component and every self-loop, as findCycles gives them. */
  readonly cycles: readonly (readonly string[])[];
}

function findingsOf(graph: NamespaceGraph): Findings {
  const { components } = graph;
  const missing =
    components === undefined ? undefined : new Set(staleReferences(graph.edges, new Set(components.keys())).missing);
  const cycleGroup = new Map<string, number>();
  const groups = stronglyConnectedComponents(graph.nodes, (name) => graph.successors(name)).filter(
    (members) => members.length > 1,
  );
  groups.forEach((members, index) => {
    for (const name of members) cycleGroup.set(name, index);
  });
  return { missing, cycleGroup, cycles: findCycles(graph.nodes, (name) => graph.successors(name)) };
}

function isStale(findings: Findings, edge: Pick<NudgeEdge, 'from' | 'to'>): boolean {
  return findings.missing !== undefined && (findings.missing.has(edge.from) || findings.missing.has(edge.to));
}

function inCycle(findings: Findings, edge: Pick<NudgeEdge, 'from' | 'to'>): boolean {
  const group = findings.cycleGroup.get(edge.from);
  return edge.from === edge.to || (group !== undefined && findings.cycleGroup.get(edge.to) === group);
}

function compareEdges(a: NudgeEdge, b: NudgeEdge): number {
  return (
    compareStrings(a.from, b.from) ||
    compareStrings(a.to, b.to) ||
    compareStrings(a.origin.via, b.origin.via) ||
    a.origin.index - b.origin.index
  );
}

/** The first declared edge of each (from, to): it decides how the drawn line looks. */
function drawnEdges(graph: NamespaceGraph): ReadonlyMap<string, NudgeEdge> {
  const byPair = new Map<string, NudgeEdge>();
  for (const edge of graph.edges) {
    const key = JSON.stringify([edge.from, edge.to]);
    if (!byPair.has(key)) byPair.set(key, edge);
  }
  return byPair;
}

function edgeLabel(edge: NudgeEdge): string | undefined {
  if (edge.mode !== 'validated') return undefined;
  return edge.gatingGroup ?? 'no gating group';
}

/**
 * What the drawing of `snapshot`'s graph lays out (plain data): every node, the first declared edge
 * of each pair with its gating group as label, and `selected` with its neighbours first.
 */
export function graphLayoutInput(snapshot: NamespaceSnapshot, selected?: string): LayoutInput {
  const { graph } = snapshot;
  return {
    nodes: graph.nodes,
    edges: [...drawnEdges(graph).values()].map((edge) => {
      const label = edgeLabel(edge);
      return label === undefined ? { from: edge.from, to: edge.to } : { from: edge.from, to: edge.to, label };
    }),
    first: selected === undefined ? [] : [selected, ...graph.predecessors(selected), ...graph.successors(selected)],
  };
}

/** `layout`: what laying out `graphLayoutInput(snapshot, selected)` came to. */
export function graphView(
  snapshot: NamespaceSnapshot,
  context: ViewContext,
  selected: string | undefined,
  layout: LayoutOutcome,
): SafeHtml {
  const { graph, namespace } = snapshot;
  const findings = findingsOf(graph);
  const staleCount = findings.missing?.size ?? 0;
  return html`<div class="view-header">
      <h1>Nudge graph of <span class="mono">${namespace}</span></h1>
      <span class="badge badge-muted">components: ${graph.components?.size ?? 0}</span>
      <span class="badge badge-muted">edges: ${graph.edges.length}</span>
      ${staleCount > 0 && html`<span class="badge badge-bad">stale references: ${staleCount}</span>`}
      ${findings.cycles.length > 0 && html`<span class="badge badge-bad">cycles: ${findings.cycles.length}</span>`}
    </div>
    ${problemsSection(graph, findings)}
    <div class="graph-layout">
      <section class="panel">
        <h2>Graph</h2>
        ${drawing(snapshot, findings, selected, layout)}
      </section>
      ${selected === undefined ? '' : sidePanel(snapshot, context, selected)}
    </div>
    <section class="panel">
      <h2>Edges</h2>
      ${edgeTable(snapshot, findings)}
    </section>`;
}

// --- problems ------------------------------------------------------------------------------------

function problemsSection(graph: NamespaceGraph, findings: Findings): SafeHtml {
  const unjudged =
    graph.components === undefined && graph.edges.length > 0
      ? html`<p class="muted">No Component of this namespace is known, so stale references are not judged.</p>`
      : '';
  const cycles = findings.cycles;
  if (cycles.length === 0) return html`${unjudged}`;
  const listed = cycles.slice(0, MAX_CYCLES_LISTED);
  return html`${unjudged}
    <section class="panel">
      <h2>Cycles</h2>
      <ul>
        ${listed.map((cycle) => html`<li class="error mono">${cycle.join(' → ')}</li>`)}
      </ul>
      ${notShown(cycles.length - listed.length, 'cycle')}
    </section>`;
}

// --- the drawing ---------------------------------------------------------------------------------

function drawing(
  snapshot: NamespaceSnapshot,
  findings: Findings,
  selected: string | undefined,
  outcome: LayoutOutcome,
): SafeHtml {
  const { graph, namespace } = snapshot;
  if (graph.nodes.length === 0) {
    return html`<p class="empty">No Components and no nudges in this namespace.</p>`;
  }
  if (outcome.kind === 'too-large') {
    return html`<p class="more">The graph is too large to lay out; see the edge table below.</p>`;
  }
  const { layout } = outcome;
  const pairs = drawnEdges(graph);
  const lines = layout.edges.map((line) => {
    const edge = pairs.get(JSON.stringify([line.from, line.to]));
    return edge === undefined ? '' : edgeShape(line, edge, findings);
  });
  const boxes = layout.nodes.map((box) => nodeShape(namespace, box, findings, box.name === selected));
  const omitted =
    layout.omittedNodes + layout.omittedEdges > 0
      ? html`<p class="more">
          ${layout.omittedNodes} components and ${layout.omittedEdges} edges are not drawn: the drawing holds at most
          ${MAX_LAYOUT_NODES} components and ${MAX_LAYOUT_EDGES} edges (the selected component and its neighbours
          first). The table below lists every edge.
        </p>`
      : '';
  return html`${omitted}
    <div class="graph">
      <svg
        xmlns="http://www.w3.org/2000/svg"
        viewBox="0 0 ${layout.width} ${layout.height}"
        width="${layout.width}"
        height="${layout.height}"
        role="img"
        aria-label="${`Nudge graph of namespace ${namespace}: ${String(graph.nodes.length)} components, ${String(graph.edges.length)} edges`}"
      >
        <defs>${arrowMarker(ARROW_ID, COLOUR.edge)}${arrowMarker(BAD_ARROW_ID, COLOUR.bad)}</defs>
        <g class="edges">${lines}</g>
        <g class="nodes">${boxes}</g>
      </svg>
    </div>
    ${legend(graph)}`;
}

function arrowMarker(id: string, colour: string): SafeHtml {
  return html`<marker
    id="${id}"
    viewBox="0 0 10 10"
    refX="10"
    refY="5"
    markerWidth="8"
    markerHeight="8"
    markerUnits="userSpaceOnUse"
    orient="auto"
    ><path d="M0,0 L10,5 L0,10 z" fill="${colour}"
  /></marker>`;
}

function pathData(line: EdgeLine): string {
  return line.points.map((point, index) => `${index === 0 ? 'M' : 'L'}${String(point.x)},${String(point.y)}`).join(' ');
}

function edgeShape(line: EdgeLine, edge: NudgeEdge, findings: Findings): SafeHtml {
  const stale = isStale(findings, edge);
  const cycle = inCycle(findings, edge);
  const bad = stale || cycle;
  const validated = edge.mode === 'validated';
  const classes = ['edge', validated ? 'edge-validated' : '', bad ? 'edge-bad' : ''].filter((c) => c !== '').join(' ');
  const colour = bad ? COLOUR.bad : COLOUR.edge;
  const problems = [stale ? 'stale reference' : '', cycle ? 'in a cycle' : ''].filter((p) => p !== '');
  const description = `${edge.from} → ${edge.to}: ${
    validated ? `validated, gating group ${edgeLabel(edge) ?? ''}` : 'immediate'
  }${problems.length > 0 ? `; ${problems.join(', ')}` : ''}`;
  return html`<path
      class="${classes}"
      d="${pathData(line)}"
      fill="none"
      stroke="${colour}"
      stroke-width="1.5"
      ${validated && html`stroke-dasharray="${DASH}"`}
      marker-end="url(#${bad ? BAD_ARROW_ID : ARROW_ID})"
      ><title>${description}</title></path
    >${
      line.label === undefined
        ? ''
        : centredText(
            'edge-label',
            line.label,
            11,
            colour,
            line.label.text,
            html`stroke="${COLOUR.halo}" stroke-width="3" paint-order="stroke"`,
          )
    }`;
}

function nodeShape(namespace: string, box: NodeBox, findings: Findings, selected: boolean): SafeHtml {
  const missing = findings.missing?.has(box.name) === true;
  const cycle = findings.cycleGroup.has(box.name);
  const fill = selected ? COLOUR.selectedFill : missing ? COLOUR.badFill : COLOUR.nodeFill;
  const stroke = selected ? COLOUR.selectedStroke : missing || cycle ? COLOUR.bad : COLOUR.nodeStroke;
  const notes = [missing ? 'no Component of this name (stale reference)' : '', cycle ? 'in a cycle' : ''].filter(
    (note) => note !== '',
  );
  const title = notes.length === 0 ? box.name : `${box.name}: ${notes.join(', ')}`;
  return html`<a href="${componentHref(namespace, box.name)}"
    ><title>${title}</title
    ><rect
      class="${selected ? 'node node-selected' : missing || cycle ? 'node node-bad' : 'node'}"
      x="${box.x - box.width / 2}"
      y="${box.y - box.height / 2}"
      width="${box.width}"
      height="${box.height}"
      rx="4"
      fill="${fill}"
      stroke="${stroke}"
      stroke-width="${selected ? 2.5 : 1}"
      ${missing && html`stroke-dasharray="${DASH}"`}
    />${centredText('node-label', box, 12, COLOUR.text, box.label, html`font-family="monospace"`)}</a
  >`;
}

/** Text centred on `at`; `attributes` are further presentation attributes. */
function centredText(
  className: string,
  at: Point,
  fontSize: number,
  fill: string,
  text: string,
  attributes: SafeHtml,
): SafeHtml {
  return html`<text
    class="${className}"
    x="${at.x}"
    y="${at.y}"
    text-anchor="middle"
    dominant-baseline="central"
    font-size="${fontSize}"
    fill="${fill}"
    ${attributes}
    >${text}</text
  >`;
}

function swatch(colour: string, dashed: boolean): SafeHtml {
  return html`<svg width="36" height="10" viewBox="0 0 36 10" aria-hidden="true">
    <line
      x1="0"
      y1="5"
      x2="36"
      y2="5"
      stroke="${colour}"
      stroke-width="2"
      ${dashed && html`stroke-dasharray="${DASH}"`}
    />
  </svg>`;
}

function legend(graph: NamespaceGraph): SafeHtml {
  return html`<ul class="legend">
    <li>${swatch(COLOUR.edge, false)} immediate: nudges when the build succeeds</li>
    <li>
      ${swatch(COLOUR.edge, true)} validated: nudges when its gating group's Snapshot passes (labelled with the group)
    </li>
    <li>
      ${swatch(COLOUR.bad, false)} red: a stale reference (names a Component that does not
      exist${graph.components === undefined ? '; not judged here' : ''}) or part of a cycle
    </li>
    <li class="muted">Select a component to see what its newest push build nudged.</li>
  </ul>`;
}

// --- the edge table ------------------------------------------------------------------------------

function componentLink(namespace: string, name: string): SafeHtml {
  return html`<a class="mono" href="${componentHref(namespace, name)}">${name}</a>`;
}

function edgeTable(snapshot: NamespaceSnapshot, findings: Findings): SafeHtml {
  const { graph, namespace } = snapshot;
  if (graph.edges.length === 0) return html`<p class="empty">No nudges are declared in this namespace.</p>`;
  const edges = [...graph.edges].sort(compareEdges);
  const rows = edges.slice(0, MAX_EDGE_ROWS).map((edge) => {
    const problems = [
      isStale(findings, edge) ? html`<span class="badge badge-bad">stale reference</span>` : undefined,
      inCycle(findings, edge) ? html`<span class="badge badge-bad">cycle</span>` : undefined,
    ].filter((problem) => problem !== undefined);
    return html`<tr>
      <td>${componentLink(namespace, edge.from)}</td>
      <td>${componentLink(namespace, edge.to)}</td>
      <td>${edge.mode}</td>
      <td class="mono">
        ${edge.mode === 'validated' ? (edge.gatingGroup ?? html`<span class="error">none</span>`) : ''}
      </td>
      <td class="mono">${formatOrigin(edge.origin)}</td>
      <td>${joinHtml(problems, ' ')}</td>
    </tr>`;
  });
  return html`${dataTable(['From', 'To', 'Mode', 'Gating group', 'Declared in', 'Problems'], rows)}
  ${notShown(edges.length - MAX_EDGE_ROWS, 'edge')}`;
}

// --- the selected component ----------------------------------------------------------------------

/** The component's newest push build, whatever its marker says (newest-builds.ts orders builds). */
function newestPushBuild(snapshot: NamespaceSnapshot, component: string): BuildPipelineRun | undefined {
  let newest: BuildPipelineRun | undefined;
  for (const run of snapshot.buildRuns) {
    const build = buildPipelineRunOf(run);
    if (build.component !== component || build.eventType !== 'push') continue;
    if (newest === undefined || isNewer(build, newest)) newest = build;
  }
  return newest;
}

function sidePanel(snapshot: NamespaceSnapshot, context: ViewContext, selected: string): SafeHtml {
  const { graph, namespace } = snapshot;
  const known = graph.components?.has(selected) === true || graph.nodes.includes(selected);
  if (!known) {
    return html`<aside class="side-panel panel">
      <h2>Component <span class="mono">${selected}</span></h2>
      <p class="empty">No component of this name is known in <span class="mono">${namespace}</span>.</p>
    </aside>`;
  }
  const stale =
    graph.components !== undefined && !graph.components.has(selected)
      ? html`<p class="error">No Component of this name exists: edges name it (a stale reference).</p>`
      : '';
  const names = (list: readonly string[]): SafeHtml =>
    list.length === 0
      ? html`<span class="muted">none</span>`
      : joinHtml(
          list.map((name) => componentLink(namespace, name)),
          ', ',
        );
  return html`<aside class="side-panel panel">
    <h2>Component <span class="mono">${selected}</span></h2>
    ${stale}
    <dl class="facts">
      <dt>Nudges</dt>
      <dd>${names(graph.successors(selected))}</dd>
      <dt>Nudged by</dt>
      <dd>${names(graph.predecessors(selected))}</dd>
    </dl>
    <h3>Newest push build</h3>
    ${buildSection(snapshot, context, selected)}
  </aside>`;
}

function created(build: BuildPipelineRun, context: ViewContext): SafeHtml {
  const ms = createdAt(build);
  if (ms === Number.NEGATIVE_INFINITY) return html`<span class="muted">unknown</span>`;
  return html`<span class="mono">${time(ms)}</span>
    <span class="muted">(${formatElapsed(context.now - ms)} ago)</span>`;
}

function succeededBadge(build: BuildPipelineRun): SafeHtml {
  switch (build.succeeded) {
    case 'True':
      return html`<span class="badge badge-ok">succeeded</span>`;
    case 'False':
      return html`<span class="badge badge-bad">failed</span>`;
    case 'Unknown':
      return html`<span class="badge badge-info">running</span>`;
    case 'absent':
      return html`<span class="badge badge-muted">not started</span>`;
  }
}

function buildSection(snapshot: NamespaceSnapshot, context: ViewContext, component: string): SafeHtml {
  const build = newestPushBuild(snapshot, component);
  if (build === undefined) {
    return html`<p class="empty">No push build of this component is known.</p>`;
  }
  const run = build.pipelineRun;
  const facts = html`<dl class="facts">
    <dt>PipelineRun</dt>
    <dd class="mono">${run.name}</dd>
    <dt>Created</dt>
    <dd>${created(build, context)}</dd>
    <dt>Result</dt>
    <dd>${succeededBadge(build)}</dd>
  </dl>`;
  const text = run.annotations[DISPATCH_MARKER_ANNOTATION];
  if (text === undefined) {
    return html`${facts}
      <p class="muted">Not dispatched by nudger: the build carries no marker.</p>`;
  }
  const reading = parseMarker(text);
  if (!reading.ok) {
    return html`${facts}
      <p class="error">The dispatcher's marker cannot be read: ${reading.problem.message}</p>`;
  }
  const entries = reading.marker.entries;
  if (entries.length === 0) {
    return html`${facts}
      <p class="muted">Dispatched by nudger; no target yet.</p>`;
  }
  const messages: MessageContext = { build: run.name, component };
  const rows = entries.map(
    (entry) =>
      html`<tr>
        <td>
          ${entry.name === BUILD_ENTRY ? html`<em>the whole build</em>` : componentLink(snapshot.namespace, entry.name)}
        </td>
        <td>${stateCell(snapshot.namespace, entry, messages)}</td>
      </tr>`,
  );
  return html`${facts}${dataTable(['Target', 'State'], rows)}`;
}

function changeGroupLink(namespace: string, name: string): SafeHtml {
  return html`<a class="mono" href="${dashboardPath('ns', namespace, 'changegroups', name)}">${name}</a>`;
}

/** `2026-01-15T10:05:00Z`: as the API server writes times. */
function time(ms: number): string {
  return new Date(ms).toISOString().replace(/\.000Z$/, 'Z');
}

function stateCell(namespace: string, entry: MarkerEntry, messages: MessageContext): SafeHtml {
  const state: TargetState = entry.state;
  switch (state.kind) {
    case 'pullRequest':
      return html`<span class="badge badge-ok">pull request</span>`;
    case 'held':
      return html`<span class="badge badge-warn">held</span> by ${changeGroupLink(namespace, state.changeGroup)}`;
    case 'holding':
      return html`<span class="badge badge-warn">being held</span> by ${changeGroupLink(namespace, state.changeGroup)}`;
    case 'failed':
      return html`<span class="badge badge-bad">failed</span> <span class="mono">${state.reason}</span>`;
    case 'skipped':
      return html`<span class="badge badge-muted">skipped</span> <span class="mono">${state.reason}</span>
        <span class="muted">${skipText(messages, entry.name, state.reason)}</span>`;
    case 'firing':
      return html`<span class="badge badge-info">firing</span> attempt ${state.attempt}, started
        <span class="mono">${time(state.startedAt)}</span>`;
    case 'retry':
      return html`<span class="badge badge-warn">retry</span> ${state.failures} failed, the last for
        <span class="mono">${state.reason}</span>; next attempt not before
        <span class="mono">${time(state.notBefore)}</span>`;
  }
}
