import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  cancelPatch,
  decideNudgeHold,
  escapeJsonPointerToken,
  HELD_BY_ANNOTATION,
  HELD_TARGETS_ANNOTATION,
  HOLD_REASON_ANNOTATION,
  REDISPATCH_ANNOTATION,
  type ChangeGroupView,
  type JsonPatchOperation,
} from '../../../src/domain/changegroup/hold-decision.ts';
import { CHANGE_GROUP_PHASES } from '../../../src/domain/changegroup/model.ts';
import { nudgeRun } from './fixtures.ts';

const cg = (overrides: Partial<ChangeGroupView> = {}): ChangeGroupView => ({
  name: 'bundle-x-update',
  namespace: 'my-tenant',
  nudgedComponent: 'bundle-x',
  nudgingComponents: ['operand-a', 'operand-b'],
  phase: 'Waiting',
  ...overrides,
});
const nudge = (targets: string[], source = 'operand-a', namespace = 'my-tenant') => ({
  namespace,
  nudgingComponent: source,
  nudgedComponents: targets,
});

/** A minimal RFC 6902 applier for add/replace, enough to check the patch does what it says. */
function applyPatch(document: unknown, ops: readonly JsonPatchOperation[]): unknown {
  const root = structuredClone(document) as Record<string, unknown>;
  for (const op of ops) {
    // The hold decision only ever adds and replaces.
    assert.ok(op.op === 'add' || op.op === 'replace', `unexpected op ${op.op}`);
    const tokens = op.path
      .split('/')
      .slice(1)
      .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
    const last = tokens.pop();
    assert.ok(last !== undefined);
    let parent: Record<string, unknown> = root;
    for (const token of tokens) {
      const next = parent[token];
      assert.ok(typeof next === 'object' && next !== null, `path ${op.path} has no parent`);
      parent = next as Record<string, unknown>;
    }
    if (op.op === 'replace') assert.ok(last in parent, `replace of a missing member ${op.path}`);
    parent[last] = structuredClone(op.value);
  }
  return root;
}

describe('decideNudgeHold', () => {
  it('cancels a nudge whose every target is held by an active ChangeGroup listing the source', () => {
    const decision = decideNudgeHold(nudge(['bundle-x']), [cg()]);
    assert.ok(decision.action === 'cancel');
    assert.deepEqual(decision.coveredBy, [{ changeGroup: 'bundle-x-update', target: 'bundle-x' }]);
    assert.deepEqual(decision.uncovered, []);
    assert.equal(decision.annotations[HELD_BY_ANNOTATION], 'bundle-x-update');
    assert.equal(decision.annotations[HELD_TARGETS_ANNOTATION], 'bundle-x=bundle-x-update');
    assert.match(decision.annotations[HOLD_REASON_ANNOTATION] ?? '', /^cancelled by ChangeGroup bundle-x-update/);
    assert.equal(REDISPATCH_ANNOTATION in decision.annotations, false);
  });

  it('cancels a partly covered nudge and names the targets to re-dispatch', () => {
    const decision = decideNudgeHold(nudge(['other', 'bundle-x', 'zeta']), [cg()]);
    assert.ok(decision.action === 'cancel');
    assert.deepEqual(decision.uncovered, ['other', 'zeta']);
    assert.equal(decision.annotations[REDISPATCH_ANNOTATION], 'other zeta');
  });

  it('leaves nudges of unlisted sources, other targets, other namespaces', () => {
    assert.deepEqual(decideNudgeHold(nudge(['bundle-x'], 'operand-z'), [cg()]), { action: 'leave' });
    assert.deepEqual(decideNudgeHold(nudge(['bundle-y']), [cg()]), { action: 'leave' });
    assert.deepEqual(decideNudgeHold(nudge(['bundle-x'], 'operand-a', 'elsewhere'), [cg()]), { action: 'leave' });
    assert.deepEqual(decideNudgeHold(nudge(['bundle-x']), []), { action: 'leave' });
  });

  it('holds only while Initialized or Waiting: not once Ready, nor in terminal phases', () => {
    for (const phase of CHANGE_GROUP_PHASES) {
      const action = decideNudgeHold(nudge(['bundle-x']), [cg({ phase })]).action;
      assert.equal(action, phase === 'Initialized' || phase === 'Waiting' ? 'cancel' : 'leave', phase);
    }
    assert.equal(decideNudgeHold(nudge(['bundle-x']), [cg({ phase: undefined })]).action, 'cancel');
  });

  it('never holds a copy nudger made to re-dispatch, even while an active ChangeGroup covers it', () => {
    assert.equal(decideNudgeHold({ ...nudge(['bundle-x']), redispatched: true }, [cg()]).action, 'leave');
    assert.equal(decideNudgeHold({ ...nudge(['bundle-x']), redispatched: false }, [cg()]).action, 'cancel');
  });

  it('treats an empty nudgingComponents as every source (not yet filled by the controller)', () => {
    assert.equal(decideNudgeHold(nudge(['bundle-x'], 'anything'), [cg({ nudgingComponents: [] })]).action, 'cancel');
  });

  it('picks the first ChangeGroup by name when two claim the same pair', () => {
    const decision = decideNudgeHold(nudge(['bundle-x']), [cg({ name: 'b' }), cg({ name: 'a' })]);
    assert.ok(decision.action === 'cancel');
    assert.deepEqual(decision.coveredBy, [{ changeGroup: 'a', target: 'bundle-x' }]);
  });

  it('every target ends up either held or re-dispatched, never both, never lost', () => {
    const name = fc.constantFrom('a', 'b', 'c', 'd');
    fc.assert(
      fc.property(
        fc.array(name, { minLength: 1, maxLength: 5 }),
        name,
        fc.array(
          fc.record({
            name: fc.constantFrom('g1', 'g2', 'g3'),
            target: name,
            sources: fc.array(name, { maxLength: 3 }),
            phase: fc.constantFrom(...CHANGE_GROUP_PHASES),
          }),
          { maxLength: 4 },
        ),
        (targets, source, groups) => {
          const views = groups.map((g) =>
            cg({ name: g.name, nudgedComponent: g.target, nudgingComponents: g.sources, phase: g.phase }),
          );
          const decision = decideNudgeHold(nudge(targets, source), views);
          if (decision.action === 'leave') return;
          const held = decision.coveredBy.map((c) => c.target);
          assert.deepEqual([...held, ...decision.uncovered].sort(), [...new Set(targets)].sort());
          for (const covered of decision.coveredBy) {
            const view = views.find((v) => v.name === covered.changeGroup && v.nudgedComponent === covered.target);
            assert.ok(view !== undefined && view.nudgedComponent !== source);
          }
        },
      ),
    );
  });
});

describe('cancelPatch', () => {
  const decision = decideNudgeHold(nudge(['bundle-x']), [cg()]);

  it('sets spec.status Cancelled and adds the annotations, escaping / in keys', () => {
    const run = nudgeRun();
    const patched = applyPatch(run, cancelPatch(run, decision)) as {
      spec: { status: string };
      metadata: { annotations: Record<string, string> };
    };
    assert.equal(patched.spec.status, 'Cancelled');
    assert.equal(patched.metadata.annotations[HELD_BY_ANNOTATION], 'bundle-x-update');
    assert.equal(patched.metadata.annotations['build.appstudio.redhat.com/nudging-component'], 'operand-a');
    assert.ok(cancelPatch(run, decision).some((op) => op.path.includes('nudger.konflux-ci.dev~1held-by')));
  });

  it('replaces an existing spec.status (e.g. PipelineRunPending) and creates missing maps', () => {
    const pending = nudgeRun({ spec: { status: 'PipelineRunPending' }, omitAnnotations: true });
    const ops = cancelPatch(pending, decision);
    assert.deepEqual(ops[0], { op: 'replace', path: '/spec/status', value: 'Cancelled' });
    const patched = applyPatch(pending, ops) as { metadata: { annotations: Record<string, string> } };
    assert.equal(patched.metadata.annotations[HELD_TARGETS_ANNOTATION], 'bundle-x=bundle-x-update');
    const noSpec = applyPatch(nudgeRun({ spec: null }), cancelPatch(nudgeRun({ spec: null }), decision)) as {
      spec: { status: string };
    };
    assert.equal(noSpec.spec.status, 'Cancelled');
  });

  it('is empty for leave', () => {
    assert.deepEqual(cancelPatch(nudgeRun(), { action: 'leave' }), []);
  });

  it('escapes ~ before /', () => {
    assert.equal(escapeJsonPointerToken('a~/b/~1'), 'a~0~1b~1~01');
  });
});
