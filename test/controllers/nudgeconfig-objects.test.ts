// Which version a stored NudgeConfig's status is written through (issue 8, D1): one CRD serves
// v1alpha1 and v1beta2 from the same objects, and only v1beta2 admits an ungated validated entry.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NUDGE_CONFIGS, NUDGE_CONFIGS_V1BETA2 } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { nudgeConfigResourceFor, storedNudgeConfigFlavour } from '../../src/cluster/nudgeconfig-objects.ts';
import { NUDGE_CONFIGS_KIND } from '../../src/cluster/watched-kinds.ts';
import type { ClusterNudgeConfig } from '../../src/schema/nudgeconfig.ts';
import { decoded } from '../support/decoded.ts';

const raw = (nudges: unknown): KubeObject =>
  ({
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name: 'nudge-config', namespace: 'payments' },
    spec: { nudges },
  }) as KubeObject;

/** As the v1alpha1 informer hands it over: apiVersion rewritten, whichever version was written. */
const stored = (nudges: unknown): ClusterNudgeConfig => decoded(NUDGE_CONFIGS_KIND, raw(nudges));

describe('storedNudgeConfigFlavour / nudgeConfigResourceFor', () => {
  it('takes an object with an ungated validated entry for upstream v1beta2, and writes it there', () => {
    for (const gatingGroup of [undefined, '']) {
      const config = stored([
        { from: 'payments-worker', to: 'payments-bundle', mode: 'immediate' },
        {
          from: 'payments-api',
          to: 'payments-bundle',
          mode: 'validated',
          ...(gatingGroup === undefined ? {} : { gatingGroup }),
        },
      ]);
      assert.equal(storedNudgeConfigFlavour(config), 'upstream-konflux-v1beta2');
      assert.equal(nudgeConfigResourceFor(config), NUDGE_CONFIGS_V1BETA2);
    }
  });

  it('keeps everything v1alpha1 admits on v1alpha1; malformed specs never get this far', () => {
    for (const nudges of [
      [{ from: 'payments-api', to: 'payments-bundle', mode: 'validated', gatingGroup: 'payments' }],
      [{ from: 'payments-api', to: 'payments-bundle' }],
      [],
      undefined,
    ]) {
      assert.equal(storedNudgeConfigFlavour(stored(nudges)), 'nudger');
      assert.equal(nudgeConfigResourceFor(stored(nudges)), NUDGE_CONFIGS);
    }
    for (const nudges of ['not a list', [null, 3]]) assert.equal(NUDGE_CONFIGS_KIND.decode(raw(nudges)).ok, false);
    assert.equal(nudgeConfigResourceFor({ apiVersion: 'konflux-ci.dev/v1alpha1', kind: 'NudgeConfig' }), NUDGE_CONFIGS);
  });

  it('names the same resource in both versions', () => {
    assert.deepEqual({ ...NUDGE_CONFIGS_V1BETA2, version: 'v1alpha1' }, NUDGE_CONFIGS);
  });
});
