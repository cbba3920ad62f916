// The record of one (PR group, target) pair (src/domain/nudge/pre-merge-record.ts,
// docs/decisions.md D11): what parse gives back is what serialize wrote, the same record is the
// same bytes, and an unreadable text is a problem, never an empty record (which would forget the
// triggers a restart must keep).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  emptyPreMergeRecord,
  parsePreMergeRecord,
  preMergeRecordName,
  serializePreMergeRecord,
  triggerKey,
  type PreMergeRecord,
  type TriggerRecord,
} from '../../../src/domain/nudge/pre-merge-record.ts';
import { GROUP, T0, TARGET, pinned, repoUrlOf } from './pre-merge-fixtures.ts';

const open: TriggerRecord = {
  component: 'operand-a',
  number: 12,
  repoUrl: repoUrlOf('operand-a'),
  url: `${repoUrlOf('operand-a')}/pull/12`,
  state: 'open',
  pullRequestBuild: pinned('operand-a-on-pull-request-1', 'a1', T0),
};

const merged: TriggerRecord = {
  component: 'operand-b',
  number: 34,
  repoUrl: repoUrlOf('operand-b'),
  state: 'merged',
  mergeSha: 'f'.repeat(40),
  pullRequestBuild: pinned('operand-b-on-pull-request-1', 'b1', T0),
  pushBuild: pinned('operand-b-on-push-1', 'b2', T0 + 1),
};

const full: PreMergeRecord = {
  group: GROUP,
  target: TARGET,
  triggers: { 'operand-b#34': merged, 'operand-a#12': open },
  applied: { key: '0123456789abcdef', url: 'https://github.com/org/bundle/pull/5' },
  attempt: {
    key: 'fedcba9876543210',
    state: 'retry',
    count: 2,
    since: T0,
    notBefore: T0 + 120_000,
    reason: 'forge-unavailable',
  },
};

function parsed(text: string): PreMergeRecord {
  const reading = parsePreMergeRecord(text, GROUP, TARGET);
  assert.ok(reading.ok, reading.ok ? '' : reading.problem);
  return reading.record;
}

/** The record's JSON, changed by `edit`. */
function edited(edit: (document: Record<string, unknown>) => void): string {
  const document = JSON.parse(serializePreMergeRecord(full)) as Record<string, unknown>;
  edit(document);
  return JSON.stringify(document);
}

function problemOf(text: string | undefined, group = GROUP, target = TARGET): string {
  const reading = parsePreMergeRecord(text, group, target);
  if (reading.ok) assert.fail(`read ${String(text)} as a record`);
  return reading.problem;
}

describe('pre-merge record', () => {
  it('reads back what it wrote: empty, full, each attempt state', () => {
    const records: PreMergeRecord[] = [
      emptyPreMergeRecord(GROUP, TARGET),
      full,
      { ...full, attempt: { key: 'fedcba9876543210', state: 'firing', count: 1, since: T0 } },
      { ...full, attempt: { key: 'fedcba9876543210', state: 'failed', count: 5, since: T0, reason: 'interrupted' } },
      { group: GROUP, target: TARGET, triggers: { 'operand-a#12': { ...open, state: 'closed' } } },
    ];
    for (const record of records) assert.deepEqual(parsed(serializePreMergeRecord(record)), record);
  });

  it('writes the same record as the same bytes, whatever order it was built in', () => {
    const text = serializePreMergeRecord(full);
    const reversed = (value: object) => Object.fromEntries(Object.entries(value).reverse()) as never;
    const shuffled: PreMergeRecord = {
      attempt: reversed(full.attempt ?? {}),
      applied: reversed(full.applied ?? {}),
      triggers: { 'operand-a#12': reversed(open), 'operand-b#34': reversed(merged) },
      target: TARGET,
      group: GROUP,
    };
    assert.deepEqual(shuffled, full);
    assert.equal(serializePreMergeRecord(shuffled), text);
    assert.equal(serializePreMergeRecord(parsed(text)), text);
    // A merge commit learnt after the push build (decidePreMerge rebuilds a trigger so).
    const { mergeSha, ...withoutSha } = merged;
    const later: PreMergeRecord = {
      ...full,
      triggers: { ...full.triggers, 'operand-b#34': { ...withoutSha, mergeSha } },
    };
    assert.equal(serializePreMergeRecord(later), text);
  });

  it('names one ConfigMap per (group, target), as a Kubernetes name', () => {
    const name = preMergeRecordName(GROUP, TARGET);
    assert.match(name, /^nudger-pre-merge-[0-9a-f]{16}$/);
    assert.equal(preMergeRecordName(GROUP, TARGET), name);
    assert.notEqual(preMergeRecordName(GROUP, 'catalog'), name);
    assert.notEqual(preMergeRecordName('feature-9', TARGET), name);
    assert.notEqual(preMergeRecordName('feature-1234@b', 'undle'), preMergeRecordName('feature-1234', 'b@undle'));
    assert.match(preMergeRecordName('x'.repeat(253), 'y'.repeat(253)), /^nudger-pre-merge-[0-9a-f]{16}$/);
  });

  it('keys a trigger by component and PR number', () => {
    assert.equal(triggerKey('operand-a', 12), 'operand-a#12');
  });

  const unreadable: [string, string | undefined, RegExp][] = [
    ['no text', undefined, /missing/],
    ['not JSON', '{"version":1,', /not JSON/],
    ['an empty text', '', /not JSON/],
    ['JSON that is not an object', '[]', /data\.record/],
    ['another version', edited((d) => (d.version = 2)), /data\.record/],
    ['no version', edited((d) => delete d.version), /data\.record/],
    ['no triggers', edited((d) => delete d.triggers), /data\.record/],
    [
      'a bad digest',
      edited((d) => {
        const trigger = (d.triggers as Record<string, TriggerRecord>)['operand-a#12'];
        if (trigger !== undefined) (trigger.pullRequestBuild as { digest: string }).digest = 'sha256:abc';
      }),
      /data\.record/,
    ],
    [
      'an upper-case push digest',
      edited((d) => {
        const trigger = (d.triggers as Record<string, TriggerRecord>)['operand-b#34'];
        if (trigger?.pushBuild !== undefined)
          (trigger.pushBuild as { digest: string }).digest = `sha256:${'A'.repeat(64)}`;
      }),
      /data\.record/,
    ],
    [
      'an unknown state',
      edited((d) => {
        const trigger = (d.triggers as Record<string, { state: string }>)['operand-a#12'];
        if (trigger !== undefined) trigger.state = 'draft';
      }),
      /data\.record/,
    ],
    ['PR number 0', edited((d) => (d.triggers = { 'operand-a#0': { ...open, number: 0 } })), /data\.record/],
    ['a bad applied key', edited((d) => (d.applied = { key: 'nothex' })), /data\.record/],
    ['a bad attempt state', edited((d) => (d.attempt = { ...full.attempt, state: 'done' })), /data\.record/],
    ['a trigger key naming another PR', edited((d) => (d.triggers = { 'operand-a#13': open })), /names another PR/],
    [
      'a trigger key naming another component',
      edited((d) => (d.triggers = { 'operand-b#12': open })),
      /names another PR/,
    ],
  ];
  for (const [what, text, problem] of unreadable) {
    it(`refuses ${what}`, () => {
      assert.match(problemOf(text), problem);
    });
  }

  it("refuses another group's or target's record", () => {
    const text = serializePreMergeRecord(full);
    assert.match(problemOf(text, 'feature-9', TARGET), /another group or target/);
    assert.match(problemOf(text, GROUP, 'catalog'), /another group or target/);
  });

  it('does not echo a long foreign trigger key whole', () => {
    const key = `x${'#'.repeat(500)}`;
    const problem = problemOf(edited((d) => (d.triggers = { [key]: open })));
    assert.ok(problem.length < 200, problem);
  });
});
