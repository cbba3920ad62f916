// The NudgeConfig and Component objects as the controllers and webhooks read them from the caches. Only the
// fields used are typed; the rest passes through untouched.
import { NUDGE_CONFIGS, NUDGE_CONFIGS_V1BETA2 } from '../adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../adapters/kubernetes/types.ts';
import type { NudgeConfigFlavour } from '../domain/model.ts';
import type { Condition } from '../schema/common.ts';

export interface NudgeConfigResource extends KubeObject {
  spec?: { nudges?: unknown };
  status?: { conditions?: Condition[]; lastValidationTime?: string; observedGeneration?: number };
}

export interface ComponentResource extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/**
 * The version whose rules admit a stored NudgeConfig. One CRD serves v1alpha1 and v1beta2 from the
 * same stored objects (conversion None), so the version a client wrote is not recorded; but a
 * validated entry without gatingGroup can only have come in through v1beta2, whose schema allows it
 * (v1alpha1's CEL rule refuses it). Anything else is valid in v1alpha1, nudger's own.
 */
export function storedNudgeConfigFlavour(
  config: NudgeConfigResource,
): Extract<NudgeConfigFlavour, 'nudger' | 'upstream-konflux-v1beta2'> {
  const nudges = config.spec?.nudges;
  if (!Array.isArray(nudges)) return 'nudger';
  const ungated = (nudges as unknown[]).some((entry) => {
    if (typeof entry !== 'object' || entry === null) return false;
    const { mode, gatingGroup } = entry as { mode?: unknown; gatingGroup?: unknown };
    return mode === 'validated' && (typeof gatingGroup !== 'string' || gatingGroup === '');
  });
  return ungated ? 'upstream-konflux-v1beta2' : 'nudger';
}

/**
 * Where to write a stored NudgeConfig's status: through the version whose rules admit it. A status
 * write is validated against the whole object, so on an API server without validation ratcheting
 * (before Kubernetes 1.30) writing a v1beta2-only object through v1alpha1 would be refused.
 */
export function nudgeConfigResourceFor(config: NudgeConfigResource): ResourceRef {
  return storedNudgeConfigFlavour(config) === 'upstream-konflux-v1beta2' ? NUDGE_CONFIGS_V1BETA2 : NUDGE_CONFIGS;
}
