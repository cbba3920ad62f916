// The decoders of cluster objects (src/domain/cluster-objects.ts): every object the API server
// could serve decodes, whatever fields nudger does not read it carries, and a field nudger reads
// with the wrong type is refused with its path, never its value.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import {
  decodeChangeGroup,
  decodeComponent,
  decodeNudgeConfig,
  decodePipelineRun,
  decodeReleasePlanAdmission,
  type DecodeResult,
} from '../../src/domain/cluster-objects.ts';
import { buildRun, nudgeRun } from './changegroup/fixtures.ts';

const EXAMPLE = join(import.meta.dirname, '../../examples/olm-operator');

function problemsOf(result: DecodeResult<unknown>): string[] {
  return result.ok ? [] : result.problems.map((problem) => `${problem.path}: ${problem.message}`);
}

/** What the API server adds to every object it serves, none of which nudger reads. */
const served = {
  uid: '5f0c6c8e-1d3f-4c1e-9a53-0e6c2f1b7a11',
  resourceVersion: '48213',
  generation: 3,
  creationTimestamp: '2025-01-15T10:20:00Z',
  managedFields: [{ manager: 'kubectl', operation: 'Update', time: '2025-01-15T10:20:00Z', fieldsV1: {} }],
  ownerReferences: [{ apiVersion: 'v1', kind: 'Thing', name: 'x', uid: 'y' }],
};

describe('decodeComponent', () => {
  it('decodes every Component of the example tenant, and one as the API server serves it', () => {
    const files = readdirSync(join(EXAMPLE, 'components'));
    assert.ok(files.length > 30);
    for (const file of files) {
      const component: unknown = parse(readFileSync(join(EXAMPLE, 'components', file), 'utf8'));
      assert.deepEqual(problemsOf(decodeComponent(component)), [], file);
    }
    const live = {
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'Component',
      metadata: { name: 'operand-a', namespace: 'tenant', finalizers: ['test.appstudio.openshift.io/x'], ...served },
      spec: {
        application: 'app',
        componentName: 'operand-a',
        containerImage: 'quay.io/org/operand-a',
        'build-nudges-ref': ['bundle'],
        source: { git: { url: 'https://github.com/org/a', revision: 'main', context: './' } },
        resources: { requests: { cpu: '1' } },
      },
      status: {
        conditions: [{ type: 'Created', status: 'True', reason: 'OK', message: '' }],
        lastPromotedImage: `quay.io/org/operand-a@sha256:${'a'.repeat(64)}`,
        lastBuiltCommit: 'abc',
      },
    };
    assert.deepEqual(problemsOf(decodeComponent(live)), []);
  });

  it('decodes a LIST item without apiVersion or kind, and an admission object without a creation time yet', () => {
    assert.ok(decodeComponent({ metadata: { name: 'a', namespace: 't' }, spec: {} }).ok);
    assert.ok(decodeComponent({ metadata: { name: 'a', creationTimestamp: null } }).ok);
  });

  it('names the field of a wrong type, never its value', () => {
    const result = decodeComponent({
      metadata: { name: 'a', labels: { team: 7 } },
      spec: { 'build-nudges-ref': 'secret-looking-value', source: { git: { url: 42 } } },
    });
    assert.deepEqual(problemsOf(result), [
      'metadata.labels.team: must be a string',
      'spec.build-nudges-ref: must be a list',
      'spec.source.git.url: must be a string',
    ]);
    assert.ok(!JSON.stringify(result).includes('secret-looking-value'));
  });
});

describe('decodeNudgeConfig', () => {
  it('decodes the example NudgeConfig and one written through v1beta2, served through v1alpha1', () => {
    assert.deepEqual(
      problemsOf(decodeNudgeConfig(parse(readFileSync(join(EXAMPLE, 'nudge-config.yaml'), 'utf8')))),
      [],
    );
    const throughBeta = decodeNudgeConfig({
      apiVersion: 'konflux-ci.dev/v1alpha1',
      kind: 'NudgeConfig',
      metadata: { name: 'nudge-config', namespace: 'payments', ...served },
      // Validated without gatingGroup: only v1beta2's rules admit it.
      spec: { nudges: [{ from: 'payments-api', to: 'payments-bundle', mode: 'validated' }] },
      status: {
        conditions: [
          {
            type: 'Valid',
            status: 'True',
            reason: 'AllComponentsExist',
            message: 'ok',
            lastTransitionTime: '2025-01-15T10:20:00Z',
          },
        ],
        lastValidationTime: '2025-01-15T10:20:00Z',
        observedGeneration: 3,
      },
    });
    assert.deepEqual(problemsOf(throughBeta), []);
  });

  it('refuses a spec no version admits, naming the field', () => {
    assert.deepEqual(problemsOf(decodeNudgeConfig({ metadata: { name: 'n' }, spec: { nudges: 'not a list' } })), [
      'spec.nudges: must be a list',
    ]);
    assert.deepEqual(
      problemsOf(
        decodeNudgeConfig({ metadata: { name: 'n' }, spec: { nudges: [{ from: 3, to: 'b' }, { from: 'a' }] } }),
      ),
      ['spec.nudges[0].from: must be a string', 'spec.nudges[1].to: required field is missing'],
    );
    assert.deepEqual(problemsOf(decodeNudgeConfig({ spec: { nudges: [{ from: 'a', to: 'b', mode: 'later' }] } })), [
      'spec.nudges[0].mode: must be one of immediate, validated',
    ]);
  });
});

describe('decodeChangeGroup', () => {
  const changeGroup = {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'ChangeGroup',
    metadata: { name: 'bundle-update', namespace: 'tenant', ...served },
    spec: { nudgedComponent: 'bundle', nudgingComponents: [{ name: 'operand-a' }], timeout: '24h' },
    status: {
      phase: 'Waiting',
      summary: '0/1',
      startTime: '2025-01-15T10:20:00Z',
      components: [{ name: 'operand-a', state: 'Waiting', originalBuild: `sha256:${'0'.repeat(64)}` }],
    },
  };

  it('decodes a ChangeGroup with the status the controller writes', () => {
    assert.deepEqual(problemsOf(decodeChangeGroup(changeGroup)), []);
  });

  it('checks the status too: the controller reads it back', () => {
    const bad = { ...changeGroup, status: { ...changeGroup.status, components: [{ name: 'operand-a', state: 1 }] } };
    assert.deepEqual(problemsOf(decodeChangeGroup(bad)), [
      'status.components[0].state: must be a string',
      'status.components[0].state: must be one of Waiting, Ready, NotReferenced',
    ]);
  });
});

describe('decodePipelineRun', () => {
  it('decodes nudge and build runs in v1 and v1beta1, whatever their result values hold', () => {
    assert.deepEqual(problemsOf(decodePipelineRun(nudgeRun())), []);
    assert.deepEqual(problemsOf(decodePipelineRun(buildRun({ v1beta1: true }))), []);
    const run = buildRun();
    run.status = {
      conditions: [{ type: 'Succeeded', status: 'True', reason: 'Completed', lastTransitionTime: 'x' }],
      results: [
        { name: 'IMAGE_DIGEST', value: `sha256:${'1'.repeat(64)}` },
        { name: 'ARRAY', value: ['a', 'b'] },
        { name: 'OBJECT', value: { url: 'x' } },
      ],
      childReferences: [{ name: 'task' }],
      startTime: '2025-01-15T10:20:00Z',
    };
    assert.deepEqual(problemsOf(decodePipelineRun(run)), []);
  });

  it('decodes an admission request object: generateName only, no creation time yet', () => {
    const run = nudgeRun();
    run.metadata = { generateName: 'renovate-', creationTimestamp: null, labels: {} };
    assert.deepEqual(problemsOf(decodePipelineRun(run)), []);
  });

  it('refuses other kinds, and names a wrong-typed field it reads', () => {
    assert.deepEqual(problemsOf(decodePipelineRun({ apiVersion: 'v1', kind: 'ConfigMap' })), [
      'apiVersion: must match pattern "^tekton\\.dev/"',
      'kind: must be "PipelineRun"',
    ]);
    assert.deepEqual(problemsOf(decodePipelineRun({ ...nudgeRun(), spec: { status: true } })), [
      'spec.status: must be a string',
    ]);
    assert.equal(decodePipelineRun(null).ok, false);
  });
});

describe('decodeReleasePlanAdmission', () => {
  it('decodes what release-service stores, and refuses a non-string origin', () => {
    const rpa = {
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'ReleasePlanAdmission',
      metadata: { name: 'prod', namespace: 'rhtap-releng-tenant', ...served },
      spec: {
        applications: ['app'],
        origin: 'tenant',
        policy: 'registry-standard',
        pipeline: { pipelineRef: { resolver: 'git', params: [] } },
        data: { mapping: { components: [{ name: 'a', repositories: [{ url: 'quay.io/redhat-prod/a----b' }] }] } },
      },
    };
    assert.deepEqual(problemsOf(decodeReleasePlanAdmission(rpa)), []);
    assert.deepEqual(problemsOf(decodeReleasePlanAdmission({ ...rpa, spec: { origin: 7 } })), [
      'spec.origin: must be a string',
    ]);
  });
});
