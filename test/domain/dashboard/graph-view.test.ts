// The namespace graph view (issue 14, docs/decisions.md D14, N47): validated edges dashed and
// labelled with their gating group, stale references and cycles red, every component a link, the
// selected component's panel read from the dispatcher's marker (written here by the marker's own
// writer), and hostile names from build-nudges-ref and NudgeConfig entries rendered as text.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_LAYOUT_NODES, layoutGraph } from '../../../src/domain/dashboard/graph-layout.ts';
import { componentHref, graphLayoutInput, graphView } from '../../../src/domain/dashboard/graph-view.ts';
import { escapeHtml, type SafeHtml } from '../../../src/domain/dashboard/html.ts';
import type { NamespaceSnapshot, ViewContext } from '../../../src/domain/dashboard/inputs.ts';
import { serializeMarker, type MarkerEntry } from '../../../src/domain/nudge/dispatch-marker.ts';
import {
  IMG,
  IMG_ESCAPED,
  NOW,
  SCRIPT,
  SCRIPT_ESCAPED,
  assertEscaped,
  assertInert,
  buildRun,
  component,
  nudgeConfig,
  snapshot,
} from './snapshot-fixtures.ts';

const NS = 'team-a';
const CONTEXT: ViewContext = { now: NOW, korifi: false };
const RED = '#cf222e';
const MINUTE = 60_000;
const T = Date.parse('2026-01-15T10:00:00Z');

/** operand-a → bundle (immediate), operand-b → bundle (validated, group operands), bundle → catalog. */
function basic(parts: Partial<Pick<NamespaceSnapshot, 'buildRuns'>> = {}): NamespaceSnapshot {
  return snapshot(NS, {
    components: [
      component(NS, 'operand-a', ['bundle']),
      component(NS, 'operand-b'),
      component(NS, 'bundle'),
      component(NS, 'catalog'),
    ],
    nudgeConfig: nudgeConfig(NS, [
      { from: 'operand-b', to: 'bundle', mode: 'validated', gatingGroup: 'operands' },
      { from: 'bundle', to: 'catalog' },
    ]),
    ...parts,
  });
}

/** The `<path ...>` drawn for `from -> to`, found by its title. */
function edgePath(text: string, from: string, to: string): string {
  const title = `<title>${escapeHtml(`${from} → ${to}`)}:`;
  const paths = [...text.matchAll(/<path\s[^>]*>\s*<title>[^<]*<\/title>/g)].map(([path]) => path);
  const path = paths.find((candidate) => candidate.includes(title));
  assert.ok(path !== undefined, `no path for ${from} -> ${to}`);
  return path;
}

/** The `<tr>` of the edge table for `from -> to` (declared once). */
function edgeRow(text: string, from: string, to: string): string {
  const rows = [...text.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([row]) => row);
  const row = rows.find(
    (candidate) =>
      candidate.includes(`href="${escapeHtml(componentHref(NS, from))}"`) &&
      candidate.indexOf(`href="${escapeHtml(componentHref(NS, to))}"`) >
        candidate.indexOf(`href="${escapeHtml(componentHref(NS, from))}"`),
  );
  assert.ok(row !== undefined, `no row for ${from} -> ${to}`);
  return row;
}

function svgOf(text: string): string {
  const match = /<svg[\s\S]*?<\/svg>\s*<\/div>/.exec(text);
  assert.ok(match !== null, 'no drawing');
  return match[0];
}

function panelOf(text: string): string {
  const match = /<aside class="side-panel[\s\S]*?<\/aside>/.exec(text);
  assert.ok(match !== null, 'no side panel');
  return match[0];
}

/** The view, laid out here as the server's layout worker would (src/dashboard/layout-worker.ts). */
function render(view: NamespaceSnapshot, selected?: string): SafeHtml {
  return graphView(view, CONTEXT, selected, {
    kind: 'laid-out',
    layout: layoutGraph(graphLayoutInput(view, selected)),
  });
}

describe('graphView', () => {
  it('draws an SVG with a viewBox, an accessible name, arrowheads and a title per node', () => {
    const text = render(basic()).text;
    const svg = svgOf(text);
    assert.match(svg, /<svg[^>]*viewBox="0 0 \d+ \d+"/);
    assert.match(svg, /role="img"/);
    assert.match(svg, /aria-label="Nudge graph of namespace team-a: 4 components, 3 edges"/);
    assert.match(svg, /<defs><marker\s+id="nudge-arrow"/);
    for (const name of ['operand-a', 'operand-b', 'bundle', 'catalog']) {
      assert.ok(svg.includes(`<title>${name}</title`), `title of ${name}`);
    }
    assert.equal([...svg.matchAll(/marker-end="url\(#nudge-arrow\)"/g)].length, 3);
    assertInert(text);
  });

  it('draws immediate edges solid and validated edges dashed, labelled with their gating group', () => {
    const text = render(basic()).text;
    const immediate = edgePath(text, 'operand-a', 'bundle');
    assert.doesNotMatch(immediate, /stroke-dasharray/);
    assert.match(immediate, /class="edge"/);
    const validated = edgePath(text, 'operand-b', 'bundle');
    assert.match(validated, /class="edge edge-validated"/);
    assert.match(validated, /stroke-dasharray="6 4"/);
    assert.match(validated, /<title>operand-b → bundle: validated, gating group operands<\/title>/);
    assert.match(svgOf(text), /<text\s+class="edge-label"[^>]*>operands<\/text/);
    assert.match(edgeRow(text, 'operand-b', 'bundle'), /<td>validated<\/td>\s*<td class="mono">\s*operands\s*<\/td>/);
    assert.match(edgeRow(text, 'operand-a', 'bundle'), /spec\.build-nudges-ref\[0\]/);
    assert.match(edgeRow(text, 'bundle', 'catalog'), /NudgeConfig team-a\/nudge-config spec\.nudges\[1\]/);
  });

  it('links every component to the graph with it selected, in the drawing and in the table', () => {
    const text = render(basic()).text;
    const svg = svgOf(text);
    for (const name of ['operand-a', 'operand-b', 'bundle', 'catalog']) {
      assert.ok(svg.includes(`<a href="/ns/team-a/graph?component=${name}"`), `node link of ${name}`);
    }
    assert.equal([...svg.matchAll(/<a href=/g)].length, 4);
    assert.equal([...text.matchAll(/<tr>/g)].length, 1 + 3);
  });

  it('draws stale references red, names them in the table and counts them', () => {
    const view = snapshot(NS, {
      components: [component(NS, 'operand-a', ['gone-legacy']), component(NS, 'bundle')],
      nudgeConfig: nudgeConfig(NS, [
        { from: 'operand-a', to: 'bundle' },
        { from: 'operand-a', to: 'gone', mode: 'validated', gatingGroup: 'g' },
      ]),
    });
    const text = render(view).text;
    const legacy = edgePath(text, 'operand-a', 'gone-legacy');
    assert.match(legacy, /class="edge edge-bad"/);
    assert.match(legacy, new RegExp(`stroke="${RED}"`));
    assert.match(legacy, /marker-end="url\(#nudge-arrow-bad\)"/);
    assert.match(legacy, /stale reference<\/title>/);
    const validated = edgePath(text, 'operand-a', 'gone');
    assert.match(validated, /class="edge edge-validated edge-bad"/);
    assert.match(validated, /stroke-dasharray="6 4"/);
    assert.doesNotMatch(edgePath(text, 'operand-a', 'bundle'), /edge-bad|#cf222e/);
    assert.match(edgeRow(text, 'operand-a', 'gone'), /stale reference/);
    assert.doesNotMatch(edgeRow(text, 'operand-a', 'bundle'), /stale reference/);
    assert.match(text, /stale references: 2/);
    assert.match(
      svgOf(text),
      /<title>gone: no Component of this name \(stale reference\)<\/title\s*><rect\s+class="node node-bad"/,
    );
  });

  it('does not judge stale references when no Component of the namespace is known', () => {
    const view = snapshot(NS, { nudgeConfig: nudgeConfig(NS, [{ from: 'a', to: 'b' }]) });
    assert.equal(view.graph.components, undefined);
    const text = render(view).text;
    assert.doesNotMatch(edgePath(text, 'a', 'b'), /edge-bad/);
    assert.match(text, /No Component of this namespace is known, so stale references are not judged/);
    assert.match(text, /not judged here/);
  });

  it('draws the edges of a cycle red and lists the cycle', () => {
    const view = snapshot(NS, {
      components: ['a', 'b', 'c', 'd'].map((name) => component(NS, name)),
      nudgeConfig: nudgeConfig(NS, [
        { from: 'a', to: 'b' },
        { from: 'b', to: 'c', mode: 'validated', gatingGroup: 'g' },
        { from: 'c', to: 'a' },
        { from: 'c', to: 'd' },
      ]),
    });
    const text = render(view).text;
    for (const [from, to] of [
      ['a', 'b'],
      ['b', 'c'],
      ['c', 'a'],
    ] as const) {
      assert.match(edgePath(text, from, to), /edge-bad/, `${from} -> ${to}`);
      assert.match(edgeRow(text, from, to), /badge-bad">cycle</);
    }
    assert.doesNotMatch(edgePath(text, 'c', 'd'), /edge-bad/);
    assert.doesNotMatch(edgeRow(text, 'c', 'd'), /cycle/);
    assert.match(text, /<li class="error mono">a → b → c → a<\/li>/);
    assert.match(text, /cycles: 1/);
  });

  it('marks a self-nudge from build-nudges-ref as a cycle', () => {
    const view = snapshot(NS, { components: [component(NS, 'loop', ['loop'])] });
    const text = render(view).text;
    assert.match(edgePath(text, 'loop', 'loop'), /edge-bad/);
    assert.match(text, /<li class="error mono">loop → loop<\/li>/);
  });

  it('shows a legend for solid, dashed and red edges', () => {
    const text = render(basic()).text;
    const legend = /<ul class="legend">[\s\S]*?<\/ul>/.exec(text)?.[0] ?? '';
    assert.match(legend, /immediate/);
    assert.match(legend, /stroke-dasharray="6 4"[\s\S]*validated/);
    assert.match(legend, new RegExp(`stroke="${RED}"[\\s\\S]*stale reference[\\s\\S]*cycle`));
  });

  it('says so when the namespace has nothing to draw', () => {
    const text = render(snapshot(NS)).text;
    assert.match(text, /No Components and no nudges in this namespace/);
    assert.match(text, /No nudges are declared in this namespace/);
    assert.doesNotMatch(text, /<svg[^>]*role="img"/);
  });

  it('highlights the selected component and shows what its newest push build nudged', () => {
    const entries: MarkerEntry[] = [
      { name: 'bundle', state: { kind: 'pullRequest' } },
      { name: 'catalog', state: { kind: 'held', changeGroup: 'release-42' } },
      { name: 'docs', state: { kind: 'failed', reason: 'forge-unauthorized' } },
      { name: 'gone', state: { kind: 'skipped', reason: 'target-not-found' } },
      { name: 'operator', state: { kind: 'firing', attempt: 2, startedAt: T + 90 * MINUTE } },
      { name: 'sdk', state: { kind: 'retry', failures: 3, notBefore: T + 125 * MINUTE, reason: 'rate-limited' } },
      { name: 'tools', state: { kind: 'holding', changeGroup: 'release-43' } },
    ];
    const view = basic({
      buildRuns: [
        buildRun('operand-a-old', {
          namespace: NS,
          component: 'operand-a',
          minute: 10,
          marker: 'v1 bundle=pullRequest',
        }),
        buildRun('operand-a-new', {
          namespace: NS,
          component: 'operand-a',
          minute: 30,
          marker: serializeMarker({ entries }),
        }),
        buildRun('operand-a-pr', { namespace: NS, component: 'operand-a', minute: 50, eventType: 'pull_request' }),
        buildRun('bundle-1', { namespace: NS, component: 'bundle', minute: 40 }),
      ],
    });
    const text = render(view, 'operand-a').text;
    assert.match(svgOf(text), /<title>operand-a<\/title\s*><rect\s+class="node node-selected"/);
    assert.equal([...text.matchAll(/node-selected/g)].length, 1);
    const panel = panelOf(text);
    assert.match(panel, /<h2>Component <span class="mono">operand-a<\/span><\/h2>/);
    assert.match(panel, /<dd class="mono">operand-a-new<\/dd>/);
    assert.match(panel, /2026-01-15T10:30:00Z<\/span>\s*<span class="muted">\(1h30m ago\)/);
    assert.match(panel, /badge-ok">succeeded/);
    const row = (target: string): string => edgeRowIn(panel, target);
    assert.match(row('bundle'), /badge-ok">pull request</);
    assert.match(
      row('catalog'),
      /held<\/span> by <a class="mono" href="\/ns\/team-a\/changegroups\/release-42">release-42<\/a>/,
    );
    assert.match(row('docs'), /badge-bad">failed<\/span> <span class="mono">forge-unauthorized</);
    assert.match(
      row('gone'),
      /skipped<\/span> <span class="mono">target-not-found<\/span>\s*<span class="muted">Component gone does not exist/,
    );
    assert.match(row('operator'), /firing<\/span> attempt 2, started\s*<span class="mono">2026-01-15T11:30:00Z/);
    assert.match(
      row('sdk'),
      /retry<\/span> 3 failed, the last for\s*<span class="mono">rate-limited<\/span>; next attempt not before\s*<span class="mono">2026-01-15T12:05:00Z/,
    );
    assert.match(row('tools'), /being held<\/span> by <a class="mono" href="\/ns\/team-a\/changegroups\/release-43">/);
    assert.match(
      panel,
      /<dt>Nudges<\/dt>\s*<dd><a class="mono" href="\/ns\/team-a\/graph\?component=bundle">bundle<\/a><\/dd>/,
    );
    assert.doesNotMatch(panel, /operand-a-old|operand-a-pr/);
  });

  it('says a build without a marker was not dispatched by nudger, even when an older one was', () => {
    const view = basic({
      buildRuns: [
        buildRun('bundle-old', { namespace: NS, component: 'bundle', minute: 10, marker: 'v1 catalog=pullRequest' }),
        buildRun('bundle-new', { namespace: NS, component: 'bundle', minute: 20 }),
      ],
    });
    const panel = panelOf(render(view, 'bundle').text);
    assert.match(panel, /bundle-new/);
    assert.match(panel, /Not dispatched by nudger/);
  });

  it('shows the whole-build entry and an unreadable marker as what the parser says', () => {
    const skipped = basic({
      buildRuns: [
        buildRun('b1', { namespace: NS, component: 'bundle', minute: 1, marker: 'v1 *=skipped:not-succeeded' }),
      ],
    });
    assert.match(
      panelOf(render(skipped, 'bundle').text),
      /<em>the whole build<\/em>[\s\S]*skipped<\/span> <span class="mono">not-succeeded/,
    );
    const broken = basic({
      buildRuns: [buildRun('b1', { namespace: NS, component: 'bundle', minute: 1, marker: `v1 x=${SCRIPT}` })],
    });
    const text = render(broken, 'bundle').text;
    assert.match(panelOf(text), /The dispatcher's marker cannot be read: entry 1/);
    assertEscaped(text);
  });

  it('says so for a component without a build and for an unknown name', () => {
    assert.match(panelOf(render(basic(), 'catalog').text), /No push build of this component is known/);
    const unknown = render(basic(), 'nobody').text;
    assert.match(panelOf(unknown), /No component of this name is known in <span class="mono">team-a<\/span>/);
    assert.doesNotMatch(svgOf(unknown), /node-selected/);
  });

  it('renders hostile names from build-nudges-ref, NudgeConfig entries and the selection as text', () => {
    const hostile = [SCRIPT, IMG, 'a&b', `it's "quoted"`, 'javascript:alert(1)'];
    const view = snapshot(NS, {
      components: [component(NS, 'operand-a', hostile)],
      nudgeConfig: nudgeConfig(NS, [{ from: 'operand-a', to: 'bundle', mode: 'validated', gatingGroup: IMG }]),
    });
    for (const selected of [undefined, SCRIPT, IMG]) {
      const text = render(view, selected).text;
      assertEscaped(text);
      assert.ok(text.includes(SCRIPT_ESCAPED));
      assert.ok(text.includes(IMG_ESCAPED));
      assert.ok(text.includes('a&amp;b'));
      assert.ok(!text.includes('a&b'));
      assert.ok(text.includes('it&#39;s &quot;quoted&quot;'));
      for (const name of hostile) {
        const href = `/ns/team-a/graph?component=${encodeURIComponent(name)}`;
        assert.ok(text.includes(`href="${escapeHtml(href)}"`), `link of ${name}`);
      }
    }
    const selected = render(view, SCRIPT).text;
    assert.match(panelOf(selected), /No Component of this name exists: edges name it/);
    assert.doesNotMatch(selected, /\sstyle=/);
  });

  it('renders the same HTML for the same snapshot, whatever order its objects come in', () => {
    const a = basic({
      buildRuns: [
        buildRun('x1', { namespace: NS, component: 'bundle', minute: 1, marker: 'v1 catalog=pullRequest' }),
        buildRun('x2', { namespace: NS, component: 'bundle', minute: 1, marker: 'v1 catalog=failed:boom' }),
      ],
    });
    const b: NamespaceSnapshot = {
      ...snapshot(NS, {
        components: [...a.components].reverse(),
        ...(a.nudgeConfig === undefined ? {} : { nudgeConfig: a.nudgeConfig }),
      }),
      buildRuns: [...a.buildRuns].reverse(),
    };
    const first = render(a, 'bundle').text;
    assert.equal(render(b, 'bundle').text, first);
    assert.match(panelOf(first), /x2/);
  });

  it('draws at most the layout cap, keeps the selected component, and still lists every edge', () => {
    const names = Array.from({ length: MAX_LAYOUT_NODES + 5 }, (_, i) => `c-${String(i).padStart(3, '0')}`);
    const [last = '', beforeLast = ''] = [...names].reverse();
    // Sorted by name the last two come after the cap; selected, they are drawn, and five others are not.
    const left = names[MAX_LAYOUT_NODES - 2] ?? '';
    const view = snapshot(NS, {
      components: names.map((name) => component(NS, name)),
      nudgeConfig: nudgeConfig(NS, [
        { from: 'c-000', to: 'c-001' },
        { from: beforeLast, to: last },
      ]),
    });
    const text = render(view, last).text;
    assert.match(text, /5 components and 0 edges are not drawn/);
    assert.match(svgOf(text), new RegExp(`component=${last}"`));
    assert.match(svgOf(text), new RegExp(`component=${beforeLast}"`));
    assert.doesNotMatch(svgOf(text), new RegExp(`component=${left}"`));
    assert.ok(edgeRow(text, beforeLast, last));
    assert.ok(edgeRow(text, 'c-000', 'c-001'));
  });

  it('says the graph is too large and still lists every edge when no layout came', () => {
    const text = graphView(basic(), CONTEXT, 'bundle', { kind: 'too-large', reason: 'timeout' }).text;
    assert.match(text, /The graph is too large to lay out; see the edge table below\./);
    assert.doesNotMatch(text, /<svg[^>]*role="img"/);
    assert.ok(edgeRow(text, 'operand-b', 'bundle'));
    assert.match(panelOf(text), /No push build of this component is known/);
  });

  it('gives the layout input as plain data: the selection and its neighbours first, gating groups as labels', () => {
    const input = graphLayoutInput(basic(), 'catalog');
    assert.deepEqual(input.first, ['catalog', 'bundle']);
    assert.deepEqual(
      input.edges.find((edge) => edge.from === 'operand-b'),
      { from: 'operand-b', to: 'bundle', label: 'operands' },
    );
    assert.deepEqual(structuredClone(input), input);
  });
});

/** The row of the marker table in `panel` for `target`. */
function edgeRowIn(panel: string, target: string): string {
  const rows = [...panel.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map(([row]) => row);
  const row = rows.find((candidate) => candidate.includes(`href="/ns/team-a/graph?component=${target}"`));
  assert.ok(row !== undefined, `no marker row for ${target}`);
  return row;
}
