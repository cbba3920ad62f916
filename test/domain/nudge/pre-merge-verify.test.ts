// D3 for a pre-merge nudge (docs/decisions.md D3, D11): verifyNudgeBuild with event `pull-request`
// accepts a Pipelines-as-Code pull-request build of the nudging component into the branch its
// Component tracks, refuses a push build (and the push check refuses a pull-request build), and
// every other D3 check still applies.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  verifyNudgeBuild,
  type BuildVerification,
  type NudgingComponentFacts,
} from '../../../src/domain/changegroup/verify-build.ts';
import { readNudgePipelineRun, type NudgePipelineRun } from '../../../src/domain/nudge-pipelinerun.ts';
import { buildRun, DIGEST } from '../changegroup/fixtures.ts';

const OPERAND_A: NudgingComponentFacts = { containerImage: 'quay.io/org/operand-a', branch: 'main' };
const PR_RUN = 'operand-a-on-pull-request-q8m3d';

function nudgeFor(pipeline: string, image = 'quay.io/org/operand-a:on-pr-abc123'): NudgePipelineRun {
  const reading = readNudgePipelineRun({
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: {
      name: 'pre-merge-nudge',
      namespace: 'my-tenant',
      labels: { 'build.appstudio.redhat.com/type': 'nudge' },
      annotations: {
        'build.appstudio.redhat.com/nudged-components': 'bundle',
        'build.appstudio.redhat.com/nudging-component': 'operand-a',
        'build.appstudio.redhat.com/nudging-image': image,
        'build.appstudio.redhat.com/nudging-pipeline': pipeline,
      },
    },
    spec: { pipelineSpec: { tasks: [{ name: 'renovate' }] } },
  });
  assert.ok(reading.ok);
  return reading.nudge;
}

interface Run {
  metadata: { name: string; labels: Record<string, string>; annotations: Record<string, string> };
}

/**
 * A pull-request build as Pipelines-as-Code and Konflux's templates write it for PR #12 of
 * `feature-1234` into `main`: PaC's `branch` is the base, `source-branch` the PR's head.
 */
function pullRequestBuild(
  options: { readonly succeeded?: string; readonly url?: string; readonly konfluxBranch?: boolean } = {},
): Run {
  const run = buildRun({
    name: PR_RUN,
    eventType: 'pull_request',
    digest: DIGEST('7'),
    url: options.url ?? 'quay.io/org/operand-a:on-pr-abc123',
    ...(options.succeeded === undefined ? {} : { succeeded: options.succeeded }),
  }) as unknown as Run;
  Object.assign(run.metadata.labels, { 'pipelinesascode.tekton.dev/pull-request': '12' });
  Object.assign(run.metadata.annotations, {
    'pipelinesascode.tekton.dev/branch': 'main',
    'pipelinesascode.tekton.dev/source-branch': 'feature-1234',
    'pipelinesascode.tekton.dev/pull-request': '12',
    'pipelinesascode.tekton.dev/repo-url': 'https://github.com/org/operand-a',
  });
  if (options.konfluxBranch === false) delete run.metadata.annotations['build.appstudio.redhat.com/target_branch'];
  return run;
}

const reasonOf = (result: BuildVerification): string => (result.ok ? 'ok' : result.reason);

describe('verifyNudgeBuild for a pre-merge nudge (D3, D11)', () => {
  it('accepts a succeeded pull-request build of the component into its tracked branch', () => {
    const result = verifyNudgeBuild(nudgeFor(PR_RUN), pullRequestBuild(), OPERAND_A, 'pull-request');
    assert.deepEqual(result, {
      ok: true,
      component: 'operand-a',
      digest: DIGEST('7'),
      pullSpec: `quay.io/org/operand-a@${DIGEST('7')}`,
      imageUrl: 'quay.io/org/operand-a:on-pr-abc123',
      pipelineRun: PR_RUN,
      createdAt: '2025-01-15T10:20:00Z',
    });
  });

  it("takes the base from PaC's branch when Konflux's target_branch is absent, never the PR's head", () => {
    const build = pullRequestBuild({ konfluxBranch: false });
    assert.equal(reasonOf(verifyNudgeBuild(nudgeFor(PR_RUN), build, OPERAND_A, 'pull-request')), 'ok');
    delete build.metadata.annotations['pipelinesascode.tekton.dev/branch'];
    // Left with only the source branch, the build names feature-1234: not a PR into main.
    assert.equal(reasonOf(verifyNudgeBuild(nudgeFor(PR_RUN), build, OPERAND_A, 'pull-request')), 'branch-mismatch');
  });

  it('refuses a PR into another branch than the one the Component tracks', () => {
    const build = pullRequestBuild();
    build.metadata.annotations['build.appstudio.redhat.com/target_branch'] = 'release-1.2';
    assert.equal(reasonOf(verifyNudgeBuild(nudgeFor(PR_RUN), build, OPERAND_A, 'pull-request')), 'branch-mismatch');
  });

  it('refuses a push build for a pull-request nudge, and a pull-request build for a push nudge', () => {
    const push = buildRun({ name: PR_RUN, url: 'quay.io/org/operand-a:on-pr-abc123' });
    assert.equal(
      reasonOf(verifyNudgeBuild(nudgeFor(PR_RUN), push, OPERAND_A, 'pull-request')),
      'not-a-pull-request-build',
    );
    const incoming = buildRun({ name: PR_RUN, eventType: 'incoming', url: 'quay.io/org/operand-a:on-pr-abc123' });
    assert.equal(
      reasonOf(verifyNudgeBuild(nudgeFor(PR_RUN), incoming, OPERAND_A, 'pull-request')),
      'not-a-pull-request-build',
    );
    assert.equal(reasonOf(verifyNudgeBuild(nudgeFor(PR_RUN), pullRequestBuild(), OPERAND_A)), 'not-a-push-build');
    assert.equal(
      reasonOf(verifyNudgeBuild(nudgeFor(PR_RUN), pullRequestBuild(), OPERAND_A, 'push')),
      'not-a-push-build',
    );
  });

  it('refuses a build with no event type at all for either event', () => {
    const build = pullRequestBuild();
    delete build.metadata.labels['pipelinesascode.tekton.dev/event-type'];
    delete build.metadata.annotations['pipelinesascode.tekton.dev/event-type'];
    delete build.metadata.labels['pipelinesascode.tekton.dev/pull-request'];
    delete build.metadata.annotations['pipelinesascode.tekton.dev/pull-request'];
    assert.equal(
      reasonOf(verifyNudgeBuild(nudgeFor(PR_RUN), build, OPERAND_A, 'pull-request')),
      'not-a-pull-request-build',
    );
    assert.equal(reasonOf(verifyNudgeBuild(nudgeFor(PR_RUN), build, OPERAND_A, 'push')), 'not-a-push-build');
  });

  it('still applies the other D3 checks', () => {
    const verify = (build: unknown, nudge = nudgeFor(PR_RUN)) =>
      reasonOf(verifyNudgeBuild(nudge, build, OPERAND_A, 'pull-request'));
    const foreign = 'quay.io/org/operand-b:on-pr-abc123';
    assert.equal(verify(pullRequestBuild({ url: foreign }), nudgeFor(PR_RUN, foreign)), 'foreign-image');
    assert.equal(verify(pullRequestBuild({ url: foreign })), 'image-mismatch');
    assert.equal(verify(pullRequestBuild({ succeeded: 'False' })), 'not-succeeded');
    assert.equal(verify(pullRequestBuild({ succeeded: 'Unknown' })), 'not-succeeded');
    assert.equal(verify(pullRequestBuild(), nudgeFor('operand-a-on-pull-request-other')), 'name-mismatch');
    assert.equal(verify(undefined), 'build-not-found');
    assert.equal(
      reasonOf(verifyNudgeBuild(nudgeFor(PR_RUN), pullRequestBuild(), undefined, 'pull-request')),
      'component-not-found',
    );
    const otherComponent = pullRequestBuild();
    otherComponent.metadata.labels['appstudio.openshift.io/component'] = 'operand-b';
    assert.equal(verify(otherComponent), 'component-mismatch');
    const queue = pullRequestBuild();
    queue.metadata.annotations['build.appstudio.redhat.com/target_branch'] = 'gh-readonly-queue/main/pr-12';
    assert.equal(verify(queue), 'merge-queue-build');
  });
});
