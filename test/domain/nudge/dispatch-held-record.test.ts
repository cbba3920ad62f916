// The dispatcher's names and lookups: the held-nudge record's name, the (build, target) key, a
// build's targets, and D3 for a build the dispatcher fires from.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isDns1123Label } from '../../../src/domain/labels.ts';
import { dispatchKey, heldRecordName } from '../../../src/domain/nudge/dispatch-held-record.ts';
import {
  duplicateLegacyEdges,
  hasImmediateEntry,
  immediateTargets,
} from '../../../src/domain/nudge/dispatch-targets.ts';
import { verifyDispatchBuild } from '../../../src/domain/nudge/dispatch-verify.ts';
import { buildNamespaceGraph } from '../../../src/domain/graph.ts';
import { component, manifestSet, nudgeConfig } from '../fixtures.ts';
import { NAMESPACE, OPERAND_A, SOURCE, build } from './dispatch-fixtures.ts';

describe('held-nudge record names and dispatch keys', () => {
  it('are DNS-1123 labels of at most 63 characters, whatever the build is called', () => {
    fc.assert(
      fc.property(
        fc.stringMatching(/^[a-z0-9]([a-z0-9.-]{0,240}[a-z0-9])?$/),
        fc.stringMatching(/^[a-z0-9]([a-z0-9-]{0,20}[a-z0-9])?$/),
        (name, target) => {
          const record = heldRecordName({ namespace: NAMESPACE, name, uid: 'u' }, target);
          assert.ok(isDns1123Label(record), record);
        },
      ),
    );
    assert.match(heldRecordName({ namespace: NAMESPACE, name: '...' }, 'x'), /^nudge-held-[0-9a-f]{16}$/);
    // A PipelineRun name may hold dots (a DNS-1123 subdomain); the record name is a label.
    assert.match(
      heldRecordName({ namespace: NAMESPACE, name: 'operand-a.on-push.x7k2p' }, 'x'),
      /^operand-a-on-push-x7k2p-held-[0-9a-f]{16}$/,
    );
  });

  it('depend on the build (its uid first) and the target, and on nothing else', () => {
    const a = { namespace: NAMESPACE, name: 'b', uid: 'u1' };
    assert.equal(dispatchKey(a, 't'), dispatchKey({ ...a }, 't'));
    assert.notEqual(dispatchKey(a, 't'), dispatchKey(a, 'u'));
    assert.notEqual(dispatchKey(a, 't'), dispatchKey({ ...a, uid: 'u2' }, 't'));
    assert.notEqual(dispatchKey(a, 't'), dispatchKey({ ...a, namespace: 'other' }, 't'));
  });
});

describe("a build's targets", () => {
  const graph = buildNamespaceGraph(
    NAMESPACE,
    manifestSet({
      components: [component(NAMESPACE, SOURCE, ['legacy-only', 'both'])],
      nudgeConfigs: [
        nudgeConfig(NAMESPACE, [
          [SOURCE, 'both'],
          [SOURCE, 'b-immediate'],
          [SOURCE, 'b-immediate'],
          { from: SOURCE, to: 'gated', mode: 'validated', gatingGroup: 'g' },
          ['other', 'x'],
        ]),
        nudgeConfig(NAMESPACE, [[SOURCE, 'misnamed']], { name: 'not-the-singleton' }),
      ],
    }),
  );

  it('are the immediate entries of nudge-config from the component, distinct and sorted', () => {
    assert.deepEqual(immediateTargets(graph, SOURCE), ['b-immediate', 'both']);
    assert.ok(hasImmediateEntry(graph, SOURCE, 'both'));
    assert.ok(!hasImmediateEntry(graph, SOURCE, 'gated'));
    assert.ok(!hasImmediateEntry(graph, SOURCE, 'legacy-only'));
    assert.ok(!hasImmediateEntry(graph, SOURCE, 'misnamed'));
  });

  it('an entry build-nudges-ref declares too is named with the item that declares it', () => {
    assert.deepEqual(duplicateLegacyEdges(graph, SOURCE, ['b-immediate', 'both']), [
      { from: SOURCE, to: 'both', declaredAt: `Component ${NAMESPACE}/${SOURCE} spec.build-nudges-ref[1]` },
    ]);
  });
});

describe('verifyDispatchBuild (D3)', () => {
  it('accepts a succeeded push build of its component, and says why it refuses any other', () => {
    const ok = verifyDispatchBuild(build(), OPERAND_A);
    assert.ok(ok.ok);
    assert.equal(ok.component, SOURCE);
    const cases: [ReturnType<typeof build>, string][] = [
      [build({ eventType: 'pull_request' }), 'not-a-push-build'],
      [build({ targetBranch: 'release-1' }), 'branch-mismatch'],
      [build({ targetBranch: 'gh-readonly-queue/main/pr-1' }), 'merge-queue-build'],
      [build({ succeeded: 'False' }), 'not-succeeded'],
      [build({ digest: 'sha256:short' }), 'invalid-image-digest'],
      [build({ url: 'quay.io/org/operand-a-extra:1' }), 'foreign-image'],
    ];
    for (const [run, reason] of cases) {
      const result = verifyDispatchBuild(run, OPERAND_A);
      assert.equal(result.ok ? 'ok' : result.reason, reason);
    }
    const missing = verifyDispatchBuild(build(), undefined);
    assert.equal(missing.ok ? 'ok' : missing.reason, 'component-not-found');
  });
});
