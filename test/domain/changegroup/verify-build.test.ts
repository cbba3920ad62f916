import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { imageRepository, verifyNudgeBuild } from '../../../src/domain/changegroup/verify-build.ts';
import { readNudgePipelineRun, type NudgePipelineRun } from '../../../src/domain/nudge-pipelinerun.ts';
import { buildRun, DIGEST, nudgeRun } from './fixtures.ts';

function heldNudge(overrides: Parameters<typeof nudgeRun>[0] = {}): NudgePipelineRun {
  const reading = readNudgePipelineRun(nudgeRun(overrides));
  assert.ok(reading.ok);
  return reading.nudge;
}

describe('verifyNudgeBuild (D3)', () => {
  it('accepts a succeeded push build of the nudging component and returns digest and pull spec', () => {
    const result = verifyNudgeBuild(heldNudge(), buildRun({ digest: DIGEST('3') }));
    assert.deepEqual(result, {
      ok: true,
      component: 'operand-a',
      digest: DIGEST('3'),
      pullSpec: `quay.io/org/operand-a@${DIGEST('3')}`,
      imageUrl: 'quay.io/org/operand-a:abc123',
      pipelineRun: 'operand-a-on-push-x7k2p',
      createdAt: '2025-01-15T10:20:00Z',
    });
  });

  it("carries the build's build-nudge-files annotation for D6, and nothing when it is blank", () => {
    const annotated = (value: string): unknown => {
      const run = buildRun({ digest: DIGEST('3') }) as { metadata: { annotations?: Record<string, string> } };
      run.metadata.annotations = {
        ...run.metadata.annotations,
        'build.appstudio.openshift.io/build-nudge-files': value,
      };
      return run;
    };
    const result = verifyNudgeBuild(heldNudge(), annotated('.*Dockerfile, manifests/.*'));
    assert.ok(result.ok);
    assert.equal(result.nudgeFiles, '.*Dockerfile, manifests/.*');
    const blank = verifyNudgeBuild(heldNudge(), annotated('  '));
    assert.ok(blank.ok);
    assert.equal('nudgeFiles' in blank, false);
  });

  it('accepts v1beta1 builds and registries with ports', () => {
    const result = verifyNudgeBuild(
      heldNudge({ image: 'registry.local:5000/org/operand-a:t' }),
      buildRun({ v1beta1: true, url: 'registry.local:5000/org/operand-a:t' }),
    );
    assert.ok(result.ok);
    assert.equal(result.pullSpec, `registry.local:5000/org/operand-a@${DIGEST('1')}`);
  });

  const rejections: [string, NudgePipelineRun, unknown, string][] = [
    ['no nudging-pipeline annotation', heldNudge({ pipeline: null }), buildRun(), 'no-nudging-pipeline'],
    ['no build found', heldNudge(), undefined, 'build-not-found'],
    ['a build of another name', heldNudge(), buildRun({ name: 'other' }), 'name-mismatch'],
    ['a build in another namespace', heldNudge(), buildRun({ namespace: 'evil' }), 'namespace-mismatch'],
    ['a build of another component', heldNudge(), buildRun({ component: 'operand-b' }), 'component-mismatch'],
    ['a pull-request build', heldNudge(), buildRun({ eventType: 'pull_request' }), 'not-a-push-build'],
    [
      'a merge-queue build',
      heldNudge(),
      buildRun({ targetBranch: 'gh-readonly-queue/main/pr-1' }),
      'merge-queue-build',
    ],
    ['a failed build', heldNudge(), buildRun({ succeeded: 'False' }), 'not-succeeded'],
    ['a running build', heldNudge(), buildRun({ succeeded: 'Unknown' }), 'not-succeeded'],
    ['no IMAGE_DIGEST', heldNudge(), buildRun({ digest: null }), 'missing-image-digest'],
    ['a short digest', heldNudge(), buildRun({ digest: 'sha256:abc' }), 'invalid-image-digest'],
    ['an upper-case digest', heldNudge(), buildRun({ digest: `sha256:${'A'.repeat(64)}` }), 'invalid-image-digest'],
    ['no IMAGE_URL', heldNudge(), buildRun({ url: null }), 'missing-image-url'],
    ['markdown in IMAGE_URL', heldNudge(), buildRun({ url: 'quay.io/org/x | evil:t' }), 'invalid-image-url'],
    [
      'IMAGE_URL pinned to another digest',
      heldNudge(),
      buildRun({ url: `quay.io/org/operand-a@${DIGEST('9')}` }),
      'invalid-image-url',
    ],
    [
      'an image the nudge does not announce',
      heldNudge(),
      buildRun({ url: 'quay.io/evil/operand-a:abc123' }),
      'image-mismatch',
    ],
  ];
  for (const [what, nudge, build, reason] of rejections) {
    it(`rejects ${what} (${reason})`, () => {
      const result = verifyNudgeBuild(nudge, build);
      assert.ok(!result.ok);
      assert.equal(result.reason, reason);
    });
  }

  it('never echoes a rejected result value into the message', () => {
    const secret = 'ghp_0123456789abcdefghijklmnopqrstuvwxyz';
    for (const build of [buildRun({ digest: secret }), buildRun({ url: `quay.io/org/x ${secret}` })]) {
      const result = verifyNudgeBuild(heldNudge(), build);
      assert.ok(!result.ok);
      assert.ok(!result.message.includes(secret), result.message);
    }
  });
});

describe('imageRepository', () => {
  it('strips tag and digest but not a registry port', () => {
    assert.equal(imageRepository('quay.io/org/a:tag'), 'quay.io/org/a');
    assert.equal(imageRepository(`quay.io/org/a:tag@${DIGEST('1')}`), 'quay.io/org/a');
    assert.equal(imageRepository('localhost:5000/a'), 'localhost:5000/a');
    assert.equal(imageRepository('localhost:5000/a:t'), 'localhost:5000/a');
  });
});
