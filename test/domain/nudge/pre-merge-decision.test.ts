// The pre-merge decision for one (PR group, target) pair (src/domain/nudge/pre-merge-decision.ts,
// docs/decisions.md D11, N18), on ADR 29's `feature-1234` example: PR #12 of operand-a and PR #34
// of operand-b, both on branch feature-1234, nudge `bundle` through one draft PR.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FireResult } from '../../../src/domain/nudge/dispatch.ts';
import {
  absorbedPushCommits,
  afterPreMergeFire,
  decidePreMerge,
  openTriggerComponents,
  type ForgeReading,
  type PreMergeContent,
  type PreMergeDecision,
  type PreMergeInput,
} from '../../../src/domain/nudge/pre-merge-decision.ts';
import {
  parsePreMergeRecord,
  serializePreMergeRecord,
  type PinnedBuild,
  type PreMergeRecord,
} from '../../../src/domain/nudge/pre-merge-record.ts';
import { LEASE, MINUTE, POLL, T0, digest, input, pinned, prBuild, reading } from './pre-merge-fixtures.ts';
import { DEFAULT_DISPATCH_POLICY } from '../../../src/domain/nudge/dispatch-policy.ts';

const A12 = prBuild('operand-a', 12, 'a1', T0 - 10 * MINUTE);
const B34 = prBuild('operand-b', 34, 'b1', T0 - 9 * MINUTE);
const SHA_A = 'a'.repeat(40);
const SHA_B = 'b'.repeat(40);
const PUSH_A = pinned('operand-a-on-push-1', 'a-push', T0 - 2 * MINUTE);
const PUSH_B = pinned('operand-b-on-push-1', 'b-push', T0 - MINUTE);
const OK: FireResult = { ok: true, detail: 'https://github.com/org/bundle/pull/5' };
const FAIL: FireResult = { ok: false, reason: 'forge-unavailable', message: '503' };
const PERMANENT: FireResult = { ok: false, reason: 'no-credentials', message: 'no token', permanent: true };

function forge(entries: Record<string, ForgeReading>): ReadonlyMap<string, ForgeReading> {
  return new Map(Object.entries(entries));
}

const bothOpen = forge({
  'operand-a#12': reading('operand-a', 12, 'open'),
  'operand-b#34': reading('operand-b', 34, 'open'),
});

function pushBuilds(builds: Record<string, PinnedBuild>): PreMergeInput['pushBuild'] {
  return (component, sha) => builds[`${component}@${sha}`];
}

function fired(decision: PreMergeDecision): { content: PreMergeContent; attempt: number } {
  const { step } = decision;
  assert.equal(step.kind, 'fire', `expected a fire, got ${JSON.stringify(step)}`);
  return step;
}

/** Each part as `<component>#<number>:<state>:<event>:<digest>`, or `...:-` when nothing is pinned. */
function pins(content: PreMergeContent): string[] {
  return content.parts.map(
    ({ trigger, pin }) =>
      `${trigger.component}#${String(trigger.number)}:${trigger.state}:${
        pin === undefined ? '-' : `${pin.event}:${pin.build.digest}`
      }`,
  );
}

/** Decide, and when it fires, carry the fire out with `result`: the record the controller keeps. */
function reconcile(
  overrides: Partial<PreMergeInput>,
  result: FireResult = OK,
): { decision: PreMergeDecision; record: PreMergeRecord } {
  const decision = decidePreMerge(input(overrides));
  const now = overrides.now ?? T0;
  if (decision.step.kind !== 'fire') return { decision, record: decision.record };
  const record = afterPreMergeFire(
    decision.record,
    decision.step.content,
    decision.step.attempt,
    result,
    now,
    DEFAULT_DISPATCH_POLICY,
  );
  return { decision, record };
}

/** The pair after both PRs' first builds were fired and applied. */
function applied(): PreMergeRecord {
  return reconcile({ builds: [A12, B34], forge: bothOpen }).record;
}

describe('decidePreMerge: the feature-1234 example (ADR 29, D11)', () => {
  it('pins both PR builds in one draft content and writes the attempt before the fire', () => {
    const decision = decidePreMerge(input({ builds: [A12, B34], forge: bothOpen }));
    const { content, attempt } = fired(decision);
    assert.equal(attempt, 1);
    assert.deepEqual(pins(content), [
      `operand-a#12:open:pull-request:${digest('a1')}`,
      `operand-b#34:open:pull-request:${digest('b1')}`,
    ]);
    assert.equal(content.draft, true);
    assert.equal(content.close, false);
    assert.match(content.key, /^[0-9a-f]{16}$/);
    assert.deepEqual(decision.record.attempt, { key: content.key, state: 'firing', count: 1, since: T0 });
    assert.deepEqual(Object.keys(decision.record.triggers).sort(), ['operand-a#12', 'operand-b#34']);
    assert.equal(decision.record.triggers['operand-a#12']?.url, 'https://github.com/org/operand-a/pull/12');
    assert.equal(decision.record.applied, undefined, 'nothing is applied before the fire');
    assert.deepEqual(decidePreMerge(input({ builds: [B34, A12], forge: bothOpen })), decision, 'order of builds');
  });

  it('holds only the triggers passed to it: another branch is another pair', () => {
    const other = prBuild('operand-c', 56, 'c1', T0 - 5 * MINUTE);
    const pair = fired(decidePreMerge(input({ builds: [A12, B34], forge: bothOpen }))).content;
    assert.equal(pair.parts.length, 2);
    assert.ok(pins(pair).every((pin) => !pin.startsWith('operand-c')));
    const alone = fired(decidePreMerge(input({ group: 'feature-9', builds: [other] }))).content;
    assert.deepEqual(pins(alone), [`operand-c#56:open:pull-request:${digest('c1')}`]);
    assert.notEqual(alone.key, pair.key);
  });

  it('records the applied key and then stays idle, asking the forge again while a PR is open', () => {
    const record = applied();
    assert.equal(record.attempt, undefined);
    assert.equal(record.applied?.url, 'https://github.com/org/bundle/pull/5');
    const decision = decidePreMerge(input({ record, builds: [A12, B34], forge: bothOpen, now: T0 + MINUTE }));
    assert.deepEqual(decision.step, { kind: 'idle', wakeAt: T0 + MINUTE + POLL });
    assert.deepEqual(decision.record, record);
  });

  it("replaces a PR's digest with its newer build's, and ignores an older one", () => {
    const record = applied();
    const newer = prBuild('operand-a', 12, 'a2', T0 - MINUTE);
    const { decision, record: after } = reconcile({ record, builds: [newer, B34], forge: bothOpen, now: T0 + MINUTE });
    const { content, attempt } = fired(decision);
    assert.equal(attempt, 1, 'new content starts at attempt 1');
    assert.deepEqual(pins(content), [
      `operand-a#12:open:pull-request:${digest('a2')}`,
      `operand-b#34:open:pull-request:${digest('b1')}`,
    ]);
    const older = decidePreMerge(input({ record: after, builds: [A12, B34], forge: bothOpen, now: T0 + 2 * MINUTE }));
    assert.equal(older.step.kind, 'idle', 'a stale cache showing the older build changes nothing');
    assert.equal(older.record.triggers['operand-a#12']?.pullRequestBuild.digest, digest('a2'));
  });

  it('keeps pinning a merged PR until its push build is in, as a draft, then pins the push build', () => {
    const record = applied();
    const merged = forge({
      'operand-a#12': reading('operand-a', 12, 'merged', SHA_A),
      'operand-b#34': reading('operand-b', 34, 'open'),
    });
    const first = reconcile({ record, builds: [A12, B34], forge: merged, now: T0 + MINUTE });
    const unbuilt = fired(first.decision).content;
    assert.deepEqual(pins(unbuilt), [
      `operand-a#12:merged:pull-request:${digest('a1')}`,
      `operand-b#34:open:pull-request:${digest('b1')}`,
    ]);
    assert.equal(unbuilt.draft, true);
    assert.equal(first.record.triggers['operand-a#12']?.mergeSha, SHA_A);
    assert.deepEqual([...absorbedPushCommits(first.record)], [`operand-a@${SHA_A}`]);
    assert.deepEqual([...openTriggerComponents(first.record)], ['operand-b']);

    const second = reconcile({
      record: first.record,
      builds: [A12, B34],
      forge: merged,
      pushBuild: pushBuilds({ [`operand-a@${SHA_A}`]: PUSH_A }),
      now: T0 + 2 * MINUTE,
    });
    const built = fired(second.decision).content;
    assert.deepEqual(pins(built), [
      `operand-a#12:merged:push:${digest('a-push')}`,
      `operand-b#34:open:pull-request:${digest('b1')}`,
    ]);
    assert.equal(built.draft, true, 'operand-b#34 is still open');
    assert.deepEqual(second.record.triggers['operand-a#12']?.pushBuild, PUSH_A);

    const allMerged = forge({
      'operand-a#12': reading('operand-a', 12, 'merged', SHA_A),
      'operand-b#34': reading('operand-b', 34, 'merged', SHA_B),
    });
    const both = pushBuilds({ [`operand-a@${SHA_A}`]: PUSH_A, [`operand-b@${SHA_B}`]: PUSH_B });
    const third = reconcile({ record: second.record, builds: [A12, B34], forge: allMerged, now: T0 + 3 * MINUTE });
    assert.equal(fired(third.decision).content.draft, true, "operand-b's push build is not in yet");
    assert.equal(third.decision.step.kind === 'fire' && third.decision.step.content.parts[0]?.pin?.event, 'push');
    const fourth = reconcile({
      record: third.record,
      builds: [A12, B34],
      forge: allMerged,
      pushBuild: both,
      now: T0 + 4 * MINUTE,
    });
    const ready = fired(fourth.decision).content;
    assert.deepEqual(pins(ready), [
      `operand-a#12:merged:push:${digest('a-push')}`,
      `operand-b#34:merged:push:${digest('b-push')}`,
    ]);
    assert.equal(ready.draft, false, 'every trigger merged and built: ready for review');
    assert.equal(ready.close, false);
    // Settled: the forge need not be asked again.
    const quiet = decidePreMerge(
      input({ record: fourth.record, builds: [A12, B34], forge: allMerged, pushBuild: both, now: T0 + 5 * MINUTE }),
    );
    assert.deepEqual(quiet.step, { kind: 'idle' });
  });

  it('never goes back to the PR build once the push build is recorded, even if the cache lost it', () => {
    const merged = forge({
      'operand-a#12': reading('operand-a', 12, 'merged', SHA_A),
      'operand-b#34': reading('operand-b', 34, 'open'),
    });
    const built = reconcile({
      record: applied(),
      builds: [A12, B34],
      forge: merged,
      pushBuild: pushBuilds({ [`operand-a@${SHA_A}`]: PUSH_A }),
    }).record;
    const later = decidePreMerge(input({ record: built, builds: [B34], forge: merged, now: T0 + 9 * MINUTE }));
    assert.equal(later.step.kind, 'idle');
    assert.deepEqual(later.record.triggers['operand-a#12']?.pushBuild, PUSH_A);
    assert.equal(serializePreMergeRecord(later.record), serializePreMergeRecord(built), 'nothing to write');
  });

  it('drops the pin of a closed PR, and closes the nudge PR once every PR is closed', () => {
    const record = applied();
    const oneClosed = forge({
      'operand-a#12': reading('operand-a', 12, 'closed'),
      'operand-b#34': reading('operand-b', 34, 'open'),
    });
    const first = reconcile({ record, builds: [A12, B34], forge: oneClosed, now: T0 + MINUTE });
    const content = fired(first.decision).content;
    assert.deepEqual(pins(content), ['operand-a#12:closed:-', `operand-b#34:open:pull-request:${digest('b1')}`]);
    assert.equal(content.draft, true);
    assert.equal(content.close, false);
    assert.deepEqual(Object.keys(first.record.triggers).sort(), ['operand-a#12', 'operand-b#34'], 'still known');

    const allClosed = forge({
      'operand-a#12': reading('operand-a', 12, 'closed'),
      'operand-b#34': reading('operand-b', 34, 'closed'),
    });
    const second = reconcile({ record: first.record, builds: [A12, B34], forge: allClosed, now: T0 + 2 * MINUTE });
    const closing = fired(second.decision).content;
    assert.deepEqual(pins(closing), ['operand-a#12:closed:-', 'operand-b#34:closed:-']);
    assert.equal(closing.close, true);
    assert.equal(closing.draft, false);
    const after = decidePreMerge(
      input({ record: second.record, builds: [A12, B34], forge: allClosed, now: T0 + 3 * MINUTE }),
    );
    assert.deepEqual(after.step, { kind: 'idle' }, 'all settled: no poll');
  });

  it('with one PR closed and the other merged and built: ready for review, not closed', () => {
    const mixed = forge({
      'operand-a#12': reading('operand-a', 12, 'closed'),
      'operand-b#34': reading('operand-b', 34, 'merged', SHA_B),
    });
    const content = fired(
      decidePreMerge(
        input({
          record: applied(),
          builds: [A12, B34],
          forge: mixed,
          pushBuild: pushBuilds({ [`operand-b@${SHA_B}`]: PUSH_B }),
        }),
      ),
    ).content;
    assert.deepEqual(pins(content), ['operand-a#12:closed:-', `operand-b#34:merged:push:${digest('b-push')}`]);
    assert.equal(content.draft, false);
    assert.equal(content.close, false);
  });

  it('keeps the recorded state of a PR the forge could not be asked about', () => {
    const merged = forge({
      'operand-a#12': reading('operand-a', 12, 'merged', SHA_A),
      'operand-b#34': reading('operand-b', 34, 'open'),
    });
    const record = reconcile({ record: applied(), builds: [A12, B34], forge: merged }).record;
    const onlyB = forge({ 'operand-b#34': reading('operand-b', 34, 'open') });
    const decision = decidePreMerge(input({ record, builds: [A12, B34], forge: onlyB, now: T0 + MINUTE }));
    assert.equal(decision.step.kind, 'idle');
    assert.deepEqual(decision.record.triggers['operand-a#12'], record.triggers['operand-a#12']);
    // A new PR whose forge reading is missing counts as open, without a link.
    const c = prBuild('operand-c', 56, 'c1', T0);
    const withC = decidePreMerge(input({ record, builds: [A12, B34, c], forge: onlyB, now: T0 + MINUTE }));
    const newcomer = withC.record.triggers['operand-c#56'];
    assert.equal(newcomer?.state, 'open');
    assert.equal(newcomer.url, undefined);
    assert.equal(withC.record.triggers['operand-a#12']?.state, 'merged');
  });
});

describe('decidePreMerge: write-ahead and retries (N18)', () => {
  const firing = () => decidePreMerge(input({ builds: [A12, B34], forge: bothOpen }));

  it('waits for a fire under way within its lease, and fires again once the lease ends', () => {
    const { record } = firing();
    const slowPoll = { pollMs: 3 * LEASE };
    const within = decidePreMerge(
      input({ record, builds: [A12, B34], forge: bothOpen, now: T0 + MINUTE, ...slowPoll }),
    );
    assert.deepEqual(within.step, { kind: 'idle', wakeAt: T0 + LEASE });
    const quickPoll = decidePreMerge(input({ record, builds: [A12, B34], forge: bothOpen, now: T0 + MINUTE }));
    assert.deepEqual(quickPoll.step, { kind: 'idle', wakeAt: T0 + MINUTE + POLL }, 'the sooner of lease and poll');
    const after = decidePreMerge(input({ record, builds: [A12, B34], forge: bothOpen, now: T0 + LEASE }));
    const { content, attempt } = fired(after);
    assert.equal(attempt, 2, 'an interrupted attempt counts');
    assert.equal(content.key, fired(firing()).content.key, 'the same content, so the same key');
  });

  it('gives up on content interrupted maxAttempts times, and still asks the forge while a PR is open', () => {
    let { record } = firing();
    let now = T0;
    for (let attempt = 2; attempt <= DEFAULT_DISPATCH_POLICY.maxAttempts; attempt += 1) {
      now += LEASE;
      const decision = decidePreMerge(input({ record, builds: [A12, B34], forge: bothOpen, now }));
      assert.equal(fired(decision).attempt, attempt);
      record = decision.record;
    }
    now += LEASE;
    const last = decidePreMerge(input({ record, builds: [A12, B34], forge: bothOpen, now }));
    assert.equal(last.record.attempt?.state, 'failed');
    assert.equal(last.record.attempt.reason, 'interrupted');
    assert.equal(last.record.attempt.count, DEFAULT_DISPATCH_POLICY.maxAttempts);
    assert.deepEqual(last.step, { kind: 'idle', wakeAt: now + POLL }, 'a merge must still be noticed');
    const later = decidePreMerge(input({ record: last.record, builds: [A12, B34], forge: bothOpen, now: now + POLL }));
    assert.deepEqual(later.step, { kind: 'idle', wakeAt: now + 2 * POLL });
  });

  it('retries a failure after the backoff, idle until then', () => {
    const { decision, record } = reconcile({ builds: [A12, B34], forge: bothOpen }, FAIL);
    const key = fired(decision).content.key;
    const notBefore = T0 + DEFAULT_DISPATCH_POLICY.firstRetryDelayMs;
    assert.deepEqual(record.attempt, {
      key,
      state: 'retry',
      count: 1,
      since: T0,
      notBefore,
      reason: 'forge-unavailable',
    });
    const before = decidePreMerge(
      input({ record, builds: [A12, B34], forge: bothOpen, now: notBefore - 1, pollMs: LEASE }),
    );
    assert.deepEqual(before.step, { kind: 'idle', wakeAt: notBefore });
    const at = decidePreMerge(input({ record, builds: [A12, B34], forge: bothOpen, now: notBefore }));
    assert.equal(fired(at).attempt, 2);
    assert.equal(fired(at).content.key, key);
    const second = afterPreMergeFire(at.record, fired(at).content, 2, FAIL, notBefore, DEFAULT_DISPATCH_POLICY);
    assert.equal(second.attempt?.notBefore, notBefore + 2 * DEFAULT_DISPATCH_POLICY.firstRetryDelayMs, 'doubling');
    const done = afterPreMergeFire(at.record, fired(at).content, 2, OK, notBefore, DEFAULT_DISPATCH_POLICY);
    assert.deepEqual(done.applied, { key, url: 'https://github.com/org/bundle/pull/5' });
    assert.equal(done.attempt, undefined);
  });

  it('stops after a permanent failure until the content changes, then starts at attempt 1', () => {
    const { decision, record } = reconcile({ builds: [A12, B34], forge: bothOpen }, PERMANENT);
    const key = fired(decision).content.key;
    assert.equal(record.attempt?.state, 'failed');
    assert.equal(record.attempt.reason, 'no-credentials');
    const much = T0 + 1000 * MINUTE;
    const idle = decidePreMerge(input({ record, builds: [A12, B34], forge: bothOpen, now: much }));
    assert.equal(idle.step.kind, 'idle');
    assert.deepEqual(idle.record.attempt, record.attempt);
    const newer = prBuild('operand-b', 34, 'b2', T0);
    const next = fired(decidePreMerge(input({ record, builds: [A12, newer], forge: bothOpen, now: much })));
    assert.equal(next.attempt, 1);
    assert.notEqual(next.content.key, key);
  });

  it('gives up after maxAttempts failures', () => {
    let record = input().record;
    let now = T0;
    let attempt = 1;
    for (;;) {
      const decision = decidePreMerge(input({ record, builds: [A12, B34], forge: bothOpen, now }));
      const step = fired(decision);
      assert.equal(step.attempt, attempt);
      record = afterPreMergeFire(decision.record, step.content, step.attempt, FAIL, now, DEFAULT_DISPATCH_POLICY);
      if (record.attempt?.state === 'failed') break;
      now = record.attempt?.notBefore ?? assert.fail('no notBefore');
      attempt += 1;
    }
    assert.equal(attempt, DEFAULT_DISPATCH_POLICY.maxAttempts);
    assert.equal(
      decidePreMerge(input({ record, builds: [A12, B34], forge: bothOpen, now: now + 60 * MINUTE })).step.kind,
      'idle',
    );
  });

  it('makes the PR again from the applied content when a later fire may have reached the forge', () => {
    // Applied with both open; operand-a#12 closed, and that fire reached the forge but its result
    // was lost (a crash after the effect, or a failure after the push); then #12 is reopened.
    const record = applied();
    const closed = forge({
      'operand-a#12': reading('operand-a', 12, 'closed'),
      'operand-b#34': reading('operand-b', 34, 'open'),
    });
    for (const lost of ['crash', 'failure'] as const) {
      const closing = decidePreMerge(input({ record, builds: [A12, B34], forge: closed, now: T0 + MINUTE }));
      const step = fired(closing);
      const afterwards =
        lost === 'crash'
          ? closing.record
          : afterPreMergeFire(closing.record, step.content, step.attempt, FAIL, T0 + MINUTE, DEFAULT_DISPATCH_POLICY);
      const reopened = decidePreMerge(
        input({ record: afterwards, builds: [A12, B34], forge: bothOpen, now: T0 + MINUTE + LEASE }),
      );
      const again = fired(reopened);
      assert.equal(again.content.key, record.applied?.key, `${lost}: the applied content, made again`);
      const done = afterPreMergeFire(
        reopened.record,
        again.content,
        again.attempt,
        OK,
        T0 + LEASE,
        DEFAULT_DISPATCH_POLICY,
      );
      assert.equal(
        decidePreMerge(input({ record: done, builds: [A12, B34], forge: bothOpen, now: T0 + 2 * LEASE })).step.kind,
        'idle',
      );
    }
  });

  it('fires nothing for a pair without triggers', () => {
    assert.deepEqual(decidePreMerge(input()).step, { kind: 'idle' });
  });

  it('writes a record that reads back, at every step', () => {
    const steps = [
      firing().record,
      applied(),
      reconcile({ builds: [A12, B34], forge: bothOpen }, FAIL).record,
      reconcile({ builds: [A12, B34], forge: bothOpen }, PERMANENT).record,
    ];
    for (const record of steps) {
      const back = parsePreMergeRecord(serializePreMergeRecord(record), record.group, record.target);
      assert.ok(back.ok, back.ok ? '' : back.problem);
      assert.deepEqual(back.record, record);
    }
  });
});
