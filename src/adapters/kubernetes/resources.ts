// Coordinates of the resources the runtime and nudger's controllers use.
import type { ResourceRef } from './types.ts';

export const CONFIG_MAPS: ResourceRef = {
  group: '',
  version: 'v1',
  plural: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
};
export const NAMESPACES: ResourceRef = {
  group: '',
  version: 'v1',
  plural: 'namespaces',
  kind: 'Namespace',
  namespaced: false,
};
export const SECRETS: ResourceRef = { group: '', version: 'v1', plural: 'secrets', kind: 'Secret', namespaced: true };
export const SERVICE_ACCOUNTS: ResourceRef = {
  group: '',
  version: 'v1',
  plural: 'serviceaccounts',
  kind: 'ServiceAccount',
  namespaced: true,
};
export const CORE_EVENTS: ResourceRef = { group: '', version: 'v1', plural: 'events', kind: 'Event', namespaced: true };
export const LEASES: ResourceRef = {
  group: 'coordination.k8s.io',
  version: 'v1',
  plural: 'leases',
  kind: 'Lease',
  namespaced: true,
};
export const COMPONENTS: ResourceRef = {
  group: 'appstudio.redhat.com',
  version: 'v1alpha1',
  plural: 'components',
  kind: 'Component',
  namespaced: true,
};
export const CHANGE_GROUPS: ResourceRef = {
  group: 'appstudio.redhat.com',
  version: 'v1alpha1',
  plural: 'changegroups',
  kind: 'ChangeGroup',
  namespaced: true,
};
/**
 * nudger's NudgeConfig, storage version. The CRD also serves upstream's v1beta2 from the same stored
 * objects (conversion None), so a list or watch here returns every NudgeConfig, whichever version
 * its client wrote, with apiVersion rewritten to v1alpha1.
 */
export const NUDGE_CONFIGS: ResourceRef = {
  group: 'konflux-ci.dev',
  version: 'v1alpha1',
  plural: 'nudgeconfigs',
  kind: 'NudgeConfig',
  namespaced: true,
};
/** The same objects as NUDGE_CONFIGS, read and written under upstream's v1beta2 schema (D1). */
export const NUDGE_CONFIGS_V1BETA2: ResourceRef = { ...NUDGE_CONFIGS, version: 'v1beta2' };
export const PIPELINE_RUNS: ResourceRef = {
  group: 'tekton.dev',
  version: 'v1',
  plural: 'pipelineruns',
  kind: 'PipelineRun',
  namespaced: true,
};
/** Konflux release-service; read cluster-wide for D6 distribution repositories. */
export const RELEASE_PLAN_ADMISSIONS: ResourceRef = {
  group: 'appstudio.redhat.com',
  version: 'v1alpha1',
  plural: 'releaseplanadmissions',
  kind: 'ReleasePlanAdmission',
  namespaced: true,
};
/** integration-service's Snapshots; read for validated nudges (docs/decisions.md D10). */
export const SNAPSHOTS: ResourceRef = {
  group: 'appstudio.redhat.com',
  version: 'v1alpha1',
  plural: 'snapshots',
  kind: 'Snapshot',
  namespaced: true,
};
