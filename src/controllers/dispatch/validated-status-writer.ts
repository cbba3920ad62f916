// Writes a NudgeConfig's `status.validatedNudges` (issue 11, docs/decisions.md D10), computed by
// src/domain/nudge/validated-status.ts. The stale-reference controller writes the same status
// (`Valid`, lastValidationTime): each writer reads the object fresh, changes only its own fields
// and keeps the rest (`...current.status`), and the resourceVersion makes the write a
// compare-and-swap, so neither clobbers the other. A status that would not change is not written.
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { nudgeConfigResourceFor } from '../../cluster/nudgeconfig-objects.ts';
import { decodeNudgeConfig } from '../../domain/cluster-objects.ts';
import { sameValidatedNudgesStatus } from '../../domain/nudge/validated-status.ts';
import { updateStatus } from '../../runtime/status.ts';
import type { ClusterNudgeConfig, NudgeConfigStatus, ValidatedNudgesStatus } from '../../schema/nudgeconfig.ts';

const FIELD_MANAGER = 'nudger-validated-status';

/** `unchanged`: nothing written; `written`; `gone`: the NudgeConfig no longer exists. */
export type ValidatedStatusWrite = 'unchanged' | 'written' | 'gone';

/**
 * Sets `status.validatedNudges` of `cached` (the informer's NudgeConfig) to `status`, or removes it
 * when `status` is undefined. Skips the request when the cache already says the same, and the
 * write when the object read fresh does.
 */
export async function writeValidatedNudgesStatus(
  client: ObjectClient,
  cached: ClusterNudgeConfig,
  status: ValidatedNudgesStatus | undefined,
  signal?: AbortSignal,
): Promise<ValidatedStatusWrite> {
  if (sameValidatedNudgesStatus(cached.status?.validatedNudges, status)) return 'unchanged';
  const key = { namespace: cached.metadata?.namespace ?? '', name: cached.metadata?.name ?? '' };
  const outcome = { wrote: false };
  const stored = await updateStatus<ClusterNudgeConfig>(
    client,
    nudgeConfigResourceFor(cached),
    key,
    (read) => {
      outcome.wrote = false; // a retry after a conflict decides afresh
      // Decoded as the cache decodes it; one that no longer decodes is the informer's to report.
      const decoded = decodeNudgeConfig(read);
      if (!decoded.ok) return undefined;
      const current = decoded.object;
      if (sameValidatedNudgesStatus(current.status?.validatedNudges, status)) return undefined;
      current.status = withValidatedNudges(current.status, status);
      outcome.wrote = true;
      return current;
    },
    { fieldManager: FIELD_MANAGER, ...(signal === undefined ? {} : { signal }) },
  );
  if (stored === undefined) return 'gone';
  return outcome.wrote ? 'written' : 'unchanged';
}

function withValidatedNudges(
  current: NudgeConfigStatus | undefined,
  validatedNudges: ValidatedNudgesStatus | undefined,
): NudgeConfigStatus {
  const { validatedNudges: _replaced, ...rest } = current ?? {};
  return validatedNudges === undefined ? rest : { ...rest, validatedNudges };
}
