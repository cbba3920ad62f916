// The pure rules of the `direct` executor (docs/decisions.md N20): which build a pull request
// carries, what the executor does with the pull request it finds, and how the automerge keys are
// honoured or reported.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { automergePlan } from '../../../src/domain/nudge/direct-automerge.ts';
import {
  compareBuildStamps,
  formatBuildStamp,
  parseBuildStamp,
  withBuildStamp,
  type NudgeBuildStamp,
} from '../../../src/domain/nudge/direct-build-stamp.ts';
import { decideDirectNudge, foreignCommits } from '../../../src/domain/nudge/direct-decision.ts';
import { NudgeInputError } from '../../../src/domain/nudge/errors.ts';
import { NO_RENOVATE_SETTINGS } from '../../../src/domain/nudge/renovate-settings.ts';

const DIGEST = `sha256:${'a'.repeat(64)}`;
const stamp = (pipelineRun: string, createdAt: string | undefined): NudgeBuildStamp => ({
  createdAt,
  pipelineRun,
  digest: DIGEST,
});
const OLD = stamp('op-on-push-1', '2026-01-01T10:00:00Z');
const NEW = stamp('op-on-push-2', '2026-01-01T11:00:00Z');
const BOT = '123456+red-hat-konflux[bot]@users.noreply.github.com';
const BOX = ' - [ ] <!-- rebase-check -->If you want to rebase/retry this PR, check this box';
const TICKED = BOX.replace('[ ]', '[x]');

describe('build stamp', () => {
  it('is a hidden HTML comment that reads back', () => {
    assert.equal(
      formatBuildStamp(OLD),
      `<!-- nudger-build createdAt=2026-01-01T10:00:00Z pipelineRun=op-on-push-1 digest=${DIGEST} -->`,
    );
    assert.deepEqual(parseBuildStamp(withBuildStamp('body', OLD)), OLD);
    assert.deepEqual(parseBuildStamp(withBuildStamp('body', stamp('x', undefined))), stamp('x', undefined));
  });

  it('reads as absent when missing or edited into something invalid', () => {
    assert.equal(parseBuildStamp('no stamp here'), undefined);
    assert.equal(
      parseBuildStamp(`<!-- nudger-build createdAt=yesterday pipelineRun=op digest=${DIGEST} -->`),
      undefined,
    );
    assert.equal(parseBuildStamp('<!-- nudger-build createdAt=- pipelineRun=op digest=sha256:abc -->'), undefined);
  });

  it('refuses values that could end the comment or break the line', () => {
    assert.throws(() => formatBuildStamp(stamp('op-->', undefined)), NudgeInputError);
    assert.throws(() => formatBuildStamp(stamp('op', '2026-01-01 10:00')), NudgeInputError);
    assert.throws(() => formatBuildStamp({ ...OLD, digest: 'sha256:abc' }), NudgeInputError);
  });

  it('orders by creation time, then by PipelineRun name; an unknown time ranks lowest', () => {
    assert.ok(compareBuildStamps(OLD, NEW) < 0);
    assert.ok(compareBuildStamps(NEW, OLD) > 0);
    assert.equal(compareBuildStamps(OLD, { ...OLD }), 0);
    const sameSecond = stamp('op-on-push-1b', OLD.createdAt);
    assert.ok(compareBuildStamps(sameSecond, OLD) > 0);
    assert.ok(compareBuildStamps(stamp('z', undefined), OLD) < 0);
    assert.ok(compareBuildStamps(stamp('b', undefined), stamp('a', undefined)) > 0);
    // Offsets are compared as instants, not as text.
    assert.ok(compareBuildStamps(stamp('a', '2026-01-01T12:00:00+02:00'), stamp('b', '2026-01-01T11:00:00Z')) < 0);
  });

  it('is a total order consistent with itself (antisymmetric)', () => {
    const arbitraryStamp = fc.record({
      createdAt: fc.option(
        fc
          .date({ min: new Date('2020-01-01'), max: new Date('2030-01-01'), noInvalidDate: true })
          .map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z')),
        { nil: undefined },
      ),
      pipelineRun: fc.stringMatching(/^[a-z][a-z0-9-]{0,8}[a-z0-9]$/),
      digest: fc.constant(DIGEST),
    });
    fc.assert(
      fc.property(arbitraryStamp, arbitraryStamp, (a, b) => {
        assert.equal(Math.sign(compareBuildStamps(a, b)), -Math.sign(compareBuildStamps(b, a)) || 0);
        assert.deepEqual(parseBuildStamp(withBuildStamp('x', a)), { ...a });
      }),
    );
  });
});

describe('decideDirectNudge', () => {
  const open = (body: string, commits: { sha: string; authorEmail: string; committerEmail?: string }[] = []) => ({
    body,
    commits,
  });

  it('writes when there is no open pull request', () => {
    assert.deepEqual(decideDirectNudge({ incoming: OLD, open: undefined, botEmail: BOT }), {
      kind: 'write',
      discardEdits: false,
    });
  });

  it('leaves a pull request carrying a newer build alone, whatever else it finds', () => {
    const body = withBuildStamp(BOX, NEW);
    const human = [{ sha: 'h', authorEmail: 'me@example.com' }];
    for (const candidate of [open(body), open(body, human), open(withBuildStamp(TICKED, NEW), human)]) {
      assert.deepEqual(decideDirectNudge({ incoming: OLD, open: candidate, botEmail: BOT }), {
        kind: 'superseded',
        by: NEW,
      });
    }
  });

  it('reads the newest merged or closed pull request when none is open', () => {
    const merged = withBuildStamp(BOX, NEW);
    assert.deepEqual(decideDirectNudge({ incoming: OLD, open: undefined, latestBody: merged, botEmail: BOT }), {
      kind: 'superseded',
      by: NEW,
    });
    const newest = stamp('op-on-push-3', '2026-01-01T12:00:00Z');
    assert.deepEqual(decideDirectNudge({ incoming: newest, open: undefined, latestBody: merged, botEmail: BOT }), {
      kind: 'write',
      discardEdits: false,
    });
  });

  it('rewrites for the same or a newer build, and when the carried build cannot be read', () => {
    for (const body of [withBuildStamp(BOX, OLD), withBuildStamp(BOX, NEW), BOX]) {
      assert.equal(decideDirectNudge({ incoming: NEW, open: open(body), botEmail: BOT }).kind, 'write');
    }
  });

  it('stops at a commit by another author or committer until the rebase box is ticked', () => {
    const body = withBuildStamp(BOX, OLD);
    const mine = { sha: 'b', authorEmail: BOT.toUpperCase(), committerEmail: BOT };
    const otherAuthor = { sha: 'h1', authorEmail: 'me@example.com', committerEmail: BOT };
    const otherCommitter = { sha: 'h2', authorEmail: BOT, committerEmail: 'me@example.com' };
    assert.deepEqual(decideDirectNudge({ incoming: NEW, open: open(body, [mine]), botEmail: BOT }), {
      kind: 'write',
      discardEdits: false,
    });
    assert.deepEqual(
      decideDirectNudge({ incoming: NEW, open: open(body, [mine, otherAuthor, otherCommitter]), botEmail: BOT }),
      { kind: 'branch-edited', foreignCommits: ['h1', 'h2'] },
    );
    assert.deepEqual(
      decideDirectNudge({
        incoming: NEW,
        open: open(withBuildStamp(TICKED, OLD), [mine, otherAuthor]),
        botEmail: BOT,
      }),
      { kind: 'write', discardEdits: true },
    );
  });

  it('counts a commit with no author email as foreign, and an unknown committer as not', () => {
    assert.deepEqual(
      foreignCommits(
        [
          { sha: 'a', authorEmail: '' },
          { sha: 'b', authorEmail: BOT, committerEmail: '' },
        ],
        BOT,
      ),
      ['a'],
    );
  });
});

describe('automergePlan', () => {
  const github = { kind: 'github', canAutoMerge: true };
  const settings = { ...NO_RENOVATE_SETTINGS, automerge: true, platformAutomerge: true };
  const keys = (plan: ReturnType<typeof automergePlan>) => plan.unsupported.map((item) => item.key);

  it('asks nothing without automerge, whatever else is set', () => {
    assert.deepEqual(
      automergePlan(
        { ...NO_RENOVATE_SETTINGS, automergeType: 'branch', ignoreTests: true, automergeSchedule: ['after 10pm'] },
        github,
      ),
      { enable: false, unsupported: [] },
    );
  });

  it('enables the forge’s auto-merge for automergeType pr (the default) with platformAutomerge', () => {
    assert.deepEqual(automergePlan(settings, github), { enable: true, unsupported: [] });
    assert.deepEqual(automergePlan({ ...settings, automergeType: 'pr' }, github), { enable: true, unsupported: [] });
  });

  it('reports what Renovate would do on a later run, and enables nothing then', () => {
    for (const [changed, key] of [
      [{ automergeType: 'branch' as const }, 'automergeType'],
      [{ automergeType: 'pr-comment' as const }, 'automergeType'],
      [{ platformAutomerge: false }, 'platformAutomerge'],
      [{ automergeSchedule: ['after 10pm every weekday'] }, 'automergeSchedule'],
    ] as const) {
      const plan = automergePlan({ ...settings, ...changed }, github);
      assert.equal(plan.enable, false, key);
      assert.deepEqual(keys(plan), [key]);
    }
    const local = automergePlan(settings, { kind: 'local', canAutoMerge: false });
    assert.deepEqual([local.enable, keys(local)], [false, ['automerge']]);
  });

  it('reports ignoreTests and gitLabIgnoreApprovals, which GitHub cannot honour, beside enabling', () => {
    const plan = automergePlan({ ...settings, ignoreTests: true, gitLabIgnoreApprovals: true }, github);
    assert.deepEqual([plan.enable, keys(plan)], [true, ['ignoreTests', 'gitLabIgnoreApprovals']]);
    assert.match(plan.unsupported[0]?.why ?? '', /still waits for the required checks/);
    assert.deepEqual(
      keys(automergePlan({ ...settings, gitLabIgnoreApprovals: true }, { ...github, kind: 'gitlab' })),
      [],
    );
  });
});
