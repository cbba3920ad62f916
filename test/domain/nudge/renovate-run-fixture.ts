// The renovate executor's nudge PipelineRun as the informer holds it once Tekton has ended it
// (docs/decisions.md N24): built by the executor's own manifest builder, so the name, label and
// annotations are the ones the dispatcher's failure watch recognises.
import { renovateNudgePipelineRun } from '../../../src/domain/nudge/renovate-pipelinerun.ts';
import type { PipelineRun } from '../../../src/schema/pipelinerun.ts';

export const RUN_KEY = '0123456789abcdef';
export const RUN_NAME = `renovate-pipeline-${RUN_KEY}`;
/** Shaped like a GitHub App installation token. */
export const FAKE_TOKEN = 'ghs_16C7e42F292c6912E7710c838347Ae178B4a';

export interface SucceededCondition {
  readonly status: string;
  readonly reason?: string;
  readonly message?: string;
}

export function executorRun(
  condition: SucceededCondition | undefined,
  change: (run: PipelineRun) => PipelineRun = (r) => r,
): PipelineRun {
  const manifest = renovateNudgePipelineRun({
    namespace: 'tenant',
    key: RUN_KEY,
    nudging: 'operator',
    nudged: 'operator-bundle',
    buildPipelineRun: 'operator-on-push-abcde',
    imageUrl: 'quay.io/acme/operator:abc123',
    repoAtShaLink: 'https://github.com/acme/operator?rev=abc123',
    serviceAccountName: 'appstudio-pipeline',
  });
  const stored: PipelineRun = {
    ...(manifest as unknown as PipelineRun),
    metadata: { ...manifest.metadata, uid: 'run-uid-1', resourceVersion: '7' },
    ...(condition === undefined ? {} : { status: { conditions: [{ type: 'Succeeded', ...condition }] } }),
  };
  return change(stored);
}
