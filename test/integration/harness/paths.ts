// Where the CRDs the integration tests install live. The upstream copies sit in `../shared`
// beside the repository (the same layout on developer machines and in CI).
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..');
export const SHARED_ROOT = resolve(REPO_ROOT, '..', 'shared');
const UPSTREAM_ROOT = join(SHARED_ROOT, 'upstream-crds');

export const UPSTREAM_CRDS = {
  components: join(UPSTREAM_ROOT, 'konflux', 'appstudio.redhat.com_components.yaml'),
  snapshots: join(UPSTREAM_ROOT, 'konflux', 'appstudio.redhat.com_snapshots.yaml'),
  componentGroups: join(UPSTREAM_ROOT, 'konflux', 'appstudio.redhat.com_componentgroups.yaml'),
  applications: join(UPSTREAM_ROOT, 'konflux', 'appstudio.redhat.com_applications.yaml'),
  upstreamNudgeConfigs: join(UPSTREAM_ROOT, 'konflux', 'appstudio.redhat.com_nudgeconfigs.yaml'),
  pipelineRuns: join(UPSTREAM_ROOT, 'tekton', '300-pipelinerun.yaml'),
} as const;

const NUDGER_CRD_DIR = join(REPO_ROOT, 'deploy', 'crds');

/** Every CRD we ship: `deploy/crds/*.yaml` except the kustomization. */
export const NUDGER_CRDS: string[] = readdirSync(NUDGER_CRD_DIR)
  .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
  .sort()
  .map((file) => join(NUDGER_CRD_DIR, file));
