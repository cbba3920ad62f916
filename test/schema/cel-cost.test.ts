// Why (from, to) uniqueness is a list-map key and not CEL: the figures in docs/crd-validation.md.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { NUDGE_CONFIG_CRD, toCustomResourceDefinition } from '../../src/schema/crd.ts';
import { NUDGE_CONFIG_CEL } from '../../src/schema/nudgeconfig.ts';
import {
  CelCostModelError,
  STATIC_ESTIMATED_COST_LIMIT,
  STATIC_ESTIMATED_CRD_COST_LIMIT,
  estimateCrdRuleCosts,
  estimateRuleCost,
} from './cel-cost.ts';
import { openApiSchemaOf } from './cel-evaluator.ts';

const ours = openApiSchemaOf(toCustomResourceDefinition(NUDGE_CONFIG_CRD));
const upstream = openApiSchemaOf(
  parse(await readFile(new URL('fixtures/upstream-v1beta2-nudgeconfig-rules.yaml', import.meta.url), 'utf8')),
);
const UNIQUENESS_RULE =
  '!has(self.nudges) || self.nudges.all(i, self.nudges.exists_one(j, i.from == j.from && i.to == j.to))';

/** Our spec schema with spec.nudges capped at `maxItems`. */
function specWithMaxItems(maxItems: number): Record<string, unknown> {
  const spec = structuredClone((ours.properties as Record<string, Record<string, unknown>>).spec) as {
    properties: { nudges: { maxItems: number } };
  };
  spec.properties.nudges.maxItems = maxItems;
  return spec;
}

describe('static CEL cost (model of the API server estimate)', () => {
  it('keeps every rule of the generated CRD far below the per-rule and per-CRD limits', () => {
    const costs = estimateCrdRuleCosts(ours).map(({ path, rule, cost, cardinality }) => [
      path,
      rule,
      cost,
      cardinality,
    ]);
    assert.deepEqual(costs, [
      ['<root>', NUDGE_CONFIG_CEL['singleton-name'].rule, 5, 1],
      ['spec', NUDGE_CONFIG_CEL['self-nudge'].rule, 70_006, 1],
      ['spec.nudges[*]', NUDGE_CONFIG_CEL['missing-gating-group'].rule, 12, 5000],
    ]);
    const total = estimateCrdRuleCosts(ours).reduce((sum, r) => sum + r.cost * r.cardinality, 0);
    assert.ok(total < STATIC_ESTIMATED_CRD_COST_LIMIT);
    assert.equal(total, 130_011);
    assert.ok(estimateCrdRuleCosts(ours).every((r) => r.cost < STATIC_ESTIMATED_COST_LIMIT));
  });

  it('prices the O(n^2) exists_one uniqueness rule at about 60x the limit with maxItems 5000', () => {
    const cost = estimateRuleCost(UNIQUENESS_RULE, specWithMaxItems(5000));
    assert.equal(cost, 600_035_006);
    assert.ok(cost > 60 * STATIC_ESTIMATED_COST_LIMIT);
  });

  it('explains why upstream could ship it: at maxItems 256 it fits', () => {
    const rule = estimateCrdRuleCosts(upstream).find((r) => r.rule === UNIQUENESS_RULE);
    assert.ok(rule !== undefined && rule.cost < STATIC_ESTIMATED_COST_LIMIT);
    assert.equal(rule.cost, 1_574_662);
  });

  it('would fit upstream’s exists_one rule at konflux-ci.dev/v1beta2’s 360 too (the list-map key is used anyway)', () => {
    assert.equal(estimateRuleCost(UNIQUENESS_RULE, specWithMaxItems(360)), 3_112_926);
  });

  it('finds 645 the largest maxItems at which the exists_one rule would be accepted', () => {
    assert.ok(estimateRuleCost(UNIQUENESS_RULE, specWithMaxItems(645)) <= STATIC_ESTIMATED_COST_LIMIT);
    assert.ok(estimateRuleCost(UNIQUENESS_RULE, specWithMaxItems(646)) > STATIC_ESTIMATED_COST_LIMIT);
  });

  it('keeps the v1beta2 version (360 entries, no per-entry rule) below the limits too', () => {
    const v1beta2 = openApiSchemaOf(toCustomResourceDefinition(NUDGE_CONFIG_CRD), 'v1beta2');
    const costs = estimateCrdRuleCosts(v1beta2).map(({ path, cost, cardinality }) => [path, cost, cardinality]);
    assert.deepEqual(costs, [
      ['<root>', 5, 1],
      ['spec', 5_046, 1],
    ]);
  });

  it('grows linearly for the per-item rule and the self-nudge rule', () => {
    assert.equal(estimateRuleCost(NUDGE_CONFIG_CEL['self-nudge'].rule, specWithMaxItems(10_000)), 140_006);
  });

  it('refuses expressions it does not model instead of guessing', () => {
    assert.throws(
      () => estimateRuleCost("self.nudges.all(n, n.from.matches('^a'))", specWithMaxItems(10)),
      CelCostModelError,
    );
    assert.throws(() => estimateRuleCost('self.missing.all(n, true)', specWithMaxItems(10)), CelCostModelError);
  });
});
