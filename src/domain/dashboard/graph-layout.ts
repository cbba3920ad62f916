// The layout of a namespace's nudge graph for the dashboard (docs/decisions.md N47): dagre, left to
// right, computed on the server so the page needs no client code to draw or click through it.
// Deterministic: nodes and edges are sorted before dagre sees them (dagre itself has no randomness,
// but its result depends on insertion order), and coordinates are rounded. Bounded: dagre's cost
// grows far faster than the graph (N47 has the figures), so at most MAX_LAYOUT_NODES nodes and
// MAX_LAYOUT_EDGES edges are laid out, and the result says how many were left out. Two steps:
// `prepareLayout` (cheap: sort and cap) gives a plain, serialisable input, and `layoutPrepared` runs
// dagre on it; the dashboard server runs the second in a worker thread, off the event loop that
// also answers admission webhooks (src/dashboard/layout-worker.ts, N47).
import dagre from '@dagrejs/dagre';
import { compareStrings } from '../compare.ts';

/** Nodes laid out at most; the rest are counted in `omittedNodes` (N47: what the worker's timeout allows). */
export const MAX_LAYOUT_NODES = 200;
/** Edges laid out at most (among the nodes laid out); the rest are counted in `omittedEdges`. */
export const MAX_LAYOUT_EDGES = 400;
/** Characters of a label drawn at most; the whole text goes to the node's `<title>`. */
export const MAX_LABEL_CHARACTERS = 40;

const CHARACTER_WIDTH = 7;
const NODE_PADDING = 24;
const NODE_MIN_WIDTH = 60;
const LABEL_PADDING = 8;
export const NODE_HEIGHT = 28;
const EDGE_LABEL_HEIGHT = 14;
const MARGIN = 16;

export interface LayoutEdgeInput {
  readonly from: string;
  readonly to: string;
  /** Drawn beside the edge (a validated edge's gating group); room is made for it. */
  readonly label?: string;
}

export interface LayoutInput {
  readonly nodes: readonly string[];
  /** Edges between names of `nodes` (others are ignored), each pair once. */
  readonly edges: readonly LayoutEdgeInput[];
  /** Names laid out first when the graph is over the caps (the selected component and its neighbours). */
  readonly first?: readonly string[];
}

export interface Point {
  readonly x: number;
  readonly y: number;
}

export interface NodeBox {
  readonly name: string;
  /** The text drawn: the name, shortened to MAX_LABEL_CHARACTERS. */
  readonly label: string;
  /** Centre. */
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

export interface EdgeLine {
  readonly from: string;
  readonly to: string;
  /** From the border of `from` to the border of `to`. */
  readonly points: readonly Point[];
  /** Where the label's centre goes, when the edge has one. */
  readonly label?: { readonly text: string; readonly x: number; readonly y: number };
}

export interface GraphLayout {
  /** The drawing spans (0, 0) to (width, height), margins included: the SVG viewBox. */
  readonly width: number;
  readonly height: number;
  /** Sorted by name. */
  readonly nodes: readonly NodeBox[];
  /** Sorted by from, then to. */
  readonly edges: readonly EdgeLine[];
  readonly omittedNodes: number;
  readonly omittedEdges: number;
}

/** A label's drawn text: long names are cut, so that one hostile name cannot widen the whole graph. */
export function shortLabel(text: string): string {
  const characters = Array.from(text);
  return characters.length <= MAX_LABEL_CHARACTERS
    ? text
    : `${characters.slice(0, MAX_LABEL_CHARACTERS - 1).join('')}…`;
}

function nodeWidth(text: string): number {
  return Math.max(NODE_MIN_WIDTH, Array.from(text).length * CHARACTER_WIDTH + NODE_PADDING);
}

function labelWidth(text: string): number {
  return Array.from(text).length * CHARACTER_WIDTH + LABEL_PADDING;
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

// The part of dagre used here, typed: its published declarations import their own files without
// extensions, which `nodenext` resolution cannot follow, so its graph would be `any`.
interface DagreNode {
  width: number;
  height: number;
  x?: number;
  y?: number;
}
interface DagreEdge {
  width?: number;
  height?: number;
  labelpos?: 'l' | 'c' | 'r';
  points?: Point[];
  x?: number;
  y?: number;
}
interface DagreGraph {
  setGraph(label: Readonly<Record<string, string | number>>): unknown;
  setDefaultEdgeLabel(label: () => DagreEdge): unknown;
  setNode(id: string, label: DagreNode): unknown;
  setEdge(from: string, to: string, label: DagreEdge): unknown;
  node(id: string): DagreNode | undefined;
  edge(from: string, to: string): DagreEdge | undefined;
}
interface Dagre {
  readonly graphlib: { readonly Graph: new () => DagreGraph };
  layout(graph: DagreGraph): unknown;
}
const layoutLibrary = dagre as unknown as Dagre;

/** What dagre is given: plain data (structured-clonable), sorted, within the caps. */
export interface PreparedLayout {
  readonly nodes: readonly string[];
  readonly edges: readonly LayoutEdgeInput[];
  readonly omittedNodes: number;
  readonly omittedEdges: number;
}

/**
 * What a graph drawing came to: its layout, or none because laying it out took too long, was
 * refused (too many waiting) or failed; the view then points to the edge table (N47).
 */
export type LayoutOutcome =
  | { readonly kind: 'laid-out'; readonly layout: GraphLayout }
  | { readonly kind: 'too-large'; readonly reason: 'timeout' | 'busy' | 'failed' | 'stopped' };

/** The nodes and edges to lay out, sorted, within the caps; two inputs that prepare alike lay out alike. */
export function prepareLayout(input: LayoutInput): PreparedLayout {
  const all = [...new Set(input.nodes)].sort(compareStrings);
  const known = new Set(all);
  const firsts = [...new Set(input.first ?? [])].filter((name) => known.has(name));
  const chosen = new Set(firsts.slice(0, MAX_LAYOUT_NODES));
  for (const name of all) {
    if (chosen.size >= MAX_LAYOUT_NODES) break;
    chosen.add(name);
  }
  const nodes = all.filter((name) => chosen.has(name));
  const byPair = new Map<string, LayoutEdgeInput>();
  for (const edge of input.edges) {
    if (!known.has(edge.from) || !known.has(edge.to)) continue;
    const key = JSON.stringify([edge.from, edge.to]);
    if (!byPair.has(key)) byPair.set(key, edge);
  }
  const edges = [...byPair.values()].sort((a, b) => compareStrings(a.from, b.from) || compareStrings(a.to, b.to));
  const drawable = edges.filter((edge) => chosen.has(edge.from) && chosen.has(edge.to));
  // The edges of the names asked for first are kept first, then the rest in order.
  const wanted = new Set(firsts);
  const touches = (edge: LayoutEdgeInput): boolean => wanted.has(edge.from) || wanted.has(edge.to);
  const kept = [...drawable.filter(touches), ...drawable.filter((edge) => !touches(edge))]
    .slice(0, MAX_LAYOUT_EDGES)
    .sort((a, b) => compareStrings(a.from, b.from) || compareStrings(a.to, b.to));
  return { nodes, edges: kept, omittedNodes: all.length - nodes.length, omittedEdges: edges.length - kept.length };
}

/** Lays out a nudge graph left to right; the same input always gives the same layout. */
export function layoutGraph(input: LayoutInput): GraphLayout {
  return layoutPrepared(prepareLayout(input));
}

/** Runs dagre on a prepared input: the expensive step (N47), run by the dashboard's layout worker. */
export function layoutPrepared(prepared: PreparedLayout): GraphLayout {
  // dagre keys nodes by plain-object properties, so a component named `constructor` or `__proto__`
  // would collide with Object.prototype: it only ever sees ids.
  const ids = new Map(prepared.nodes.map((name, index) => [name, `n${String(index)}`]));
  const graph = new layoutLibrary.graphlib.Graph();
  graph.setGraph({ rankdir: 'LR', nodesep: 24, ranksep: 64, edgesep: 12, marginx: 0, marginy: 0 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const name of prepared.nodes) {
    graph.setNode(ids.get(name) ?? '', { width: nodeWidth(shortLabel(name)), height: NODE_HEIGHT });
  }
  for (const edge of prepared.edges) {
    const label: DagreEdge =
      edge.label === undefined
        ? {}
        : { width: labelWidth(shortLabel(edge.label)), height: EDGE_LABEL_HEIGHT, labelpos: 'c' };
    graph.setEdge(ids.get(edge.from) ?? '', ids.get(edge.to) ?? '', label);
  }
  layoutLibrary.layout(graph);

  const nodes = prepared.nodes.map((name): NodeBox => {
    const placed = graph.node(ids.get(name) ?? '');
    return {
      name,
      label: shortLabel(name),
      x: placed?.x ?? 0,
      y: placed?.y ?? 0,
      width: placed?.width ?? nodeWidth(shortLabel(name)),
      height: placed?.height ?? NODE_HEIGHT,
    };
  });
  const edges = prepared.edges.map((edge): EdgeLine => {
    const placed = graph.edge(ids.get(edge.from) ?? '', ids.get(edge.to) ?? '');
    const points = (placed?.points ?? []).map((point: Point) => ({ x: point.x, y: point.y }));
    const x = placed?.x;
    const y = placed?.y;
    return {
      from: edge.from,
      to: edge.to,
      points,
      ...(edge.label === undefined || x === undefined || y === undefined
        ? {}
        : { label: { text: shortLabel(edge.label), x, y } }),
    };
  });
  return normalised(nodes, edges, prepared);
}

/** Moved so that everything drawn (nodes, edge bends, labels) lies MARGIN inside (0, 0)–(width, height). */
function normalised(nodes: readonly NodeBox[], edges: readonly EdgeLine[], prepared: PreparedLayout): GraphLayout {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  const include = (x: number, y: number, halfWidth = 0, halfHeight = 0): void => {
    minX = Math.min(minX, x - halfWidth);
    maxX = Math.max(maxX, x + halfWidth);
    minY = Math.min(minY, y - halfHeight);
    maxY = Math.max(maxY, y + halfHeight);
  };
  for (const node of nodes) include(node.x, node.y, node.width / 2, node.height / 2);
  for (const edge of edges) {
    for (const point of edge.points) include(point.x, point.y);
    if (edge.label !== undefined) {
      include(edge.label.x, edge.label.y, labelWidth(edge.label.text) / 2, EDGE_LABEL_HEIGHT / 2);
    }
  }
  if (nodes.length === 0) [minX, minY, maxX, maxY] = [0, 0, 0, 0];
  const dx = MARGIN - minX;
  const dy = MARGIN - minY;
  const move = (point: Point): Point => ({ x: round(point.x + dx), y: round(point.y + dy) });
  return {
    width: Math.ceil(maxX - minX + 2 * MARGIN),
    height: Math.ceil(maxY - minY + 2 * MARGIN),
    nodes: nodes.map((node) => ({ ...node, ...move(node) })),
    edges: edges.map((edge) => ({
      ...edge,
      points: edge.points.map(move),
      ...(edge.label === undefined ? {} : { label: { text: edge.label.text, ...move(edge.label) } }),
    })),
    omittedNodes: prepared.omittedNodes,
    omittedEdges: prepared.omittedEdges,
  };
}
