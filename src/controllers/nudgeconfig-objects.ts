// The NudgeConfig and Component objects as the controllers read them from the caches. Only the
// fields used are typed; the rest passes through untouched.
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import type { Condition } from '../schema/common.ts';

export interface NudgeConfigResource extends KubeObject {
  spec?: { nudges?: unknown };
  status?: { conditions?: Condition[]; lastValidationTime?: string; observedGeneration?: number };
}

export interface ComponentResource extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** The `(from, to)` pairs of a NudgeConfig; malformed entries were refused at admission and are skipped. */
export function nudgePairs(config: NudgeConfigResource): { from: string; to: string }[] {
  const nudges = config.spec?.nudges;
  if (!Array.isArray(nudges)) return [];
  const pairs: { from: string; to: string }[] = [];
  for (const entry of nudges as unknown[]) {
    if (typeof entry !== 'object' || entry === null) continue;
    const { from, to } = entry as { from?: unknown; to?: unknown };
    if (typeof from === 'string' && typeof to === 'string') pairs.push({ from, to });
  }
  return pairs;
}
