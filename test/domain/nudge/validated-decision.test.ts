// The validated-nudge decision of one (gating group, target) pair (docs/decisions.md D10, D2, D3,
// N18, N19): five operands gated by `operands` nudge `bundle` in one batch.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  VALIDATED_REASONS,
  afterFire,
  afterHold,
  decideValidated,
  type BatchEntry,
  type DigestVerification,
  type ValidatedDecision,
  type ValidatedPairInput,
  type ValidatedStep,
} from '../../../src/domain/nudge/validated-decision.ts';
import { DEFAULT_DISPATCH_POLICY, retryNotBefore } from '../../../src/domain/nudge/dispatch-policy.ts';
import type { ValidatedRecord } from '../../../src/domain/nudge/validated-record.ts';
import { readSnapshot, type PassingSnapshot } from '../../../src/domain/nudge/validated-snapshot.ts';
import { validatedBatchKey } from '../../../src/domain/nudge/validated-text.ts';
import {
  GROUP,
  LEASE,
  MINUTE,
  NAMESPACE,
  OPERANDS,
  T0,
  TARGET,
  clusterSnapshot,
  digest,
  image,
  pairInput,
  passing,
} from './validated-fixtures.ts';

const POLICY = DEFAULT_DISPATCH_POLICY;

/** Every operand at `<letter><n>`: operand-a at `a1`, … */
function allAt(n: number): Record<string, string> {
  return Object.fromEntries(OPERANDS.map((name) => [name, `${name.slice(-1)}${String(n)}`]));
}

const S1 = passing('operands-1', 1000, allAt(1), { component: 'operand-a' });
const S2 = passing('operands-2', 2000, allAt(2), { component: 'operand-a' });

/** Builds created in the order of their number: `a2` is newer than `a1`. */
function verifyByNumber(component: string, img: string): DigestVerification {
  const seed = [...OPERANDS.map((name) => name.slice(-1))].flatMap((letter) =>
    [1, 2, 3, 4, 5].map((n) => `${letter}${String(n)}`),
  );
  const found = seed.find((s) => image(component, s) === img);
  if (found === undefined) return { ok: false, reason: 'no-build' };
  return {
    ok: true,
    build: {
      name: `${component}-on-push-${found}`,
      uid: `uid-${found}`,
      createdAt: T0 - 60 * MINUTE + Number(found.slice(1)) * MINUTE,
    },
  };
}

function input(overrides: Partial<ValidatedPairInput> = {}): ValidatedPairInput {
  return pairInput({ verify: verifyByNumber, ...overrides });
}

function fireOf(step: ValidatedStep): Extract<ValidatedStep, { kind: 'fire' }> {
  if (step.kind !== 'fire') assert.fail(`expected fire, got ${JSON.stringify(step)}`);
  return step;
}

function holdOf(step: ValidatedStep): Extract<ValidatedStep, { kind: 'hold' }> {
  if (step.kind !== 'hold') assert.fail(`expected hold, got ${JSON.stringify(step)}`);
  return step;
}

function idleOf(step: ValidatedStep): Extract<ValidatedStep, { kind: 'idle' }> {
  if (step.kind !== 'idle') assert.fail(`expected idle, got ${JSON.stringify(step)}`);
  return step;
}

function contentKey(entries: readonly { component: string; digest: string }[]): string {
  return validatedBatchKey(NAMESPACE, GROUP, TARGET, entries);
}

const digests = (entries: readonly BatchEntry[]) => entries.map((e) => `${e.component}@${e.digest}`);
const expectDigests = (images: Record<string, string>) =>
  Object.entries(images)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([component, seed]) => `${component}@${digest(seed)}`);

type Fire = Extract<ValidatedStep, { kind: 'fire' }>;
const PERMANENT = { ok: false, reason: 'no-credentials', message: 'no token', permanent: true } as const;
const TRANSIENT = { ok: false, reason: 'Forge unavailable', message: '503' } as const;

/** afterFire of `fire` (its record, its key, attempt and entries) with a failure. */
function afterFailure(fire: Fire, result: typeof PERMANENT | typeof TRANSIENT, now = T0, attempt = fire.attempt) {
  return afterFire(fire.record, { ...fire, attempt }, result, now, POLICY);
}

/** The record after `step` fired and succeeded. */
function fired(step: ValidatedStep, now = T0): ValidatedRecord {
  const fire = fireOf(step);
  return afterFire(fire.record, fire, { ok: true, detail: 'https://forge/pr/7' }, now, POLICY).record;
}

function heldRecord(step: ValidatedStep): ValidatedRecord {
  const hold = holdOf(step);
  return afterHold(
    hold.record,
    hold.entries.map((entry) => ({
      entry,
      heldBy: {
        changeGroup: hold.changeGroup,
        build: entry.build,
        ...(entry.buildUid === undefined ? {} : { buildUid: entry.buildUid }),
      },
    })),
  ).record;
}

function decide(overrides: Partial<ValidatedPairInput>): ValidatedDecision {
  return decideValidated(input(overrides));
}

describe('decideValidated: what is due (D10)', () => {
  it('no record and a passing Snapshot: one fire of all five, keyed by its content', () => {
    const { step, notices } = decide({ snapshots: [S1] });
    const fire = fireOf(step);
    assert.deepEqual(notices, []);
    assert.deepEqual(digests(fire.entries), expectDigests(allAt(1)));
    assert.equal(fire.key, contentKey(fire.entries));
    assert.match(fire.key, /^[0-9a-f]{16}$/);
    assert.equal(fire.attempt, 1);
    assert.ok(fire.entries.every((e) => e.snapshot === 'operands-1' && e.startTime === 1000));
    assert.equal(fire.entries[0]?.build, 'operand-a-on-push-a1');
    assert.equal(fire.entries[0].buildUid, 'uid-a1');
    // Write-ahead: the record to write first says `firing` with exactly this content.
    assert.equal(fire.record.batch?.state, 'firing');
    assert.equal(fire.record.batch.key, fire.key);
    assert.equal(fire.record.batch.attempt, 1);
    assert.equal(fire.record.batch.since, T0);
    assert.deepEqual(Object.keys(fire.record.batch.entries).sort(), [...OPERANDS]);
    assert.equal(fire.record.nudged.size, 0, 'nothing counts as nudged before the fire');
  });

  it('the key is the content: the same digests give the same key, a different one another key', () => {
    const first = fireOf(decide({ snapshots: [S1] }).step);
    const again = fireOf(decide({ snapshots: [S1], now: T0 + 99 * MINUTE }).step);
    assert.equal(again.key, first.key);
    const renamed = passing('operands-other-name', 1500, allAt(1));
    assert.equal(fireOf(decide({ snapshots: [renamed] }).step).key, first.key, 'the Snapshot is not in the key');
    assert.notEqual(fireOf(decide({ snapshots: [S2] }).step).key, first.key);
  });

  it('a failing Snapshot fires nothing: readSnapshot gives no passing Snapshot', () => {
    const failed = clusterSnapshot({ conditions: [{ type: 'AppStudioTestSucceeded', status: 'False' }] });
    const snapshots = [failed]
      .map(readSnapshot)
      .flatMap((reading) => (reading.kind === 'passing' ? [reading.snapshot] : []));
    assert.deepEqual(snapshots, []);
    const { step, notices } = decide({ snapshots });
    assert.deepEqual(step, { kind: 'idle' });
    assert.deepEqual(notices, []);
  });

  it('a Snapshot read from the cluster goes through to the fire with its digests', () => {
    const reading = readSnapshot(clusterSnapshot({ startTime: '1736937000' }));
    if (reading.kind !== 'passing') assert.fail(reading.reason);
    const fire = fireOf(decide({ snapshots: [reading.snapshot], verify: pairInput().verify }).step);
    assert.deepEqual(
      fire.entries.map((e) => e.digest),
      OPERANDS.map((_, i) => digest(i + 1)),
    );
  });

  it('out of order: the newest Snapshot by start time wins, whatever the order given', () => {
    for (const snapshots of [
      [S1, S2],
      [S2, S1],
    ]) {
      assert.deepEqual(digests(fireOf(decide({ snapshots }).step).entries), expectDigests(allAt(2)));
    }
  });

  it('per component: the newest Snapshot that carries it', () => {
    const onlyA = passing('operands-3', 3000, { 'operand-a': 'a3' });
    const fire = fireOf(decide({ snapshots: [S1, onlyA] }).step);
    assert.deepEqual(digests(fire.entries), expectDigests({ ...allAt(1), 'operand-a': 'a3' }));
    assert.equal(fire.entries.find((e) => e.component === 'operand-a')?.snapshot, 'operands-3');
    assert.equal(fire.entries.find((e) => e.component === 'operand-b')?.snapshot, 'operands-1');
  });

  it('equal start times are ordered by name, the same way every time', () => {
    const x = passing('operands-x', 1000, { 'operand-a': 'a1' });
    const y = passing('operands-y', 1000, { 'operand-a': 'a2' });
    for (const snapshots of [
      [x, y],
      [y, x],
    ]) {
      assert.deepEqual(digests(fireOf(decide({ snapshots, froms: ['operand-a'] }).step).entries), [
        `operand-a@${digest('a2')}`,
      ]);
    }
  });

  it('only the components of the pair: froms limit the entries, duplicates count once', () => {
    const fire = fireOf(
      decide({ snapshots: [S1], froms: ['operand-c', 'operand-a', 'operand-c', 'not-in-group'] }).step,
    );
    assert.deepEqual(digests(fire.entries), expectDigests({ 'operand-a': 'a1', 'operand-c': 'c1' }));
  });

  it('equal digests: idle', () => {
    const record = fired(decide({ snapshots: [S1] }).step);
    assert.deepEqual(decide({ snapshots: [S1], record }).step, { kind: 'idle' });
    const sameDigestsLater = passing('operands-9', 9000, allAt(1));
    assert.deepEqual(decide({ snapshots: [S1, sameDigestsLater], record }).step, { kind: 'idle' });
  });

  it('a late pass for an older build after a newer one was nudged: idle, nothing goes backwards', () => {
    const record = fired(decide({ snapshots: [S2] }).step);
    assert.deepEqual(decide({ snapshots: [S2, S1], record }).step, { kind: 'idle' }, 'S2 still the newest');
    assert.deepEqual(decide({ snapshots: [S1], record }).step, { kind: 'idle' }, 'S2 gone: S1 is still older');
  });

  it('a newer Snapshot carrying an older build (a stale Global Candidate List): idle', () => {
    const record = fired(decide({ snapshots: [S2] }).step);
    const stale = passing('operands-3', 3000, { ...allAt(2), 'operand-b': 'b1' });
    assert.deepEqual(decide({ snapshots: [S2, stale], record }).step, { kind: 'idle' });
  });

  // Found by the crash property (validated-property.test.ts): the newest Snapshot carrying a
  // component used to decide alone, so a later-started Snapshot made from an older Global
  // Candidate List (its build started after operand-a's, its Snapshot was made before
  // operand-a's pass) hid operand-a's newer pass, and dropped a retry batch holding it silently.
  it('a pass is not hidden by a later-started Snapshot carrying the digest already nudged (D10)', () => {
    const record = fired(decide({ snapshots: [S1] }).step);
    const passA = passing('operands-2', 2000, { ...allAt(1), 'operand-a': 'a3' }, { component: 'operand-a' });
    const staleGcl = passing('operands-3', 3000, allAt(1), { component: 'operand-e' });
    const fire = fireOf(decide({ snapshots: [S1, passA], record }).step);
    assert.deepEqual(digests(fire.entries), [`operand-a@${digest('a3')}`]);
    const retry = afterFailure(fire, TRANSIENT).record;
    const after = decide({ snapshots: [S1, passA, staleGcl], record: retry, now: T0 + 99 * MINUTE });
    assert.equal(fireOf(after.step).key, fire.key, 'the retry of operand-a@a3 goes on');
    assert.deepEqual(
      digests(fireOf(decide({ snapshots: [S1, passA, staleGcl], record }).step).entries),
      [`operand-a@${digest('a3')}`],
      'both passes seen at once: operand-a@a3 still fires',
    );
  });

  it('nor by a later-started Snapshot carrying an older build than the one nudged', () => {
    const record = fired(decide({ snapshots: [S2] }).step);
    const passA = passing('operands-3', 3000, { 'operand-a': 'a3' });
    const staleGcl = passing('operands-4', 4000, { 'operand-a': 'a1' });
    const fire = fireOf(decide({ snapshots: [S2, passA, staleGcl], record }).step);
    assert.deepEqual(digests(fire.entries), [`operand-a@${digest('a3')}`]);
    assert.equal(fire.entries[0]?.snapshot, 'operands-3');
  });

  it('a late Snapshot older than the one nudged from is not read at all: no notice for its digests', () => {
    const record = fired(decide({ snapshots: [S2] }).step);
    const verify = (component: string, img: string): DigestVerification =>
      img === image('operand-a', 'a9') ? { ok: false, reason: 'no-build' } : verifyByNumber(component, img);
    const late = passing('operands-late', 1500, { 'operand-a': 'a9' });
    assert.deepEqual(decide({ snapshots: [S2, late], record, verify }), { step: { kind: 'idle' }, notices: [] });
  });

  it('only what changed is due after a nudge', () => {
    const record = fired(decide({ snapshots: [S1] }).step);
    const newerC = passing('operands-3', 3000, { ...allAt(1), 'operand-c': 'c3' });
    const fire = fireOf(decide({ snapshots: [S1, newerC], record }).step);
    assert.deepEqual(digests(fire.entries), [`operand-c@${digest('c3')}`]);
  });

  it('a digest no verified build produced is left out, with a ValidatedDigestUnverified Warning (D3)', () => {
    const verify = (component: string, img: string): DigestVerification =>
      component === 'operand-c' ? { ok: false, reason: 'not-a-push-build' } : verifyByNumber(component, img);
    const { step, notices } = decide({ snapshots: [S1], verify });
    const fire = fireOf(step);
    assert.deepEqual(
      fire.entries.map((e) => e.component),
      ['operand-a', 'operand-b', 'operand-d', 'operand-e'],
    );
    assert.equal(fire.key, contentKey(fire.entries));
    assert.equal(notices.length, 1);
    const [notice] = notices;
    assert.equal(notice?.type, 'Warning');
    assert.equal(notice.reason, VALIDATED_REASONS.unverified);
    assert.match(notice.message, /operands-1/);
    assert.match(notice.message, /operand-c/);
    assert.match(notice.message, /not-a-push-build/);
    assert.match(notice.message, new RegExp(TARGET));
    assert.deepEqual(notice.fact, ['validated-unverified', NAMESPACE, 'operands-1', 'operand-c', 'not-a-push-build']);
    // Told again on the next decision with the same fact, so the caller's once-per-fact holds.
    const again = decide({ snapshots: [S1], verify, record: fired(step) });
    assert.deepEqual(again.step, { kind: 'idle' });
    assert.deepEqual(again.notices, notices);
  });
});

describe('decideValidated: ChangeGroups (D2, N19)', () => {
  const holder = (component: string) =>
    component === 'operand-b' || component === 'operand-d' ? 'bundle-update' : undefined;

  it('holds what a ChangeGroup holds first, then fires the rest', () => {
    const first = decide({ snapshots: [S1], holder });
    const hold = holdOf(first.step);
    assert.equal(hold.changeGroup, 'bundle-update');
    assert.deepEqual(digests(hold.entries), expectDigests({ 'operand-b': 'b1', 'operand-d': 'd1' }));
    assert.equal(hold.record.batch?.state, 'holding');
    assert.equal(hold.record.batch.changeGroup, 'bundle-update');
    assert.equal(hold.record.batch.key, contentKey(hold.entries));
    // A crash before afterHold: the same hold again (its held-nudge records are named, made once).
    const replay = holdOf(decide({ snapshots: [S1], holder, record: hold.record, now: T0 + MINUTE }).step);
    assert.deepEqual(digests(replay.entries), digests(hold.entries));
    assert.equal(replay.changeGroup, 'bundle-update');

    const after = afterHold(
      hold.record,
      hold.entries.map((entry) => ({ entry, heldBy: { changeGroup: 'bundle-update', build: entry.build } })),
    );
    assert.equal(after.record.batch, undefined);
    assert.deepEqual(after.record.nudged.get('operand-b')?.heldBy, {
      changeGroup: 'bundle-update',
      build: 'operand-b-on-push-b1',
    });
    assert.equal(after.notices[0]?.reason, VALIDATED_REASONS.held);
    assert.match(after.notices[0].message, /bundle-update/);

    const fire = fireOf(decide({ snapshots: [S1], holder, record: after.record }).step);
    assert.deepEqual(digests(fire.entries), expectDigests({ 'operand-a': 'a1', 'operand-c': 'c1', 'operand-e': 'e1' }));
    assert.deepEqual(decide({ snapshots: [S1], holder, record: fired(fire) }).step, { kind: 'idle' });
  });

  it('a hold under way is finished even when the ChangeGroup no longer shows (its records may exist)', () => {
    const hold = holdOf(decide({ snapshots: [S1], holder }).step);
    const replay = holdOf(decide({ snapshots: [S1, S2], record: hold.record, now: T0 + 99 * MINUTE }).step);
    assert.equal(replay.changeGroup, 'bundle-update');
    assert.deepEqual(digests(replay.entries), digests(hold.entries));
    assert.equal(replay.record, hold.record, 'nothing new to write');
  });

  it('two ChangeGroups: one hold each, in name order, then the fire', () => {
    const twoHolders = (component: string) =>
      component === 'operand-e' ? 'cg-1' : component === 'operand-b' ? 'cg-2' : undefined;
    const first = holdOf(decide({ snapshots: [S1], holder: twoHolders }).step);
    assert.equal(first.changeGroup, 'cg-1');
    assert.deepEqual(
      first.entries.map((e) => e.component),
      ['operand-e'],
    );
    const second = holdOf(decide({ snapshots: [S1], holder: twoHolders, record: heldRecord(first) }).step);
    assert.equal(second.changeGroup, 'cg-2');
    const fire = fireOf(decide({ snapshots: [S1], holder: twoHolders, record: heldRecord(second) }).step);
    assert.deepEqual(
      fire.entries.map((e) => e.component),
      ['operand-a', 'operand-c', 'operand-d'],
    );
  });

  it('a released hold is fired, never held again even while the holder still says so', () => {
    const holdAll = () => 'bundle-update';
    let record = heldRecord(decide({ snapshots: [S1], holder: holdAll }).step);
    assert.deepEqual(decide({ snapshots: [S1], holder: holdAll, record }).step, { kind: 'idle' }, 'held is nudged');
    const released = (component: string) => component === 'operand-b';
    const fire = fireOf(decide({ snapshots: [S1], holder: holdAll, released, record }).step);
    assert.deepEqual(digests(fire.entries), [`operand-b@${digest('b1')}`]);
    assert.equal(fire.entries[0]?.released, true);
    assert.equal(fire.entries[0].build, 'operand-b-on-push-b1', 'the held build');
    record = fired(fire);
    assert.equal(record.nudged.get('operand-b')?.heldBy, undefined);
    assert.deepEqual(decide({ snapshots: [S1], holder: holdAll, released, record }).step, { kind: 'idle' });
  });

  it('a released hold with a newer digest due fires the newer digest', () => {
    const holdB = (component: string) => (component === 'operand-b' ? 'bundle-update' : undefined);
    const record = fired(
      decide({ snapshots: [S1], holder: holdB, record: heldRecord(decide({ snapshots: [S1], holder: holdB }).step) })
        .step,
    );
    const newerB = passing('operands-3', 3000, { 'operand-b': 'b3' });
    const step = decide({ snapshots: [S1, newerB], holder: holdB, released: () => true, record }).step;
    const fire = fireOf(step);
    assert.deepEqual(digests(fire.entries), [`operand-b@${digest('b3')}`]);
    assert.equal(fire.entries[0]?.released, true);
  });

  it('a released hold whose fire failed rides on the next batch, still not held (N19)', () => {
    const holdB = (component: string) => (component === 'operand-b' ? 'bundle-update' : undefined);
    const held = heldRecord(decide({ snapshots: [S1], holder: holdB }).step);
    const rest = fired(decide({ snapshots: [S1], holder: holdB, record: held }).step);
    const released = () => true;
    const fire = fireOf(decide({ snapshots: [S1], holder: holdB, released, record: rest }).step);
    const failed = afterFailure(fire, PERMANENT).record;
    assert.equal(failed.batch?.state, 'failed');
    const newerA = passing('operands-3', 3000, { 'operand-a': 'a3' });
    const next = fireOf(decide({ snapshots: [S1, newerA], holder: holdB, released, record: failed }).step);
    assert.deepEqual(digests(next.entries), expectDigests({ 'operand-a': 'a3', 'operand-b': 'b1' }));
    assert.equal(next.entries.find((e) => e.component === 'operand-b')?.released, true);
  });
});

describe('decideValidated: the batch under way (N18)', () => {
  const start = () => fireOf(decide({ snapshots: [S1] }).step);

  it('a firing batch younger than the lease is left alone, with a wake-up at its end', () => {
    const fire = start();
    const step = idleOf(decide({ snapshots: [S1], record: fire.record, now: T0 + LEASE - 1 }).step);
    assert.equal(step.wakeAt, T0 + LEASE);
    assert.equal(step.record, undefined, 'nothing written');
  });

  it('an older one is fired again with the same key and the next attempt, whatever is newer', () => {
    const fire = start();
    for (const snapshots of [[S1], [S1, S2]]) {
      const again = fireOf(decide({ snapshots, record: fire.record, now: T0 + LEASE }).step);
      assert.equal(again.key, fire.key);
      assert.equal(again.attempt, 2);
      assert.deepEqual(digests(again.entries), digests(fire.entries));
      assert.equal(again.record.batch?.since, T0 + LEASE);
      assert.equal(again.record.batch.attempt, 2);
    }
  });

  it('an interrupted last attempt ends the batch as failed', () => {
    const fire = start();
    const last = { ...fire.record, batch: { ...(fire.record.batch ?? assert.fail()), attempt: POLICY.maxAttempts } };
    const step = idleOf(decide({ snapshots: [S1], record: last, now: T0 + LEASE }).step);
    assert.equal(step.record?.batch?.state, 'failed');
    assert.equal(step.record.batch.reason, 'interrupted');
    assert.equal(step.record.batch.key, fire.key);
  });

  it('a transient failure: retry with notBefore; idle until then, then the same key again', () => {
    const fire = start();
    const now = T0 + 1000;
    const after = afterFailure(fire, TRANSIENT, now);
    const batch = after.record.batch;
    assert.equal(batch?.state, 'retry');
    assert.equal(batch.notBefore, retryNotBefore(POLICY, 1, now));
    assert.equal(batch.reason, 'forge-unavailable');
    assert.equal(batch.attempt, 1);
    assert.equal(after.record.nudged.size, 0);
    assert.equal(after.notices[0]?.type, 'Warning');
    assert.equal(after.notices[0].reason, VALIDATED_REASONS.failed);
    assert.match(after.notices[0].message, /tried again after/);
    const notBefore = batch.notBefore ?? 0;
    const early = idleOf(decide({ snapshots: [S1], record: after.record, now: notBefore - 1 }).step);
    assert.equal(early.wakeAt, notBefore);
    const again = fireOf(decide({ snapshots: [S1], record: after.record, now: notBefore }).step);
    assert.equal(again.key, fire.key);
    assert.equal(again.attempt, 2);
  });

  it('a retry with newer content: a new batch, a new key, attempt 1', () => {
    const fire = start();
    const retry = afterFailure(fire, TRANSIENT).record;
    const next = fireOf(decide({ snapshots: [S1, S2], record: retry, now: T0 + 1 }).step);
    assert.notEqual(next.key, fire.key);
    assert.equal(next.attempt, 1);
    assert.deepEqual(digests(next.entries), expectDigests(allAt(2)));
  });

  it('a retry whose entries are no longer due (the entries were removed) drops the batch', () => {
    const fire = start();
    const retry = afterFailure(fire, TRANSIENT).record;
    const step = idleOf(decide({ snapshots: [S1], record: retry, froms: [] }).step);
    assert.equal(step.record?.batch, undefined);
  });

  it('a permanent failure: failed; the same content stays idle, newer content starts a new batch', () => {
    const fire = start();
    const after = afterFailure(fire, PERMANENT);
    assert.equal(after.record.batch?.state, 'failed');
    assert.equal(after.record.batch.notBefore, undefined);
    assert.match(after.notices[0]?.message ?? '', /not tried again until a newer pass/);
    assert.deepEqual(decide({ snapshots: [S1], record: after.record, now: T0 + 99 * MINUTE }).step, { kind: 'idle' });
    const next = fireOf(decide({ snapshots: [S1, S2], record: after.record }).step);
    assert.notEqual(next.key, fire.key);
    assert.equal(next.attempt, 1);
  });

  it('the last attempt failing ends in failed, even for a transient reason', () => {
    const fire = start();
    const after = afterFailure(fire, TRANSIENT, T0, POLICY.maxAttempts);
    assert.equal(after.record.batch?.state, 'failed');
    assert.equal(after.record.batch.attempt, POLICY.maxAttempts);
  });

  it('success: nudged updated, batch cleared, lastPass the newest Snapshot, ValidatedNudgeFired naming it', () => {
    const onlyA = passing('operands-3', 3000, { 'operand-a': 'a3' });
    const fire = fireOf(decide({ snapshots: [S1, onlyA] }).step);
    const now = T0 + 2000;
    const after = afterFire(fire.record, fire, { ok: true, detail: 'https://forge/pr/7' }, now, POLICY);
    assert.equal(after.record.batch, undefined);
    assert.deepEqual(after.record.lastPass, {
      snapshot: 'operands-3',
      startTime: 3000,
      at: new Date(now).toISOString(),
    });
    assert.deepEqual(
      [...after.record.nudged].map(([component, n]) => `${component}@${n.digest}`).sort(),
      expectDigests({ ...allAt(1), 'operand-a': 'a3' }),
    );
    assert.deepEqual(after.record.nudged.get('operand-a'), {
      digest: digest('a3'),
      snapshot: 'operands-3',
      startTime: 3000,
      buildCreatedAt: T0 - 60 * MINUTE + 3 * MINUTE,
    });
    const [notice] = after.notices;
    assert.equal(notice?.type, 'Normal');
    assert.equal(notice.reason, VALIDATED_REASONS.fired);
    assert.match(notice.message, /operands-1, operands-3/);
    assert.match(notice.message, /https:\/\/forge\/pr\/7/);
    assert.deepEqual(notice.fact, ['validated-batch', GROUP, TARGET, fire.key]);
  });

  it('a success keeps entries that were not in the batch', () => {
    const record = fired(decide({ snapshots: [S1] }).step);
    const newerC = passing('operands-3', 3000, { 'operand-c': 'c3' });
    const next = fired(decide({ snapshots: [S1, newerC], record }).step);
    assert.equal(next.nudged.size, 5);
    assert.equal(next.nudged.get('operand-a')?.digest, digest('a1'));
    assert.equal(next.nudged.get('operand-c')?.digest, digest('c3'));
  });
});

describe('decideValidated is pure', () => {
  it('the same input gives the same decision, and the input is left as it was', () => {
    const snapshots: PassingSnapshot[] = [S2, S1];
    const i = input({ snapshots });
    const before = JSON.stringify(i.record);
    assert.deepEqual(decideValidated(i), decideValidated(i));
    assert.equal(JSON.stringify(i.record), before);
    assert.deepEqual(snapshots, [S2, S1]);
  });
});
