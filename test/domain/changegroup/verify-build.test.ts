import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  imageRepository,
  verifyNudgeBuild,
  type BuildVerification,
  type NudgingComponentFacts,
} from '../../../src/domain/changegroup/verify-build.ts';
import { readNudgePipelineRun, type NudgePipelineRun } from '../../../src/domain/nudge-pipelinerun.ts';
import { buildRun, DIGEST, nudgeRun } from './fixtures.ts';

/** The Component operand-a of the fixtures: where its builds push, and the branch it tracks. */
const OPERAND_A = { containerImage: 'quay.io/org/operand-a', branch: 'main' } as const;

function heldNudge(overrides: Parameters<typeof nudgeRun>[0] = {}): NudgePipelineRun {
  const reading = readNudgePipelineRun(nudgeRun(overrides));
  assert.ok(reading.ok);
  return reading.nudge;
}

describe('verifyNudgeBuild (D3)', () => {
  it('accepts a succeeded push build of the nudging component and returns digest and pull spec', () => {
    const result = verifyNudgeBuild(heldNudge(), buildRun({ digest: DIGEST('3') }), OPERAND_A);
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
    const result = verifyNudgeBuild(heldNudge(), annotated('.*Dockerfile, manifests/.*'), OPERAND_A);
    assert.ok(result.ok);
    assert.equal(result.nudgeFiles, '.*Dockerfile, manifests/.*');
    const blank = verifyNudgeBuild(heldNudge(), annotated('  '), OPERAND_A);
    assert.ok(blank.ok);
    assert.equal('nudgeFiles' in blank, false);
  });

  it('accepts v1beta1 builds and registries with ports', () => {
    const result = verifyNudgeBuild(
      heldNudge({ image: 'registry.local:5000/org/operand-a:t' }),
      buildRun({ v1beta1: true, url: 'registry.local:5000/org/operand-a:t' }),
      { ...OPERAND_A, containerImage: 'registry.local:5000/org/operand-a' },
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
      const result = verifyNudgeBuild(nudge, build, OPERAND_A);
      assert.ok(!result.ok);
      assert.equal(result.reason, reason);
    });
  }

  it('never echoes a rejected result value into the message', () => {
    const secret = 'ghp_0123456789abcdefghijklmnopqrstuvwxyz';
    for (const build of [buildRun({ digest: secret }), buildRun({ url: `quay.io/org/x ${secret}` })]) {
      const result = verifyNudgeBuild(heldNudge(), build, OPERAND_A);
      assert.ok(!result.ok);
      assert.ok(!result.message.includes(secret), result.message);
    }
  });
});

describe('verifyNudgeBuild against the nudging Component (D3)', () => {
  /** A build whose IMAGE_URL is `url`, announced as such by its nudge: only the Component can tell. */
  const pushedTo = (url: string): BuildVerification =>
    verifyNudgeBuild(heldNudge({ image: url }), buildRun({ url }), OPERAND_A);
  const onBranch = (branch: Record<string, string>, facts: NudgingComponentFacts = OPERAND_A): BuildVerification => {
    const run = buildRun() as { metadata: { annotations: Record<string, string>; labels: Record<string, string> } };
    delete run.metadata.annotations['build.appstudio.redhat.com/target_branch'];
    Object.assign(run.metadata.annotations, branch);
    return verifyNudgeBuild(heldNudge(), run, facts);
  };
  const reasonOf = (result: BuildVerification): string => (result.ok ? 'ok' : result.reason);

  it("rejects an IMAGE_URL outside the Component's spec.containerImage repository", () => {
    assert.equal(reasonOf(pushedTo('quay.io/org/operand-a:abc123')), 'ok');
    assert.equal(reasonOf(pushedTo('quay.io/org/operand-b:abc123')), 'foreign-image', "another component's image");
    assert.equal(reasonOf(pushedTo('docker.io/org/operand-a:abc123')), 'foreign-image', 'a foreign registry');
    assert.equal(reasonOf(pushedTo('quay.io/org/operand-a-extra:abc123')), 'foreign-image', 'anchored, not a prefix');
    assert.equal(reasonOf(pushedTo('quay.io/org/operand-a/sub:abc123')), 'foreign-image', 'anchored, not a prefix');
    const tagged = verifyNudgeBuild(heldNudge(), buildRun(), {
      ...OPERAND_A,
      containerImage: 'quay.io/org/operand-a:latest',
    });
    assert.equal(reasonOf(tagged), 'ok', 'a tag on spec.containerImage is not part of the repository');
  });

  it('rejects a nudge whose Component is gone or has no spec.containerImage', () => {
    assert.equal(reasonOf(verifyNudgeBuild(heldNudge(), buildRun(), undefined)), 'component-not-found');
    assert.equal(reasonOf(verifyNudgeBuild(heldNudge(), buildRun(), { branch: 'main' })), 'no-container-image');
  });

  it("rejects a push build of another branch than the Component's revision", () => {
    assert.equal(reasonOf(onBranch({ 'build.appstudio.redhat.com/target_branch': 'main' })), 'ok');
    assert.equal(reasonOf(onBranch({ 'build.appstudio.redhat.com/target_branch': 'release-1.2' })), 'branch-mismatch');
    assert.equal(reasonOf(onBranch({ 'build.konflux-ci.dev/target_branch': 'release-1.2' })), 'branch-mismatch');

    assert.equal(reasonOf(onBranch({ 'pipelinesascode.tekton.dev/branch': 'refs/heads/main' })), 'ok', 'PaC full ref');
    assert.equal(
      reasonOf(onBranch({ 'pipelinesascode.tekton.dev/source-branch': 'refs/heads/feature' })),
      'branch-mismatch',
    );
    assert.equal(
      reasonOf(
        onBranch(
          { 'build.appstudio.redhat.com/target_branch': 'release-1.2' },
          { ...OPERAND_A, branch: 'release-1.2' },
        ),
      ),
      'ok',
    );
    assert.equal(reasonOf(onBranch({})), 'unknown-branch');
  });

  it('accepts a push build of any branch when the Component names no revision (its default branch is unknown)', () => {
    const noRevision: NudgingComponentFacts = { containerImage: OPERAND_A.containerImage };
    assert.equal(reasonOf(onBranch({ 'build.appstudio.redhat.com/target_branch': 'master' }, noRevision)), 'ok');
    assert.equal(
      reasonOf(onBranch({ 'build.appstudio.redhat.com/target_branch': 'gh-readonly-queue/x' }, noRevision)),
      'merge-queue-build',
    );
    assert.equal(reasonOf(onBranch({}, noRevision)), 'unknown-branch');
  });

  it('rejects a nudging-pipeline that is not a PipelineRun name, quoting at most 64 characters of it', () => {
    for (const pipeline of ['run%2fx', 'a/b', 'Upper', 'x'.repeat(300), '-lead', 'with space']) {
      const result = verifyNudgeBuild(heldNudge({ pipeline }), buildRun(), OPERAND_A);
      assert.ok(!result.ok);
      assert.equal(result.reason, 'invalid-build-name');
      assert.ok(!result.message.includes('x'.repeat(65)), result.message);
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
