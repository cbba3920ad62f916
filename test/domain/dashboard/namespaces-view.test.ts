// The namespaces view (issue 14, docs/decisions.md D14): NudgeConfig validity from its Valid
// condition, counts of Components and distinct edges from the real graph, nudge PRs from the
// newest dispatched push build's marker per component, active ChangeGroups; sorted, capped, and
// hostile values escaped.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_NAMESPACE_ROWS, namespaceSummary, namespacesView } from '../../../src/domain/dashboard/namespaces-view.ts';
import { newestMarkedBuilds } from '../../../src/domain/dashboard/newest-builds.ts';
import {
  IMG,
  IMG_ESCAPED,
  NOW,
  SCRIPT,
  SCRIPT_ESCAPED,
  assertEscaped,
  buildRun,
  changeGroup,
  component,
  nudgeConfig,
  snapshot,
  validCondition,
} from './snapshot-fixtures.ts';

const CONTEXT = { now: NOW, korifi: false };
const NS = 'team-a';

/** team-a: three Components, a valid NudgeConfig, builds with markers, three ChangeGroups. */
function teamA() {
  return snapshot(NS, {
    // b's build-nudges-ref repeats the NudgeConfig's b -> c: one distinct edge, declared twice.
    components: [component(NS, 'a'), component(NS, 'b', ['c']), component(NS, 'c')],
    nudgeConfig: nudgeConfig(
      NS,
      [
        { from: 'a', to: 'b' },
        { from: 'a', to: 'c' },
        { from: 'b', to: 'c' },
      ],
      { condition: validCondition('True', 'AllComponentsExist', 'All referenced components exist in namespace') },
    ),
    buildRuns: [
      // a: the older build opened two PRs, the newest dispatched one opened one and held one.
      buildRun('a-old', { namespace: NS, component: 'a', minute: 1, marker: 'v1 b=pullRequest c=pullRequest' }),
      buildRun('a-new', { namespace: NS, component: 'a', minute: 5, marker: 'v1 b=pullRequest c=held:cg-1' }),
      // A newer build without a marker yet does not hide what the dispatcher last did.
      buildRun('a-running', { namespace: NS, component: 'a', minute: 9 }),
      // A pull-request build never counts, marker or not.
      buildRun('a-pr', {
        namespace: NS,
        component: 'a',
        minute: 10,
        marker: 'v1 b=pullRequest c=pullRequest',
        eventType: 'pull_request',
      }),
      // b: its newest build's nudge failed.
      buildRun('b-1', { namespace: NS, component: 'b', minute: 2, marker: 'v1 c=pullRequest' }),
      buildRun('b-2', { namespace: NS, component: 'b', minute: 3, marker: 'v1 c=failed:forge-unavailable' }),
      // c: one build skipped as a whole.
      buildRun('c-1', { namespace: NS, component: 'c', minute: 4, marker: 'v1 *=skipped:not-default-branch' }),
    ],
    changeGroups: [
      changeGroup(NS, 'waiting', { status: { phase: 'Waiting' } }),
      changeGroup(NS, 'fresh'),
      changeGroup(NS, 'done', { status: { phase: 'Completed' } }),
      changeGroup(NS, 'failed', { status: { phase: 'Failed' } }),
    ],
  });
}

describe('namespaceSummary', () => {
  it('counts components, distinct edges, nudge PRs of the newest dispatched builds and active ChangeGroups', () => {
    assert.deepEqual(namespaceSummary(teamA()), {
      namespace: NS,
      validity: {
        kind: 'valid',
        reason: 'AllComponentsExist',
        message: 'All referenced components exist in namespace',
        outdated: false,
      },
      components: 3,
      edges: 3,
      nudgePullRequests: 1,
      unreadableMarkers: 0,
      changeGroups: 4,
      activeChangeGroups: 2,
    });
  });

  it('picks per component the newest push build that carries a marker', () => {
    const newest = newestMarkedBuilds(teamA().buildRuns);
    assert.deepEqual(
      [...newest].map(([name, marked]) => [name, marked.build.pipelineRun.name]),
      [
        ['a', 'a-new'],
        ['b', 'b-2'],
        ['c', 'c-1'],
      ],
    );
  });

  it('reads validity: none, not yet validated, invalid with reason and message, outdated', () => {
    assert.deepEqual(namespaceSummary(snapshot('bare', { components: [component('bare', 'x')] })).validity, {
      kind: 'none',
    });
    const pending = snapshot('pending', { nudgeConfig: nudgeConfig('pending', [{ from: 'x', to: 'y' }]) });
    assert.deepEqual(namespaceSummary(pending).validity, { kind: 'not-validated' });
    const stale = snapshot('stale', {
      nudgeConfig: nudgeConfig('stale', [{ from: 'x', to: 'y' }], {
        condition: validCondition('False', 'StaleReferences', 'Components [x, y] referenced in nudges no longer exist'),
        generation: 3,
        observedGeneration: 2,
      }),
    });
    assert.deepEqual(namespaceSummary(stale).validity, {
      kind: 'invalid',
      reason: 'StaleReferences',
      message: 'Components [x, y] referenced in nudges no longer exist',
      outdated: true,
    });
  });

  it('counts a marker the parser refuses as unreadable, never as zero PRs done', () => {
    const broken = snapshot('broken', {
      buildRuns: [
        buildRun('x-1', { namespace: 'broken', component: 'x', minute: 1, marker: 'v1 y=pullRequest' }),
        buildRun('x-2', { namespace: 'broken', component: 'x', minute: 2, marker: 'v9 y=whatever' }),
      ],
    });
    const summary = namespaceSummary(broken);
    assert.equal(summary.unreadableMarkers, 1);
    assert.equal(summary.nudgePullRequests, 0);
    assert.match(namespacesView([broken], CONTEXT).text, /1 unreadable/);
  });
});

function rowOf(text: string, namespace: string): string {
  const start = text.indexOf(`href="/ns/${namespace}/graph"`);
  assert.ok(start >= 0, `row of ${namespace}`);
  return text.slice(start, text.indexOf('</tr>', start));
}

/** The numbers in the cells of a row, in order. */
function figures(row: string): number[] {
  return [...row.matchAll(/<td class="num">\s*(?:<a [^>]*>)?(\d+)/g)].map(([, n]) => Number(n));
}

describe('namespacesView', () => {
  it("shows each namespace's figures, sorted by name, linking its views", () => {
    const text = namespacesView(
      [
        teamA(),
        snapshot('alpha', {
          components: [component('alpha', 'x')],
          nudgeConfig: nudgeConfig('alpha', [{ from: 'x', to: 'gone' }], {
            condition: validCondition(
              'False',
              'StaleReferences',
              'Components [gone] referenced in nudges no longer exist',
            ),
          }),
        }),
      ],
      CONTEXT,
    ).text;
    assert.ok(text.indexOf('/ns/alpha/graph') < text.indexOf('/ns/team-a/graph'));
    const teamRow = rowOf(text, NS);
    assert.deepEqual(figures(teamRow), [3, 3, 1, 2]);
    assert.match(teamRow, /<span class="badge badge-ok" title="AllComponentsExist">Valid<\/span>/);
    assert.ok(teamRow.includes('href="/ns/team-a/changegroups"'));
    assert.ok(teamRow.includes('href="/ns/team-a/nudges"'));
    assert.match(teamRow, /of 4/);
    const alphaRow = rowOf(text, 'alpha');
    assert.deepEqual(figures(alphaRow), [1, 1, 0, 0]);
    assert.match(alphaRow, /badge-bad[^>]*>Invalid</);
    assert.ok(alphaRow.includes('Components [gone] referenced in nudges no longer exist'));
    assert.match(text, /Nudge PRs \(newest builds\)/);
  });

  it('shows no NudgeConfig and not yet validated', () => {
    const text = namespacesView(
      [snapshot('bare'), snapshot('pending', { nudgeConfig: nudgeConfig('pending', []) })],
      CONTEXT,
    ).text;
    assert.match(rowOf(text, 'bare'), /no NudgeConfig/);
    assert.match(rowOf(text, 'pending'), /not yet validated/);
  });

  it('caps the list and says how many were left out', () => {
    const many = Array.from({ length: MAX_NAMESPACE_ROWS + 3 }, (_, i) => snapshot(`ns-${String(i).padStart(4, '0')}`));
    const text = namespacesView(many, CONTEXT).text;
    assert.equal(text.split('<tr>').length - 2, MAX_NAMESPACE_ROWS);
    assert.match(text, /3 more namespaces not shown/);
    assert.ok(!text.includes(`ns-${String(MAX_NAMESPACE_ROWS).padStart(4, '0')}`));
    assert.match(namespacesView([], CONTEXT).text, /No namespaces to show/);
  });

  it('escapes hostile namespaces, component names and condition messages', () => {
    const hostile = snapshot(SCRIPT, {
      components: [component(SCRIPT, IMG)],
      nudgeConfig: nudgeConfig(SCRIPT, [{ from: IMG, to: SCRIPT }], {
        condition: validCondition('False', 'StaleReferences', `Components [${SCRIPT}, ${IMG}] gone`),
      }),
      changeGroups: [changeGroup(SCRIPT, IMG, { status: { phase: 'Waiting' } })],
    });
    const text = namespacesView([hostile], CONTEXT).text;
    assert.ok(text.includes(`>${SCRIPT_ESCAPED}</a>`));
    assert.ok(text.includes(`Components [${SCRIPT_ESCAPED}, ${IMG_ESCAPED}] gone`));
    assert.ok(text.includes(`href="/ns/${encodeURIComponent(SCRIPT)}/graph"`));
    assertEscaped(text);
    assert.deepEqual(figures(rowOf(text, encodeURIComponent(SCRIPT))), [1, 1, 0, 1]);
  });

  it('is deterministic: the same snapshots render the same HTML in any order', () => {
    const one = namespacesView([teamA(), snapshot('b'), snapshot('a')], CONTEXT).text;
    const two = namespacesView([snapshot('a'), teamA(), snapshot('b')], { now: NOW + 3_600_000, korifi: true }).text;
    assert.equal(one, two);
  });
});
