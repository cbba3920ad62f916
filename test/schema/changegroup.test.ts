// The ChangeGroup CRD: names and columns of D1/ADR 59, a structural schema whose patterns accept
// the ADR's example and refuse malformed values, and CEL rules run by a real CEL evaluator.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse as parseCel, plan, celEnv } from '@bufbuild/cel';
import { Ajv } from 'ajv';
import addFormats from 'ajv-formats';
import { CHANGE_GROUP_PHASES, MAX_NUDGING_COMPONENTS } from '../../src/domain/changegroup/model.ts';
import { CHANGE_GROUP_CRD, CRDS, crdFileName, toCustomResourceDefinition } from '../../src/schema/crd.ts';
import { CHANGE_GROUP_CEL, ChangeGroup } from '../../src/schema/changegroup.ts';
import { evaluateCelRules, findListMapDuplicates, openApiSchemaOf } from './cel-evaluator.ts';

type Json = Record<string, unknown>;

const crd = toCustomResourceDefinition(CHANGE_GROUP_CRD);
const schema = openApiSchemaOf(crd);

const ajv = new Ajv({ allErrors: true, strict: true, logger: false });
addFormats.default(ajv);
ajv.addVocabulary(['x-kubernetes-validations', 'x-kubernetes-list-type', 'x-kubernetes-list-map-keys']);
const validate = ajv.compile(ChangeGroup);

const DIGEST_A = `sha256:${'a'.repeat(64)}`;
const DIGEST_B = `sha256:${'b'.repeat(64)}`;

/** ADR 59's example, with its empty-string timestamps left out (they are unset, not empty). */
function adrExample(): Json {
  return {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'ChangeGroup',
    metadata: { name: 'bundle-x-update-123', namespace: 'my-tenant' },
    spec: {
      nudgedComponent: 'bundle-x',
      nudgingComponents: [{ name: 'operator-image' }, { name: 'operand-a' }, { name: 'operand-b' }],
      timeout: '24h',
    },
    status: {
      phase: 'Waiting',
      summary: '2/3',
      pullRequestURL: 'https://github.com/org/bundle-repo/pull/123',
      startTime: '2025-01-15T10:28:00Z',
      components: [
        {
          name: 'operator-image',
          originalBuild: DIGEST_A,
          newBuild: DIGEST_B,
          newBuildPullSpec: `quay.io/org/operator-image@${DIGEST_B}`,
          state: 'Ready',
          lastUpdateTime: '2025-01-15T10:30:00Z',
          buildPipelineRun: 'operator-image-on-push-abc123',
        },
        { name: 'operand-b', originalBuild: DIGEST_A, state: 'Waiting' },
      ],
      pullRequest: {
        number: 123,
        url: 'https://github.com/org/bundle-repo/pull/123',
        headBranch: 'konflux/change-groups/bundle-x-update-123',
        baseBranch: 'main',
        baseCommit: 'c'.repeat(40),
        lastPushedCommit: 'd'.repeat(40),
        draft: true,
        final: false,
        pushedBuilds: [{ name: 'operator-image', digest: DIGEST_B }],
      },
      conditions: [
        {
          type: 'AllComponentsReady',
          status: 'False',
          reason: 'WaitingForComponents',
          message: 'Waiting for 1 component: operand-b',
          lastTransitionTime: '2025-01-15T10:32:00Z',
        },
      ],
    },
  };
}

function withSpec(spec: Json): Json {
  return { ...adrExample(), spec: { ...(adrExample().spec as Json), ...spec } };
}

/** CEL rules that fail on create. Transition rules (oldSelf) are skipped, as the API server does. */
function createViolations(object: unknown): string[] {
  return evaluateCelRules(schema, object)
    .filter((v) => !v.rule.includes('oldSelf'))
    .map((v) => `${v.path}: ${v.message}`);
}

describe('ChangeGroup CRD', () => {
  it('is named, scoped and versioned as D1 says, with a status subresource', () => {
    assert.equal((crd.metadata as Json).name, 'changegroups.appstudio.redhat.com');
    const spec = crd.spec as Json;
    assert.equal(spec.group, 'appstudio.redhat.com');
    assert.equal(spec.scope, 'Namespaced');
    assert.deepEqual((spec.names as Json).shortNames, ['chg']);
    assert.equal((spec.names as Json).kind, 'ChangeGroup');
    const [version] = spec.versions as Json[];
    assert.equal(version?.name, 'v1alpha1');
    assert.deepEqual(version.subresources, { status: {} });
    assert.ok(CRDS.includes(CHANGE_GROUP_CRD));
    assert.equal(crdFileName(CHANGE_GROUP_CRD), 'appstudio.redhat.com_changegroups.yaml');
  });

  it('shows phase, nudged component, ready/total, PR and age', () => {
    const [version] = (crd.spec as Json).versions as Json[];
    const columns = (version?.additionalPrinterColumns as Json[]).filter((c) => c.priority === undefined);
    assert.deepEqual(
      columns.map((c) => [c.name, c.jsonPath]),
      [
        ['Phase', '.status.phase'],
        ['Nudged', '.spec.nudgedComponent'],
        ['Ready', '.status.summary'],
        ['Pull Request', '.status.pullRequestURL'],
        ['Age', '.metadata.creationTimestamp'],
      ],
    );
  });

  it('lists the six ADR phases and defaults skipCi to commitMessage (D4)', () => {
    const status = (schema.properties as Json).status as Json;
    const phase = (status.properties as Json).phase as Json;
    assert.deepEqual(phase.enum, [...CHANGE_GROUP_PHASES]);
    const spec = (schema.properties as Json).spec as Json;
    const skipCi = (spec.properties as Json).skipCi as Json;
    assert.equal(skipCi.default, 'commitMessage');
    assert.deepEqual(spec.required, ['nudgedComponent']);
    const nudging = (spec.properties as Json).nudgingComponents as Json;
    assert.equal(nudging.maxItems, MAX_NUDGING_COMPONENTS);
    assert.deepEqual(nudging['x-kubernetes-list-map-keys'], ['name']);
  });
});

describe('ChangeGroup schema (ajv)', () => {
  it("accepts ADR 59's example", () => {
    assert.ok(validate(adrExample()), JSON.stringify(validate.errors));
  });

  const bad: [string, Json][] = [
    ['a nudged component that is no DNS-1123 label', withSpec({ nudgedComponent: 'Bundle_X' })],
    ['a timeout with a unit Go does not have', withSpec({ timeout: '1d' })],
    ['a timeout with a fraction', withSpec({ timeout: '1.5h' })],
    ['an unknown skipCi mode', withSpec({ skipCi: 'title' })],
    ['an unknown spec field', withSpec({ nudgingComponent: 'x' })],
  ];
  for (const [what, object] of bad) {
    it(`refuses ${what}`, () => {
      assert.equal(validate(object), false);
    });
  }

  it('refuses a digest that is not sha256:<64 hex> and an unknown phase', () => {
    const example = adrExample();
    const status = example.status as { components: Json[]; phase: string };
    status.components[0] = { ...status.components[0], newBuild: 'sha256:abc' };
    assert.equal(validate(example), false);
    const other = adrExample();
    (other.status as Json).phase = 'Done';
    assert.equal(validate(other), false);
  });

  it('accepts 24h, 90m and 1h30m', () => {
    for (const timeout of ['24h', '90m', '1h30m', '45s']) assert.ok(validate(withSpec({ timeout })), timeout);
  });
});

describe('ChangeGroup CEL rules', () => {
  it('passes the ADR example', () => {
    assert.deepEqual(createViolations(adrExample()), []);
    assert.deepEqual(findListMapDuplicates(schema, adrExample()), []);
  });

  it('refuses a nudged component that also nudges itself', () => {
    const object = withSpec({ nudgingComponents: [{ name: 'operand-a' }, { name: 'bundle-x' }] });
    assert.deepEqual(createViolations(object), [`spec: ${CHANGE_GROUP_CEL['nudged-not-nudging'].message}`]);
  });

  it('refuses a zero timeout', () => {
    assert.deepEqual(createViolations(withSpec({ timeout: '0h0m' })), [
      `spec.timeout: ${CHANGE_GROUP_CEL['timeout-positive'].message}`,
    ]);
  });

  it('refuses duplicate nudging components through the list-map key', () => {
    const object = withSpec({ nudgingComponents: [{ name: 'operand-a' }, { name: 'operand-a' }] });
    assert.equal(findListMapDuplicates(schema, object).length, 1);
  });

  it('keeps nudgedComponent immutable on update', () => {
    const run = plan(celEnv(), parseCel(CHANGE_GROUP_CEL['nudged-immutable'].rule));
    assert.equal(run({ self: 'bundle-x', oldSelf: 'bundle-x' }), true);
    assert.equal(run({ self: 'bundle-y', oldSelf: 'bundle-x' }), false);
  });
});
