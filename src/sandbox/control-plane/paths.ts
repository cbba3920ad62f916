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
  cfApps: join(SANDBOX_CRD_DIR, 'korifi', 'korifi.cloudfoundry.org_cfapps.yaml'),
  cfBuilds: join(SANDBOX_CRD_DIR, 'korifi', 'korifi.cloudfoundry.org_cfbuilds.yaml'),
  cfPackages: join(SANDBOX_CRD_DIR, 'korifi', 'korifi.cloudfoundry.org_cfpackages.yaml'),
  cfProcesses: join(SANDBOX_CRD_DIR, 'korifi', 'korifi.cloudfoundry.org_cfprocesses.yaml'),
  buildWorkloads: join(SANDBOX_CRD_DIR, 'korifi', 'korifi.cloudfoundry.org_buildworkloads.yaml'),
  builderInfos: join(SANDBOX_CRD_DIR, 'korifi', 'korifi.cloudfoundry.org_builderinfos.yaml'),
  kpackImages: join(SANDBOX_CRD_DIR, 'kpack', 'image.yaml'),
  kpackBuilds: join(SANDBOX_CRD_DIR, 'kpack', 'build.yaml'),
  kpackBuilders: join(SANDBOX_CRD_DIR, 'kpack', 'builder.yaml'),
  kpackClusterBuilders: join(SANDBOX_CRD_DIR, 'kpack', 'clusterbuilder.yaml'),
  kpackClusterStacks: join(SANDBOX_CRD_DIR, 'kpack', 'clusterstack.yaml'),
  kpackClusterStores: join(SANDBOX_CRD_DIR, 'kpack', 'clusterstore.yaml'),
} as const;

/** Korifi's and kpack's kinds, for the Korifi controllers (docs/decisions.md D13, N39). */
export const KORIFI_CRDS: readonly string[] = [
  UPSTREAM_CRDS.cfApps,
  UPSTREAM_CRDS.cfBuilds,
  UPSTREAM_CRDS.cfPackages,
  UPSTREAM_CRDS.cfProcesses,
  UPSTREAM_CRDS.buildWorkloads,
  UPSTREAM_CRDS.builderInfos,
  UPSTREAM_CRDS.kpackImages,
  UPSTREAM_CRDS.kpackBuilds,
  UPSTREAM_CRDS.kpackBuilders,
  UPSTREAM_CRDS.kpackClusterBuilders,
  UPSTREAM_CRDS.kpackClusterStacks,
  UPSTREAM_CRDS.kpackClusterStores,
];

const NUDGER_CRD_DIR = join(REPO_ROOT, 'deploy', 'crds');

/** Every CRD we ship: `deploy/crds/*.yaml` except the kustomization. */
export const NUDGER_CRDS: string[] = readdirSync(NUDGER_CRD_DIR)
  .filter((file) => file.endsWith('.yaml') && file !== 'kustomization.yaml')
  .sort()
  .map((file) => join(NUDGER_CRD_DIR, file));

/**
 * What the sandbox installs: nudger's CRDs plus the Konflux, Tekton, Korifi and kpack kinds it plays
 * with (the Korifi ones cost about a second of a start that takes over ten).
 */
export const SANDBOX_CRDS: readonly string[] = [
  ...NUDGER_CRDS,
  UPSTREAM_CRDS.components,
  UPSTREAM_CRDS.applications,
  UPSTREAM_CRDS.componentGroups,
  UPSTREAM_CRDS.snapshots,
  UPSTREAM_CRDS.pipelineRuns,
  UPSTREAM_CRDS.releasePlanAdmissions,
  ...KORIFI_CRDS,
];
