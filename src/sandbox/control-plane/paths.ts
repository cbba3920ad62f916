// Where the CRDs a local control plane installs live, resolved from the package root (this file is
// src/sandbox/control-plane/paths.ts, or dist/sandbox/control-plane/paths.js once built), so the
// CLI and the tests find the same files whatever their working directory.
import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..', '..');
/** Verbatim upstream CRDs (sandbox/crds/README.md names their sources and licence). */
export const SANDBOX_CRD_DIR = join(REPO_ROOT, 'sandbox', 'crds');

export const UPSTREAM_CRDS = {
  components: join(SANDBOX_CRD_DIR, 'appstudio.redhat.com_components.yaml'),
  snapshots: join(SANDBOX_CRD_DIR, 'appstudio.redhat.com_snapshots.yaml'),
  componentGroups: join(SANDBOX_CRD_DIR, 'appstudio.redhat.com_componentgroups.yaml'),
  applications: join(SANDBOX_CRD_DIR, 'appstudio.redhat.com_applications.yaml'),
  upstreamNudgeConfigs: join(SANDBOX_CRD_DIR, 'appstudio.redhat.com_nudgeconfigs.yaml'),
  pipelineRuns: join(SANDBOX_CRD_DIR, 'tekton.dev_pipelineruns.yaml'),
  releasePlanAdmissions: join(SANDBOX_CRD_DIR, 'appstudio.redhat.com_releaseplanadmissions.yaml'),
} as const;

const NUDGER_CRD_DIR = join(REPO_ROOT, 'deploy', 'crds');

/** Every CRD we ship: `deploy/crds/*.yaml` except the kustomization. */
export const NUDGER_CRDS: string[] = readdirSync(NUDGER_CRD_DIR)
  .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
  .sort()
  .map((file) => join(NUDGER_CRD_DIR, file));

/** What the sandbox installs: nudger's CRDs plus the Konflux and Tekton kinds it plays with. */
export const SANDBOX_CRDS: readonly string[] = [
  ...NUDGER_CRDS,
  UPSTREAM_CRDS.components,
  UPSTREAM_CRDS.applications,
  UPSTREAM_CRDS.componentGroups,
  UPSTREAM_CRDS.snapshots,
  UPSTREAM_CRDS.pipelineRuns,
  UPSTREAM_CRDS.releasePlanAdmissions,
];
