import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildEventType,
  readBuildPipelineRun,
  readNudgePipelineRun,
  readPipelineRun,
  NUDGE_TYPE_LABEL,
  NUDGED_COMPONENTS_ANNOTATION,
} from '../../../src/domain/nudge-pipelinerun.ts';
import { buildRun, DIGEST, nudgeRun } from './fixtures.ts';

describe('readNudgePipelineRun', () => {
  it('reads source, space-separated targets, build PipelineRun and image', () => {
    const reading = readNudgePipelineRun(nudgeRun({ targets: ' bundle-x  bundle-y bundle-x ' }));
    assert.ok(reading.ok);
    assert.equal(reading.nudge.namespace, 'my-tenant');
    assert.equal(reading.nudge.nudgingComponent, 'operand-a');
    assert.deepEqual(reading.nudge.nudgedComponents, ['bundle-x', 'bundle-y']);
    assert.equal(reading.nudge.nudgingPipeline, 'operand-a-on-push-x7k2p');
    assert.equal(reading.nudge.nudgingImage, 'quay.io/org/operand-a:abc123');
  });

  it('uses the redhat.com nudge label, not the openshift.io one', () => {
    assert.equal(NUDGE_TYPE_LABEL, 'build.appstudio.redhat.com/type');
    const run = nudgeRun();
    (run.metadata as { labels: Record<string, string> }).labels = { 'build.appstudio.openshift.io/type': 'nudge' };
    const reading = readNudgePipelineRun(run);
    assert.ok(!reading.ok);
    assert.equal(reading.reason, 'not-a-nudge');
  });

  it('reads v1beta1 the same way', () => {
    assert.ok(readNudgePipelineRun(nudgeRun({ apiVersion: 'tekton.dev/v1beta1' })).ok);
  });

  const rejections: [string, unknown, string][] = [
    ['a ConfigMap', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, 'not-a-pipelinerun'],
    ['a PipelineRun of another group', { ...nudgeRun(), apiVersion: 'example.com/v1' }, 'not-a-pipelinerun'],
    ['no annotations', nudgeRun({ omitAnnotations: true }), 'missing-nudging-component'],
    ['blank targets', nudgeRun({ targets: '   ' }), 'missing-nudged-components'],
    ['a target that is no component name', nudgeRun({ targets: 'bundle-x Bad|Name' }), 'invalid-component-name'],
    ['null', null, 'not-a-pipelinerun'],
  ];
  for (const [what, object, reason] of rejections) {
    it(`rejects ${what} as ${reason}`, () => {
      const reading = readNudgePipelineRun(object);
      assert.ok(!reading.ok);
      assert.equal(reading.reason, reason);
      assert.ok(!reading.message.includes('\n'));
    });
  }

  it('names the missing annotation', () => {
    const reading = readNudgePipelineRun(nudgeRun({ targets: '' }));
    assert.ok(!reading.ok);
    assert.ok(reading.message.includes(NUDGED_COMPONENTS_ANNOTATION));
    assert.ok(reading.message.includes('my-tenant/renovate-pipeline-1736935680-ab12c'));
  });
});

describe('readBuildPipelineRun', () => {
  it('reads v1 status.results and v1beta1 status.pipelineResults', () => {
    for (const v1beta1 of [false, true]) {
      const build = readBuildPipelineRun(buildRun({ v1beta1, digest: DIGEST('2') }));
      assert.ok(build !== undefined);
      assert.equal(build.imageDigest, DIGEST('2'));
      assert.equal(build.imageUrl, 'quay.io/org/operand-a:abc123');
      assert.equal(build.component, 'operand-a');
      assert.equal(build.eventType, 'push');
      assert.equal(build.succeeded, 'True');
      assert.equal(build.targetBranch, 'main');
    }
  });

  it('reads the new-model component label when the old one is absent', () => {
    const run = buildRun();
    const labels = (run.metadata as { labels: Record<string, string> }).labels;
    delete labels['appstudio.openshift.io/component'];
    labels['build.konflux-ci.dev/component'] = 'operand-z';
    assert.equal(readBuildPipelineRun(run)?.component, 'operand-z');
  });

  it('ignores non-string results and reports a missing Succeeded condition as absent', () => {
    const run = buildRun();
    (run.status as Record<string, unknown>) = { results: [{ name: 'IMAGE_DIGEST', value: ['x'] }] };
    const build = readBuildPipelineRun(run);
    assert.equal(build?.imageDigest, undefined);
    assert.equal(build?.succeeded, 'absent');
  });

  it('tells push from pull request the way build-service and integration-service do', () => {
    const view = (labels: Record<string, string>, annotations: Record<string, string> = {}) => {
      const v = readPipelineRun({
        apiVersion: 'tekton.dev/v1',
        kind: 'PipelineRun',
        metadata: { name: 'x', labels, annotations },
      });
      assert.ok(v !== undefined);
      return buildEventType(v);
    };
    assert.equal(view({ 'pipelinesascode.tekton.dev/event-type': 'Push' }), 'push');
    assert.equal(view({}, { 'pipelinesascode.tekton.dev/event-type': 'incoming' }), 'push');
    assert.equal(view({ 'pipelinesascode.tekton.dev/event-type': 'pull_request' }), 'pull-request');
    assert.equal(view({ 'pipelinesascode.tekton.dev/pull-request': '12' }), 'pull-request');
    assert.equal(view({}), 'unknown');
  });
});
