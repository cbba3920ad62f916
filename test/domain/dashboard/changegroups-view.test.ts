// The ChangeGroups views (issue 14, ADR 59, docs/decisions.md D14): the list (name linking the
// detail, phase, components ready, PR link, age) and the detail (phase, component table with old
// and new digests and states, PR link, conditions, time since start); a non-http PR URL is shown
// as text, never linked; hostile names, digests and messages escaped.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  MAX_CHANGE_GROUP_ROWS,
  changeGroupView,
  changeGroupsView,
} from '../../../src/domain/dashboard/changegroups-view.ts';
import type { ChangeGroupStatus } from '../../../src/schema/changegroup.ts';
import {
  IMG,
  IMG_ESCAPED,
  JS_URL,
  NOW,
  SCRIPT,
  SCRIPT_ESCAPED,
  assertEscaped,
  at,
  changeGroup,
  digest,
  snapshot,
} from './snapshot-fixtures.ts';

const NS = 'team-a';
const CONTEXT = { now: NOW, korifi: false };
const PR_URL = 'https://github.com/org/bundle/pull/42';

/** Started at 10:00 (two hours before NOW), operand-a collected, operand-b still waiting. */
const WAITING: ChangeGroupStatus = {
  phase: 'Waiting',
  summary: '1/2',
  startTime: at(0),
  pullRequestURL: PR_URL,
  pullRequest: {
    number: 42,
    url: PR_URL,
    headBranch: 'nudger/changegroup/bundle-update',
    baseBranch: 'main',
    baseCommit: 'b'.repeat(40),
    lastPushedCommit: 'c'.repeat(40),
    draft: true,
    final: false,
    pushedBuilds: [{ name: 'operand-a', digest: digest('2') }],
  },
  components: [
    {
      name: 'operand-b',
      state: 'Waiting',
      originalBuild: digest('3'),
    },
    {
      name: 'operand-a',
      state: 'Ready',
      originalBuild: digest('1'),
      newBuild: digest('2'),
      newBuildTime: at(30),
      lastUpdateTime: at(31),
      buildPipelineRun: 'operand-a-on-push-x7k2',
    },
  ],
  conditions: [
    {
      type: 'AllComponentsReady',
      status: 'False',
      reason: 'WaitingForComponents',
      message: 'Waiting for operand-b',
      lastTransitionTime: at(31),
    },
  ],
};

function namespace() {
  return snapshot(NS, {
    changeGroups: [
      changeGroup(NS, 'zeta', {
        created: 60,
        status: { phase: 'Completed', completionTime: at(90), startTime: at(60) },
      }),
      changeGroup(NS, 'bundle-update', { created: 0, status: WAITING }),
      changeGroup(NS, 'fresh', { created: 110 }),
    ],
  });
}

function rowOf(text: string, name: string): string {
  const start = text.indexOf(`href="/ns/${NS}/changegroups/${name}"`);
  assert.ok(start >= 0, `row of ${name}`);
  return text.slice(start, text.indexOf('</tr>', start));
}

describe('changeGroupsView', () => {
  it('lists ChangeGroups sorted by name with phase, components ready, PR link and age', () => {
    const text = changeGroupsView(namespace(), CONTEXT).text;
    const order = ['bundle-update', 'fresh', 'zeta'].map((name) => text.indexOf(`/changegroups/${name}"`));
    assert.deepEqual(
      order,
      [...order].sort((a, b) => a - b),
    );
    const waiting = rowOf(text, 'bundle-update');
    assert.match(waiting, /<span class="badge badge-warn">Waiting<\/span>/);
    assert.match(waiting, /1\/2 <span class="muted">ready<\/span>/);
    assert.ok(waiting.includes(`<a href="${PR_URL}" rel="noreferrer noopener" target="_blank">#42</a>`));
    assert.match(waiting, />\s*2h\s*</);
    const fresh = rowOf(text, 'fresh');
    assert.match(fresh, /no phase yet/);
    assert.match(fresh, /none yet/);
    assert.match(fresh, />\s*10m\s*</);
    assert.match(rowOf(text, 'zeta'), /badge-ok">Completed</);
  });

  it('says when there are none, and caps a long list', () => {
    assert.match(changeGroupsView(snapshot(NS), CONTEXT).text, /No ChangeGroups in this namespace/);
    const many = Array.from({ length: MAX_CHANGE_GROUP_ROWS + 2 }, (_, i) =>
      changeGroup(NS, `cg-${String(i).padStart(4, '0')}`),
    );
    const text = changeGroupsView(snapshot(NS, { changeGroups: many }), CONTEXT).text;
    assert.equal(text.split('<tr>').length - 2, MAX_CHANGE_GROUP_ROWS);
    assert.match(text, /2 more ChangeGroups not shown/);
  });
});

describe('changeGroupView', () => {
  it('is undefined for a name the namespace does not have', () => {
    assert.equal(changeGroupView(namespace(), 'nope', CONTEXT), undefined);
  });

  it('shows phase, the component table with old and new digests, the PR, conditions and time since start', () => {
    const text = changeGroupView(namespace(), 'bundle-update', CONTEXT)?.text ?? '';
    assert.match(text, /<dt>Phase<\/dt>\s*<dd><span class="badge badge-warn">Waiting<\/span><\/dd>/);
    assert.match(text, /<dt>Since start<\/dt>\s*<dd><strong>2h<\/strong><\/dd>/);
    assert.ok(text.includes(`<a href="${PR_URL}" rel="noreferrer noopener" target="_blank">#42</a>`));
    assert.ok(text.includes('nudger/changegroup/bundle-update'));
    // Components sorted by name: operand-a (Ready, old 1, new 2), then operand-b (Waiting, old 3).
    const a = text.indexOf('>operand-a</td>');
    const b = text.indexOf('>operand-b</td>');
    assert.ok(a >= 0 && b > a);
    const rowA = text.slice(a, text.indexOf('</tr>', a));
    assert.match(rowA, /badge-ok">Ready</);
    assert.ok(rowA.indexOf(digest('1')) < rowA.indexOf(digest('2')));
    assert.ok(rowA.includes('operand-a-on-push-x7k2'));
    const rowB = text.slice(b, text.indexOf('</tr>', b));
    assert.match(rowB, /badge-warn">Waiting</);
    assert.ok(rowB.includes(digest('3')));
    assert.match(rowB, /<span class="muted">none<\/span>/);
    for (const cell of ['AllComponentsReady', 'False', 'WaitingForComponents', 'Waiting for operand-b', at(31)]) {
      assert.ok(text.includes(`>${cell}<`), cell);
    }
    assertEscaped(text);
  });

  it('says how long a finished ChangeGroup took', () => {
    const text = changeGroupView(namespace(), 'zeta', CONTEXT)?.text ?? '';
    assert.match(text, /<strong>1h<\/strong>; completed after 30m/);
    assert.match(text, /<dt>Completed<\/dt>/);
  });

  it('shows a ChangeGroup the controller has not touched yet', () => {
    const text = changeGroupView(namespace(), 'fresh', CONTEXT)?.text ?? '';
    assert.match(text, /not started yet/);
    assert.match(text, /not opened yet/);
    assert.match(text, /has not listed the components yet/);
    assert.match(text, /No conditions yet/);
  });

  it('never links a non-http PR URL and escapes hostile names, digests and messages', () => {
    const hostile = snapshot(NS, {
      changeGroups: [
        changeGroup(NS, SCRIPT, {
          nudged: IMG,
          status: {
            phase: 'Failed',
            pullRequestURL: JS_URL,
            startTime: at(0),
            components: [{ name: IMG, state: 'Waiting', originalBuild: SCRIPT, newBuild: IMG }],
            conditions: [
              {
                type: SCRIPT,
                status: 'False',
                reason: IMG,
                message: `${SCRIPT} ${IMG}`,
                lastTransitionTime: IMG,
              },
            ],
          },
        }),
        changeGroup(NS, IMG, { status: { pullRequestURL: `https://example.com/${IMG}` } }),
      ],
    });
    const list = changeGroupsView(hostile, CONTEXT).text;
    assert.ok(list.includes(`href="/ns/${NS}/changegroups/${encodeURIComponent(SCRIPT)}"`));
    assert.ok(list.includes(`>${SCRIPT_ESCAPED}</a>`));
    assert.ok(list.includes(`<span class="mono" title="not an http(s) URL, not linked">${JS_URL}</span>`));
    assert.ok(!list.includes(`href="${JS_URL}`));
    assertEscaped(list);
    const detail = changeGroupView(hostile, SCRIPT, CONTEXT)?.text ?? '';
    assert.ok(detail.includes(`<code class="digest">${SCRIPT_ESCAPED}</code>`));
    assert.ok(detail.includes(`<code class="digest">${IMG_ESCAPED}</code>`));
    assert.ok(detail.includes(`${SCRIPT_ESCAPED} ${IMG_ESCAPED}`));
    assert.ok(!detail.includes('javascript:alert(1)"'));
    assertEscaped(detail);
    const linked = changeGroupView(hostile, IMG, CONTEXT)?.text ?? '';
    assert.match(linked, /<a href="https:\/\/example\.com\/[^"]*" rel=/);
    assertEscaped(linked);
  });

  it('is deterministic for the same snapshot and time', () => {
    assert.equal(
      changeGroupView(namespace(), 'bundle-update', CONTEXT)?.text,
      changeGroupView(namespace(), 'bundle-update', CONTEXT)?.text,
    );
  });
});
