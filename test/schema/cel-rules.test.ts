// The CEL rules of the generated NudgeConfig CRD, run by a real CEL evaluator against valid and
// invalid objects, plus how they differ from integration-service's shipped v1beta2 CRD.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { crdFileName, NUDGE_CONFIG_CRD } from '../../src/schema/crd.ts';
import { NUDGE_CONFIG_CEL } from '../../src/schema/nudgeconfig.ts';
import {
  collectCelRules,
  evaluateCelRules,
  findListMapDuplicates,
  openApiSchemaOf,
  type CelViolation,
} from './cel-evaluator.ts';

const generated = openApiSchemaOf(
  parse(await readFile(new URL(`../../deploy/crds/${crdFileName(NUDGE_CONFIG_CRD)}`, import.meta.url), 'utf8')),
);
const generatedV1beta2 = openApiSchemaOf(
  parse(await readFile(new URL(`../../deploy/crds/${crdFileName(NUDGE_CONFIG_CRD)}`, import.meta.url), 'utf8')),
  'v1beta2',
);
const upstream = openApiSchemaOf(
  parse(await readFile(new URL('fixtures/upstream-v1beta2-nudgeconfig-rules.yaml', import.meta.url), 'utf8')),
);

type Entry = Record<string, unknown>;

function nudgeConfig(nudges: Entry[] | undefined, name = 'nudge-config'): Record<string, unknown> {
  return {
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name, namespace: 'my-tenant' },
    ...(nudges === undefined ? {} : { spec: { nudges } }),
  };
}

/** (path, rule id) pairs, the rule id looked up from the rule text. */
function violated(violations: readonly CelViolation[]): [string, string][] {
  const ids = new Map<string, string>(Object.entries(NUDGE_CONFIG_CEL).map(([id, { rule }]) => [rule, id]));
  return violations.map((v) => [v.path, ids.get(v.rule) ?? `unknown rule: ${v.rule}`]);
}

/** ADR 67's example, verbatim in content (its status shows both Valid outcomes at once). */
const ADR_67_EXAMPLE = parse(`
apiVersion: konflux-ci.dev/v1alpha1
kind: NudgeConfig
metadata:
  name: nudge-config
  namespace: my-tenant
spec:
  nudges:
    - from: component-a
      to: component-b
      mode: validated
      gatingGroup: frontend-group
    - from: component-a
      to: component-c
    - from: component-d
      to: component-e
      mode: validated
      gatingGroup: backend-group
status:
  conditions:
    - type: Valid
      status: "True"
      reason: AllComponentsExist
      message: "All referenced components exist in namespace"
    - type: Valid
      status: "False"
      reason: StaleReferences
      message: "Components [component-x] referenced in nudges no longer exist"
  lastValidationTime: "2026-05-11T10:00:00Z"
`) as unknown;

/** integration-service's sample (config/samples), moved to nudger's group and version. */
const UPSTREAM_SAMPLE_CONVERTED = parse(`
apiVersion: konflux-ci.dev/v1alpha1
kind: NudgeConfig
metadata:
  labels:
    app.kubernetes.io/name: nudgeconfig
    app.kubernetes.io/instance: nudge-config
    app.kubernetes.io/part-of: integration-service
  name: nudge-config
  namespace: default
spec:
  nudges:
    - { from: component-a, to: component-b, mode: validated, gatingGroup: frontend-group }
    - { from: component-a, to: component-c }
    - { from: component-d, to: component-e, mode: validated, gatingGroup: backend-group }
`) as unknown;

describe('NudgeConfig CEL rules (generated CRD, real CEL evaluator)', () => {
  it('declares exactly the rules of NUDGE_CONFIG_CEL, at root, spec and each entry', () => {
    const found = collectCelRules(generated).map(({ path, rule }) => [path, rule.rule]);
    assert.deepEqual(found, [
      ['<root>', NUDGE_CONFIG_CEL['singleton-name'].rule],
      ['spec', NUDGE_CONFIG_CEL['self-nudge'].rule],
      ['spec.nudges[*]', NUDGE_CONFIG_CEL['missing-gating-group'].rule],
    ]);
  });

  it('accepts the ADR 67 example and the converted upstream sample', () => {
    assert.deepEqual(evaluateCelRules(generated, ADR_67_EXAMPLE), []);
    assert.deepEqual(evaluateCelRules(generated, UPSTREAM_SAMPLE_CONVERTED), []);
  });

  it('notes that the ADR example status, taken literally, repeats the Valid condition key', () => {
    // The ADR lists both outcomes for illustration; the API server would refuse the duplicate key.
    assert.deepEqual(findListMapDuplicates(generated, ADR_67_EXAMPLE), [
      { path: 'status.conditions[1]', key: { type: 'Valid' } },
    ]);
    assert.deepEqual(findListMapDuplicates(generated, UPSTREAM_SAMPLE_CONVERTED), []);
  });

  it('accepts objects without spec or without nudges (has() on absent fields)', () => {
    assert.deepEqual(evaluateCelRules(generated, nudgeConfig(undefined)), []);
    assert.deepEqual(evaluateCelRules(generated, { ...nudgeConfig(undefined), spec: {} }), []);
    assert.deepEqual(evaluateCelRules(generated, nudgeConfig([])), []);
  });

  it('rejects any name but nudge-config, at the root', () => {
    assert.deepEqual(violated(evaluateCelRules(generated, nudgeConfig([{ from: 'a', to: 'b' }], 'my-nudges'))), [
      ['<root>', 'singleton-name'],
    ]);
    assert.deepEqual(violated(evaluateCelRules(generated, nudgeConfig(undefined, 'nudge-config-2'))), [
      ['<root>', 'singleton-name'],
    ]);
  });

  it('rejects a self-nudge, once, on spec', () => {
    const object = nudgeConfig([
      { from: 'a', to: 'b' },
      { from: 'c', to: 'c' },
      { from: 'd', to: 'd' },
    ]);
    assert.deepEqual(violated(evaluateCelRules(generated, object)), [['spec', 'self-nudge']]);
  });

  it('rejects validated without a gatingGroup, or with an empty one, per entry', () => {
    const object = nudgeConfig([
      { from: 'a', to: 'b', mode: 'validated' },
      { from: 'a', to: 'c', mode: 'validated', gatingGroup: 'g' },
      { from: 'a', to: 'd', mode: 'validated', gatingGroup: '' },
    ]);
    assert.deepEqual(violated(evaluateCelRules(generated, object)), [
      ['spec.nudges[0]', 'missing-gating-group'],
      ['spec.nudges[2]', 'missing-gating-group'],
    ]);
  });

  it('accepts a gatingGroup on an immediate edge, and an absent mode (defaulted to immediate)', () => {
    const object = nudgeConfig([
      { from: 'a', to: 'b', mode: 'immediate', gatingGroup: 'g' },
      { from: 'a', to: 'c', gatingGroup: '' },
      { from: 'a', to: 'd' },
    ]);
    assert.deepEqual(evaluateCelRules(generated, object), []);
    assert.deepEqual(evaluateCelRules(generated, object, { defaults: false }), []);
  });

  it('reports every broken rule of one object together', () => {
    const object = nudgeConfig([{ from: 'x', to: 'x', mode: 'validated' }], 'nc');
    assert.deepEqual(violated(evaluateCelRules(generated, object)), [
      ['<root>', 'singleton-name'],
      ['spec', 'self-nudge'],
      ['spec.nudges[0]', 'missing-gating-group'],
    ]);
  });

  it('leaves (from, to) uniqueness to the list-map key, not CEL', () => {
    const object = nudgeConfig([
      { from: 'a', to: 'b' },
      { from: 'a', to: 'c' },
      { from: 'a', to: 'b', mode: 'validated', gatingGroup: 'g' },
    ]);
    assert.deepEqual(evaluateCelRules(generated, object), []);
    assert.deepEqual(findListMapDuplicates(generated, object), [
      { path: 'spec.nudges[2]', key: { from: 'a', to: 'b' } },
    ]);
  });

  it('reports a rule that fails to evaluate (e.g. a misspelt field) as a violation with the error', () => {
    const schema = {
      type: 'object',
      'x-kubernetes-validations': [{ rule: 'self.sepc.nudges.size() > 0' }],
      properties: { spec: { type: 'object' } },
    };
    const [violation, ...rest] = evaluateCelRules(schema, { spec: {} });
    assert.deepEqual(rest, []);
    assert.equal(violation?.path, '<root>');
    assert.match(violation.evaluationError ?? '', /sepc/);
  });

  it('exposes only metadata.name and generateName to root rules, as the API server does', () => {
    const schema = {
      type: 'object',
      'x-kubernetes-validations': [{ rule: '!has(self.metadata.namespace)' }],
      properties: { metadata: { type: 'object' } },
    };
    assert.deepEqual(evaluateCelRules(schema, { metadata: { name: 'n', namespace: 'ns' } }), []);
  });
});

describe('upstream integration-service v1beta2 CRD, by comparison', () => {
  it('caps spec.nudges at 256 where ours allows 5000', () => {
    const nudges = (s: Record<string, unknown>) =>
      (
        (s.properties as Record<string, Record<string, unknown>>).spec?.properties as Record<
          string,
          Record<string, unknown>
        >
      ).nudges;
    assert.equal(nudges(upstream)?.maxItems, 256);
    assert.equal(nudges(generated)?.maxItems, 5000);
    assert.equal(nudges(upstream)?.['x-kubernetes-list-type'], undefined);
    assert.equal(nudges(generated)?.['x-kubernetes-list-type'], 'map');
  });

  it('enforces uniqueness with an O(n^2) exists_one rule and has no gatingGroup rule', () => {
    const rules = collectCelRules(upstream).map(({ path, rule }) => [path, rule.rule]);
    assert.deepEqual(rules, [
      ['<root>', NUDGE_CONFIG_CEL['singleton-name'].rule],
      ['spec', NUDGE_CONFIG_CEL['self-nudge'].rule],
      ['spec', '!has(self.nudges) || self.nudges.all(i, self.nudges.exists_one(j, i.from == j.from && i.to == j.to))'],
    ]);
    assert.ok(!collectCelRules(generated).some(({ rule }) => rule.rule.includes('exists_one')));
  });

  it('rejects the same duplicates with exists_one that ours rejects with the list-map key', () => {
    const duplicate = nudgeConfig([
      { from: 'a', to: 'b' },
      { from: 'a', to: 'b' },
    ]);
    assert.deepEqual(
      evaluateCelRules(upstream, duplicate).map((v) => v.path),
      ['spec'],
    );
    assert.equal(findListMapDuplicates(generated, duplicate).length, 1);
    // validated without gatingGroup passes upstream: Phase 1 reserves the field without a rule.
    assert.deepEqual(evaluateCelRules(upstream, nudgeConfig([{ from: 'a', to: 'b', mode: 'validated' }])), []);
  });
});

describe('konflux-ci.dev/v1beta2 CEL rules (generated CRD, real CEL evaluator)', () => {
  /** A tenant's NudgeConfig as integration-service users write it: validated entries before Phase 2. */
  const tenant = (nudges: Entry[], name = 'nudge-config'): Record<string, unknown> => ({
    ...nudgeConfig(nudges, name),
    apiVersion: 'konflux-ci.dev/v1beta2',
  });

  it('declares the singleton and self-nudge rules, and nothing per entry', () => {
    const found = collectCelRules(generatedV1beta2).map(({ path, rule }) => [path, rule.rule]);
    assert.deepEqual(found, [
      ['<root>', NUDGE_CONFIG_CEL['singleton-name'].rule],
      ['spec', NUDGE_CONFIG_CEL['self-nudge'].rule],
    ]);
  });

  it('accepts validated entries without a gatingGroup, which the v1alpha1 schema rejects', () => {
    const object = tenant([
      { from: 'payments-api', to: 'payments-bundle', mode: 'validated' },
      { from: 'payments-ui', to: 'payments-bundle', mode: 'validated', gatingGroup: '' },
      { from: 'payments-db', to: 'payments-bundle' },
    ]);
    assert.deepEqual(evaluateCelRules(generatedV1beta2, object), []);
    assert.deepEqual(evaluateCelRules(generatedV1beta2, object, { defaults: false }), []);
    assert.deepEqual(violated(evaluateCelRules(generated, { ...object, apiVersion: 'konflux-ci.dev/v1alpha1' })), [
      ['spec.nudges[0]', 'missing-gating-group'],
      ['spec.nudges[1]', 'missing-gating-group'],
    ]);
  });

  it('rejects a self-nudge and any name but nudge-config, as v1alpha1 does', () => {
    const object = tenant([{ from: 'payments-api', to: 'payments-api' }], 'payments-nudges');
    assert.deepEqual(violated(evaluateCelRules(generatedV1beta2, object)), [
      ['<root>', 'singleton-name'],
      ['spec', 'self-nudge'],
    ]);
  });

  it('refuses a repeated (from, to) pair by the list-map key, as upstream does with exists_one', () => {
    const object = tenant([
      { from: 'payments-api', to: 'payments-bundle' },
      { from: 'payments-api', to: 'payments-bundle', mode: 'validated' },
    ]);
    assert.deepEqual(findListMapDuplicates(generatedV1beta2, object), [
      { path: 'spec.nudges[1]', key: { from: 'payments-api', to: 'payments-bundle' } },
    ]);
    assert.deepEqual(
      evaluateCelRules(upstream, object).map((v) => v.path),
      ['spec'],
    );
  });
});
