// What nudger writes into a ChangeGroup pull request (docs/decisions.md D4, D5): the description input,
// the boxes it renders, the commit message and the deterministic commit date.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  checkboxesToRender,
  descriptionInput,
  formatUpdateTime,
  pullRequestCommitDate,
  pullRequestCommitMessage,
  pullRequestTitle,
  type ChangeGroupDocument,
} from '../../src/domain/changegroup/pull-request-content.ts';
import { CHANGE_GROUP_PHASES, type ChangeGroupPhase, type SkipCiMode } from '../../src/domain/changegroup/model.ts';
import { reconcileChangeGroup, type PullRequestBuild } from '../../src/domain/changegroup/state.ts';
import { hasSkipMarker } from '../../src/domain/pr-description/index.ts';
import type { ChangeGroupStatus } from '../../src/schema/changegroup.ts';
import { DIGEST } from './changegroup/fixtures.ts';
import { at, build, input, OPEN } from './changegroup/state-fixtures.ts';

const LINK = { kind: 'kubectl' } as const;
const NO_BOXES = { buildNow: false, rebase: false };

function document(status: ChangeGroupStatus | undefined, skipCi?: SkipCiMode): ChangeGroupDocument {
  return {
    metadata: { name: 'bundle-x-update', namespace: 'my-tenant' },
    spec: {
      nudgedComponent: 'bundle-x',
      nudgingComponents: [{ name: 'operand-a' }, { name: 'operand-b' }, { name: 'operator' }],
      ...(skipCi === undefined ? {} : { skipCi }),
    },
    ...(status === undefined ? {} : { status }),
  };
}

/** Status after one build of operand-a arrived (Waiting). */
function waitingStatus(): ChangeGroupStatus {
  return reconcileChangeGroup(input({ builds: [build('operand-a', '1', 5)] })).status;
}

const pb = (name: string, c: string): PullRequestBuild => ({
  name,
  digest: DIGEST(c),
  pullSpec: `quay.io/org/${name}@${DIGEST(c)}`,
});

describe('formatUpdateTime', () => {
  it('shows a Kubernetes timestamp as a UTC date and time', () => {
    assert.equal(formatUpdateTime('2026-11-21T10:30:00Z'), '2026-11-21 10:30:00 UTC');
  });

  it('drops fractional seconds', () => {
    assert.equal(formatUpdateTime('2026-11-21T10:30:00.123456Z'), '2026-11-21 10:30:00 UTC');
  });

  it('gives an empty string for an absent time and anything unparsable as given', () => {
    assert.equal(formatUpdateTime(undefined), '');
    assert.equal(formatUpdateTime('yesterday'), 'yesterday');
    assert.equal(formatUpdateTime('2026-11-21T10:30:00+02:00'), '2026-11-21T10:30:00+02:00');
    assert.equal(formatUpdateTime(''), '');
  });
});

describe('descriptionInput', () => {
  it('mirrors the ChangeGroup: names, rows with short digests and formatted times, phase and mode', () => {
    const status = waitingStatus();
    const result = descriptionInput(document(status), { link: LINK, checkboxes: NO_BOXES, final: false });
    assert.deepEqual(result.changeGroup, { name: 'bundle-x-update', namespace: 'my-tenant' });
    assert.equal(result.nudgedComponent, 'bundle-x');
    assert.equal(result.phase, 'Waiting');
    assert.equal(result.mode, 'commitMessage');
    assert.deepEqual(result.link, LINK);
    assert.equal(result.note, undefined);
    assert.deepEqual(result.components[0], {
      name: 'operand-a',
      state: 'Ready',
      originalBuild: `sha256:${'0'.repeat(12)}`,
      newBuild: `sha256:${'1'.repeat(12)}`,
      newBuildPullSpec: `quay.io/org/operand-a@${DIGEST('1')}`,
      buildPipelineRun: 'operand-a-on-push-1',
      lastUpdate: '2025-01-15 10:00:00 UTC',
    });
    assert.deepEqual(result.components[2], {
      name: 'operator',
      state: 'Waiting',
      originalBuild: '',
      newBuild: '',
      newBuildPullSpec: '',
      buildPipelineRun: '',
      lastUpdate: '',
    });
  });

  it('defaults to phase Initialized and no rows before the first status', () => {
    const result = descriptionInput(document(undefined), { link: LINK, checkboxes: NO_BOXES, final: false });
    assert.equal(result.phase, 'Initialized');
    assert.deepEqual(result.components, []);
  });

  it('passes the checkboxes through as given', () => {
    const boxes = { buildNow: true, rebase: false };
    const result = descriptionInput(document(waitingStatus()), { link: LINK, checkboxes: boxes, final: false });
    assert.deepEqual(result.checkboxes, boxes);
  });

  it('puts [skip ci] in the description only in description mode before the final push', () => {
    const status = waitingStatus();
    const cases: [SkipCiMode | undefined, boolean, boolean][] = [
      [undefined, false, false],
      ['commitMessage', false, false],
      ['commitMessage', true, false],
      ['description', false, true],
      ['description', true, false],
    ];
    for (const [mode, final, expected] of cases) {
      const result = descriptionInput(document(status, mode), { link: LINK, checkboxes: NO_BOXES, final });
      assert.equal(result.skipCi, expected, `mode ${String(mode)}, final ${String(final)}`);
      assert.equal(result.mode, mode ?? 'commitMessage');
    }
  });

  it('notes a Failed ChangeGroup with the timeout message', () => {
    const started = reconcileChangeGroup(input({ spec: { timeout: '1h' }, builds: [build('operand-a', '1', 5)] }));
    const failed = reconcileChangeGroup(
      input({ spec: { timeout: '1h' }, status: started.status, now: at(61), pullRequest: OPEN }),
    ).status;
    assert.equal(failed.phase, 'Failed');
    const result = descriptionInput(document(failed), { link: LINK, checkboxes: NO_BOXES, final: false });
    assert.equal(
      result.note,
      'This ChangeGroup failed and nudger no longer updates this pull request. Timed out waiting for 2 components: operand-b, operator',
    );
  });

  it('notes a Failed ChangeGroup even without a readiness condition', () => {
    const result = descriptionInput(document({ phase: 'Failed' }), { link: LINK, checkboxes: NO_BOXES, final: false });
    assert.equal(result.note, 'This ChangeGroup failed and nudger no longer updates this pull request.');
  });

  it('notes a ChangeGroup released early by "build now", and nothing once all are ready', () => {
    const waiting = waitingStatus();
    const early = reconcileChangeGroup(
      input({ status: waiting, pullRequest: { ...OPEN, buildNowRequested: true } }),
    ).status;
    assert.equal(early.phase, 'Ready');
    const result = descriptionInput(document(early), { link: LINK, checkboxes: NO_BOXES, final: true });
    assert.equal(result.note, 'Build requested with 1 of 3 components ready; not included: operand-b, operator');

    const all = reconcileChangeGroup(
      input({ builds: [build('operand-a', '1', 1), build('operand-b', '2', 2), build('operator', '3', 3)] }),
    ).status;
    assert.equal(all.phase, 'Ready');
    assert.equal(descriptionInput(document(all), { link: LINK, checkboxes: NO_BOXES, final: true }).note, undefined);
  });

  it('has no note while collecting, even though readiness is False', () => {
    const result = descriptionInput(document(waitingStatus()), { link: LINK, checkboxes: NO_BOXES, final: false });
    assert.equal(result.note, undefined);
    assert.equal('note' in result, false);
  });
});

describe('checkboxesToRender', () => {
  const collecting = new Set<ChangeGroupPhase>(['Initialized', 'Waiting']);

  it('keeps "build now" only while collecting, and "rebase" until a push honours it', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...CHANGE_GROUP_PHASES),
        fc.boolean(),
        fc.boolean(),
        fc.boolean(),
        (phase, buildNow, rebase, honoured) => {
          const rendered = checkboxesToRender({ buildNow, rebase }, phase, honoured);
          assert.deepEqual(rendered, { buildNow: buildNow && collecting.has(phase), rebase: rebase && !honoured });
        },
      ),
    );
  });

  it('never ticks a box nobody ticked', () => {
    for (const phase of CHANGE_GROUP_PHASES) {
      assert.deepEqual(checkboxesToRender(NO_BOXES, phase, false), NO_BOXES);
      assert.deepEqual(checkboxesToRender(NO_BOXES, phase, true), NO_BOXES);
    }
  });

  it('spot checks: an unhonoured rebase tick survives; build now is consumed by Ready', () => {
    assert.deepEqual(checkboxesToRender({ buildNow: true, rebase: true }, 'Waiting', false), {
      buildNow: true,
      rebase: true,
    });
    assert.deepEqual(checkboxesToRender({ buildNow: true, rebase: true }, 'Ready', true), {
      buildNow: false,
      rebase: false,
    });
  });
});

describe('pullRequestTitle', () => {
  it('names the nudged component and the ChangeGroup', () => {
    assert.equal(
      pullRequestTitle(document(undefined)),
      'Update component images in bundle-x (ChangeGroup bundle-x-update)',
    );
  });
});

describe('pullRequestCommitMessage', () => {
  it('carries [skip ci] only in commitMessage mode and only before the final push', () => {
    const status = waitingStatus();
    const builds = [pb('operand-a', '1')];
    const cases: [SkipCiMode | undefined, boolean, boolean][] = [
      [undefined, false, true],
      ['commitMessage', false, true],
      ['commitMessage', true, false],
      ['description', false, false],
      ['description', true, false],
    ];
    for (const [mode, final, expected] of cases) {
      const message = pullRequestCommitMessage(document(status, mode), builds, final);
      assert.equal(message.subject.endsWith(' [skip ci]'), expected, `mode ${String(mode)}, final ${String(final)}`);
      assert.equal(hasSkipMarker(message.message), expected, `mode ${String(mode)}, final ${String(final)}`);
    }
  });

  it('lists each build with the original digest from status, or (unknown)', () => {
    const status = waitingStatus();
    const message = pullRequestCommitMessage(document(status), [pb('operator', '3'), pb('operand-a', '1')], true);
    assert.equal(message.subject, 'Update 2 component images for bundle-x');
    assert.equal(
      message.body,
      [
        `operand-a: ${DIGEST('0')} → ${DIGEST('1')}`,
        `operator: (unknown) → ${DIGEST('3')}`,
        '',
        'ChangeGroup: my-tenant/bundle-x-update',
      ].join('\n'),
    );
  });
});

describe('pullRequestCommitDate', () => {
  const status: ChangeGroupStatus = {
    startTime: '2025-01-15T10:00:00Z',
    components: [
      { name: 'operand-a', state: 'Ready', newBuild: DIGEST('1'), lastUpdateTime: '2025-01-15T10:05:00Z' },
      { name: 'operand-b', state: 'Ready', newBuild: DIGEST('2'), lastUpdateTime: '2025-01-15T10:20:00Z' },
      { name: 'operator', state: 'Ready', newBuild: DIGEST('3'), lastUpdateTime: '2025-01-15T10:12:00Z' },
      { name: 'unused', state: 'Waiting', lastUpdateTime: '2025-01-15T11:00:00Z' },
    ],
  };

  it('falls back to lastUpdateTime without build times, among the builds committed only', () => {
    assert.equal(pullRequestCommitDate(status, [pb('operand-a', '1'), pb('operator', '3')]), '2025-01-15T10:12:00Z');
    assert.equal(
      pullRequestCommitDate(status, [pb('operand-a', '1'), pb('operand-b', '2'), pb('operator', '3')]),
      '2025-01-15T10:20:00Z',
    );
  });

  it('does not depend on the order of the builds', () => {
    const all = [pb('operand-a', '1'), pb('operand-b', '2'), pb('operator', '3')];
    fc.assert(
      fc.property(fc.shuffledSubarray(all, { minLength: 1 }), (builds) => {
        const sorted = [...builds].sort((a, b) => (a.name < b.name ? -1 : 1));
        assert.equal(pullRequestCommitDate(status, builds), pullRequestCommitDate(status, sorted));
      }),
    );
  });

  it("is the newest build's creation time, whichever order the builds arrived in", () => {
    const builds = [build('operand-a', '1', 1), build('operand-b', '2', 2), build('operator', '3', 3)];
    fc.assert(
      fc.property(fc.shuffledSubarray(builds, { minLength: 3, maxLength: 3 }), (order) => {
        // One build per reconcile, a minute apart, in the given order.
        let current: ChangeGroupStatus | undefined;
        for (const [i, b] of order.entries()) {
          current = reconcileChangeGroup(
            input({ builds: [b], now: at(10 + i), ...(current ? { status: current } : {}) }),
          ).status;
        }
        const prBuilds = [pb('operand-a', '1'), pb('operand-b', '2'), pb('operator', '3')];
        // Not when nudger saw them (10:10-10:12): a lost status write must not change the commit.
        assert.equal(pullRequestCommitDate(current, prBuilds), '2025-01-15T10:03:00Z');
      }),
    );
  });

  it('falls back to the start time, then to the epoch', () => {
    assert.equal(pullRequestCommitDate({ startTime: '2025-01-15T09:00:00Z' }, [pb('x', '1')]), '2025-01-15T09:00:00Z');
    assert.equal(pullRequestCommitDate(undefined, [pb('x', '1')]), '1970-01-01T00:00:00Z');
    assert.equal(
      pullRequestCommitDate({ startTime: '2025-01-15T09:00:00Z', components: [{ name: 'x', state: 'Waiting' }] }, [
        pb('x', '1'),
      ]),
      '2025-01-15T09:00:00Z',
    );
  });
});
