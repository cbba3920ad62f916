// Which version's rules admit a stored NudgeConfig, and so through which version to write its
// status. The object itself is the decoded ClusterNudgeConfig of the informer cache
// (src/cluster/watched-kinds.ts).
import { NUDGE_CONFIGS, NUDGE_CONFIGS_V1BETA2 } from '../adapters/kubernetes/resources.ts';
import type { ResourceRef } from '../adapters/kubernetes/types.ts';
import type { NudgeConfigFlavour } from '../domain/model.ts';
import type { ClusterNudgeConfig } from '../schema/nudgeconfig.ts';

/**
 * The version whose rules admit a stored NudgeConfig. One CRD serves v1alpha1 and v1beta2 from the
 * same stored objects (conversion None), so the version a client wrote is not recorded; but a
 * validated entry without gatingGroup can only have come in through v1beta2, whose schema allows it
 * (v1alpha1's CEL rule refuses it). Anything else is valid in v1alpha1, nudger's own.
 */
export function storedNudgeConfigFlavour(
  config: ClusterNudgeConfig,
): Extract<NudgeConfigFlavour, 'nudger' | 'upstream-konflux-v1beta2'> {
  const ungated = (config.spec?.nudges ?? []).some(
    (entry) => entry.mode === 'validated' && (entry.gatingGroup ?? '') === '',
  );
  return ungated ? 'upstream-konflux-v1beta2' : 'nudger';
}

/**
 * Where to write a stored NudgeConfig's status: through the version whose rules admit it. A status
 * write is validated against the whole object, so on an API server without validation ratcheting
 * (before Kubernetes 1.30) writing a v1beta2-only object through v1alpha1 would be refused.
 */
export function nudgeConfigResourceFor(config: ClusterNudgeConfig): ResourceRef {
  return storedNudgeConfigFlavour(config) === 'upstream-konflux-v1beta2' ? NUDGE_CONFIGS_V1BETA2 : NUDGE_CONFIGS;
}
