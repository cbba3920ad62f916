// The dashboard graph's layout (docs/decisions.md N47): dagre gives the same drawing for the same
// graph whatever order it came in, everything drawn lies inside the viewBox, every edge starts on
// its source's border and ends on its target's, and the caps say what they left out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_LABEL_CHARACTERS,
  MAX_LAYOUT_EDGES,
  MAX_LAYOUT_NODES,
  layoutGraph,
  layoutPrepared,
  prepareLayout,
  shortLabel,
  type GraphLayout,
  type LayoutInput,
  type NodeBox,
  type Point,
} from '../../../src/domain/dashboard/graph-layout.ts';

const INPUT: LayoutInput = {
  nodes: ['operand-a', 'operand-b', 'bundle', 'operator', 'catalog'],
  edges: [
    { from: 'operand-a', to: 'bundle' },
    { from: 'operand-b', to: 'bundle', label: 'operands' },
    { from: 'operator', to: 'bundle' },
    { from: 'bundle', to: 'catalog', label: 'release-group' },
    { from: 'operand-a', to: 'operator' },
  ],
};

/** Rounding to a tenth moves a point by at most 0.05 on each axis. */
const EPSILON = 0.1;

function reversed(input: LayoutInput): LayoutInput {
  return { nodes: [...input.nodes].reverse(), edges: [...input.edges].reverse() };
}

function boxOf(layout: GraphLayout, name: string): NodeBox {
  const box = layout.nodes.find((node) => node.name === name);
  assert.ok(box !== undefined, `no box for ${name}`);
  return box;
}

/** `point` lies on the border of `box`: inside it (with rounding) and on one of its sides. */
function assertOnBorder(point: Point | undefined, box: NodeBox, what: string): void {
  assert.ok(point !== undefined, `${what}: no point`);
  const dx = Math.abs(point.x - box.x);
  const dy = Math.abs(point.y - box.y);
  const halfWidth = box.width / 2;
  const halfHeight = box.height / 2;
  assert.ok(dx <= halfWidth + EPSILON && dy <= halfHeight + EPSILON, `${what}: ${JSON.stringify(point)} outside`);
  assert.ok(
    Math.abs(dx - halfWidth) <= EPSILON || Math.abs(dy - halfHeight) <= EPSILON,
    `${what}: ${JSON.stringify(point)} is inside ${box.name}, not on its border`,
  );
}

function assertInsideViewBox(layout: GraphLayout): void {
  const inside = (x: number, y: number, what: string): void => {
    assert.ok(x >= 0 && x <= layout.width && y >= 0 && y <= layout.height, `${what} (${String(x)}, ${String(y)})`);
  };
  for (const node of layout.nodes) {
    inside(node.x - node.width / 2, node.y - node.height / 2, `${node.name} top left`);
    inside(node.x + node.width / 2, node.y + node.height / 2, `${node.name} bottom right`);
  }
  for (const edge of layout.edges) {
    for (const point of edge.points) inside(point.x, point.y, `${edge.from} -> ${edge.to}`);
    if (edge.label !== undefined) inside(edge.label.x, edge.label.y, `label of ${edge.from} -> ${edge.to}`);
  }
}

describe('layoutGraph', () => {
  it('gives the same layout for the same graph, whatever order its nodes and edges come in', () => {
    const first = layoutGraph(INPUT);
    assert.deepEqual(layoutGraph(reversed(INPUT)), first);
    assert.deepEqual(layoutPrepared(prepareLayout(reversed(INPUT))), first);
    assert.deepEqual(prepareLayout(reversed(INPUT)), prepareLayout(INPUT));
    assert.deepEqual(
      first.nodes.map((node) => node.name),
      ['bundle', 'catalog', 'operand-a', 'operand-b', 'operator'],
    );
  });

  it('lays out left to right: every edge goes from a node to one further right', () => {
    const layout = layoutGraph(INPUT);
    for (const edge of layout.edges) {
      assert.ok(boxOf(layout, edge.from).x < boxOf(layout, edge.to).x, `${edge.from} -> ${edge.to}`);
    }
  });

  it('keeps every node, edge bend and label inside the viewBox', () => {
    const layout = layoutGraph(INPUT);
    assert.ok(layout.width > 0 && layout.height > 0);
    assertInsideViewBox(layout);
  });

  it('starts every edge on the border of its source and ends it on the border of its target', () => {
    const layout = layoutGraph(INPUT);
    assert.equal(layout.edges.length, INPUT.edges.length);
    for (const edge of layout.edges) {
      assert.ok(edge.points.length >= 2, `${edge.from} -> ${edge.to} has ${String(edge.points.length)} points`);
      assertOnBorder(edge.points[0], boxOf(layout, edge.from), `${edge.from} -> ${edge.to} start`);
      assertOnBorder(edge.points.at(-1), boxOf(layout, edge.to), `${edge.from} -> ${edge.to} end`);
    }
  });

  it('places a label on each labelled edge, and none on the others', () => {
    const layout = layoutGraph(INPUT);
    const labels = layout.edges.map((edge) => [edge.from, edge.to, edge.label?.text]);
    assert.deepEqual(labels, [
      ['bundle', 'catalog', 'release-group'],
      ['operand-a', 'bundle', undefined],
      ['operand-a', 'operator', undefined],
      ['operand-b', 'bundle', 'operands'],
      ['operator', 'bundle', undefined],
    ]);
  });

  it('sizes nodes by their label and shortens long names', () => {
    const long = 'a'.repeat(63);
    const layout = layoutGraph({ nodes: ['ab', 'abcdefghijklmnopqrstuvwxyz', long], edges: [] });
    const widths = ['ab', 'abcdefghijklmnopqrstuvwxyz', long].map((name) => boxOf(layout, name).width);
    assert.ok((widths[0] ?? 0) < (widths[1] ?? 0) && (widths[1] ?? 0) < (widths[2] ?? 0), String(widths));
    assert.equal(boxOf(layout, long).label, shortLabel(long));
    assert.equal(Array.from(shortLabel(long)).length, MAX_LABEL_CHARACTERS);
    assert.ok(shortLabel(long).endsWith('…'));
    assert.equal(shortLabel('short'), 'short');
  });

  it('lays out names that are Object.prototype keys, self-loops and names with markup', () => {
    const layout = layoutGraph({
      nodes: ['constructor', '__proto__', 'toString', '<script>', 'loop'],
      edges: [
        { from: 'constructor', to: '__proto__' },
        { from: '__proto__', to: 'toString' },
        { from: 'toString', to: '<script>' },
        { from: 'loop', to: 'loop' },
      ],
    });
    assert.deepEqual(
      layout.nodes.map((node) => node.name),
      ['<script>', '__proto__', 'constructor', 'loop', 'toString'],
    );
    assert.equal(layout.edges.length, 4);
    assertInsideViewBox(layout);
    for (const edge of layout.edges.filter((e) => e.from !== e.to)) {
      assertOnBorder(edge.points[0], boxOf(layout, edge.from), `${edge.from} start`);
      assertOnBorder(edge.points.at(-1), boxOf(layout, edge.to), `${edge.to} end`);
    }
  });

  it('lays out an empty graph as an empty drawing', () => {
    const layout = layoutGraph({ nodes: [], edges: [] });
    assert.deepEqual(layout.nodes, []);
    assert.deepEqual(layout.edges, []);
    assert.equal(layout.omittedNodes, 0);
  });

  it('ignores edges naming unknown nodes and repeats of a pair', () => {
    const layout = layoutGraph({
      nodes: ['a', 'b'],
      edges: [
        { from: 'a', to: 'b' },
        { from: 'a', to: 'b', label: 'second' },
        { from: 'a', to: 'ghost' },
      ],
    });
    assert.deepEqual(
      layout.edges.map((edge) => [edge.from, edge.to, edge.label]),
      [['a', 'b', undefined]],
    );
  });

  it('lays out at most MAX_LAYOUT_NODES nodes, the ones asked for first, and counts the rest', () => {
    const names = Array.from({ length: MAX_LAYOUT_NODES + 30 }, (_, i) => `c-${String(i).padStart(3, '0')}`);
    const last = names.at(-1) ?? '';
    const layout = layoutGraph({ nodes: names, edges: [{ from: 'c-000', to: last }], first: [last] });
    assert.equal(layout.nodes.length, MAX_LAYOUT_NODES);
    assert.equal(layout.omittedNodes, 30);
    assert.ok(layout.nodes.some((node) => node.name === last));
    assert.equal(layout.edges.length, 1);
    assert.equal(layout.omittedEdges, 0);
    assertInsideViewBox(layout);
  });

  it('lays out at most MAX_LAYOUT_EDGES edges, those of the names asked for first', () => {
    const sources = Array.from({ length: 41 }, (_, i) => `s-${String(i).padStart(2, '0')}`);
    const targets = Array.from({ length: 10 }, (_, i) => `t-${String(i)}`);
    const edges = sources.flatMap((from) => targets.map((to) => ({ from, to })));
    assert.ok(edges.length > MAX_LAYOUT_EDGES);
    // The cap is applied before dagre runs: the prepared input shows it without a slow layout.
    const layout = prepareLayout({ nodes: [...sources, ...targets], edges, first: ['s-40'] });
    assert.equal(layout.edges.length, MAX_LAYOUT_EDGES);
    assert.equal(layout.omittedEdges, edges.length - MAX_LAYOUT_EDGES);
    assert.equal(layout.edges.filter((edge) => edge.from === 's-40').length, targets.length);
  });
});
