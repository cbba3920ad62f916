// The API server (CEL rules and the list-map key of the generated CRD) and nudger's own validator
// must agree: for any NudgeConfig, the rules one side reports are the rules the other reports.
// Otherwise `nudger validate` would pass manifests the cluster refuses, or refuse ones it accepts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { RULE_IDS, type RuleId } from '../../src/domain/model.ts';
import { validateManifestSet } from '../../src/domain/validate.ts';
import { parseManifestSet } from '../../src/manifest/parse.ts';
import { NUDGE_CONFIG_CRD, toCustomResourceDefinition } from '../../src/schema/crd.ts';
import { NUDGE_CONFIG_CEL } from '../../src/schema/nudgeconfig.ts';
import { evaluateCelRules, findListMapDuplicates, openApiSchemaOf } from './cel-evaluator.ts';

const crd = toCustomResourceDefinition(NUDGE_CONFIG_CRD);
const schema = openApiSchemaOf(crd, 'v1alpha1');
/** Upstream's version, served by the same CRD (D1): no missing-gating-group rule. */
const v1beta2Schema = openApiSchemaOf(crd, 'v1beta2');

/** CEL rule text -> the domain rule it mirrors. */
const RULE_OF_CEL = new Map<string, RuleId>(
  Object.entries(NUDGE_CONFIG_CEL).map(([id, { rule }]) => [rule, id as RuleId]),
);
/** The list-map key on spec.nudges stands in for the domain's duplicate-edge rule. */
const LIST_MAP_RULE: RuleId = 'duplicate-edge';
const COMPARED_RULES = new Set<RuleId>([...RULE_OF_CEL.values(), LIST_MAP_RULE]);

function apiServerRules(object: unknown, versionSchema = schema): RuleId[] {
  const rules = new Set<RuleId>();
  for (const violation of evaluateCelRules(versionSchema, object)) {
    const rule = RULE_OF_CEL.get(violation.rule);
    assert.ok(rule !== undefined, `rule without a domain id: ${violation.rule}`);
    assert.equal(violation.evaluationError, undefined, `rule did not evaluate: ${violation.rule}`);
    rules.add(rule);
  }
  if (findListMapDuplicates(versionSchema, object).length > 0) rules.add(LIST_MAP_RULE);
  return [...rules].sort();
}

function domainRules(object: unknown): RuleId[] {
  const set = parseManifestSet([{ path: 'nudge-config.yaml', text: stringify(object) }]);
  // Only errors: the API server refuses what nudger calls an error, and admits what it only warns
  // about (a v1beta2 validated entry without gatingGroup).
  const rules = validateManifestSet(set)
    .findings.filter((f) => f.severity === 'error')
    .map((f) => f.rule)
    .filter((rule) => COMPARED_RULES.has(rule));
  return [...new Set(rules)].sort();
}

// Few names and values, so that collisions (self-nudges, duplicate pairs) are frequent.
const componentName = fc.constantFrom('api', 'web', 'bundle');
const entry = fc.record(
  {
    from: componentName,
    to: componentName,
    mode: fc.constantFrom('immediate', 'validated'),
    gatingGroup: fc.constantFrom('', 'frontend-group'),
  },
  { requiredKeys: ['from', 'to'] },
);
const nudgeConfig = fc
  .record(
    {
      name: fc.constantFrom('nudge-config', 'nudge-config', 'nudges', 'nudge-config-2'),
      nudges: fc.option(fc.array(entry, { maxLength: 6 }), { nil: undefined }),
    },
    { requiredKeys: ['name'] },
  )
  .map(({ name, nudges }) => ({
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name, namespace: 'tenant' },
    ...(nudges === undefined ? {} : { spec: { nudges } }),
  }));

describe('CEL rules of the CRD agree with the domain validator', () => {
  it('maps every CEL rule to a domain rule id', () => {
    for (const id of Object.keys(NUDGE_CONFIG_CEL)) assert.ok((RULE_IDS as readonly string[]).includes(id), id);
    assert.deepEqual([...COMPARED_RULES].sort(), [
      'duplicate-edge',
      'missing-gating-group',
      'self-nudge',
      'singleton-name',
    ]);
  });

  it('reports the same rules for the same NudgeConfig (property)', () => {
    fc.assert(
      fc.property(nudgeConfig, (object) => {
        assert.deepEqual(domainRules(object), apiServerRules(object));
      }),
      { numRuns: 300 },
    );
  });

  it('reports the same rules for the same konflux-ci.dev/v1beta2 NudgeConfig (property)', () => {
    const v1beta2 = nudgeConfig.map((object) => ({ ...object, apiVersion: 'konflux-ci.dev/v1beta2' }));
    fc.assert(
      fc.property(v1beta2, (object) => {
        const rules = apiServerRules(object, v1beta2Schema);
        assert.ok(!rules.includes('missing-gating-group'));
        assert.deepEqual(domainRules(object), rules);
      }),
      { numRuns: 300 },
    );
  });

  it('sees each compared rule at least once in hand-made cases', () => {
    const object = {
      apiVersion: 'konflux-ci.dev/v1alpha1',
      kind: 'NudgeConfig',
      metadata: { name: 'nudges', namespace: 'tenant' },
      spec: {
        nudges: [
          { from: 'api', to: 'api' },
          { from: 'api', to: 'web', mode: 'validated' },
          { from: 'web', to: 'bundle' },
          { from: 'web', to: 'bundle' },
        ],
      },
    };
    const expected = ['duplicate-edge', 'missing-gating-group', 'self-nudge', 'singleton-name'];
    assert.deepEqual(apiServerRules(object), expected);
    assert.deepEqual(domainRules(object), expected);
  });
});
