// The kinds nudger watches, each with its resource and its decoder (src/domain/cluster-objects.ts):
// informers are asked for by these (src/runtime/shared-informers.ts), so every cache of a kind
// holds the same typed objects, decoded once as they arrive. Named `*_KIND` because the resource
// coordinates (src/adapters/kubernetes/resources.ts) already own the plain names.
import {
  CHANGE_GROUPS,
  COMPONENTS,
  CONFIG_MAPS,
  NUDGE_CONFIGS,
  PIPELINE_RUNS,
  RELEASE_PLAN_ADMISSIONS,
  SNAPSHOTS,
} from '../adapters/kubernetes/resources.ts';
import {
  decodeChangeGroup,
  decodeComponent,
  decodeConfigMap,
  decodeNudgeConfig,
  decodePipelineRun,
  decodeReleasePlanAdmission,
} from '../domain/cluster-objects.ts';
import { VALIDATED_RECORD_LABEL, VALIDATED_RECORD_LABEL_VALUE } from '../domain/nudge/validated-record.ts';
import { PRE_MERGE_RECORD_LABEL_VALUE } from '../domain/nudge/pre-merge-record.ts';
import { SNAPSHOT_TYPE_COMPONENT, SNAPSHOT_TYPE_LABEL } from '../domain/nudge/validated-snapshot.ts';
import type { ClusterConfigMap } from '../schema/config-map.ts';
import type { ClusterSnapshot } from '../schema/snapshot.ts';
import { NUDGE_TYPE_LABEL, NUDGE_TYPE_VALUE, PAC_EVENT_TYPE_KEY } from '../domain/nudge-pipelinerun.ts';
import { NAMESPACE_WIDE_RENOVATE_CONFIG_MAP } from '../domain/digest-rewrite/index.ts';
import type { InformerRequest } from '../runtime/shared-informers.ts';
import { decodeBuildRun } from './build-runs.ts';
import { decodeCachedSnapshot } from './snapshots.ts';
import type { WatchedKind } from '../runtime/watched-kind.ts';
import type { ClusterChangeGroup } from '../schema/changegroup.ts';
import type { ClusterComponent } from '../schema/component.ts';
import type { ClusterNudgeConfig } from '../schema/nudgeconfig.ts';
import type { PipelineRun } from '../schema/pipelinerun.ts';
import type { ReleasePlanAdmission } from '../schema/release-plan-admission.ts';

export const COMPONENTS_KIND: WatchedKind<ClusterComponent> = { resource: COMPONENTS, decode: decodeComponent };

/**
 * Listed through v1alpha1, which serves every stored NudgeConfig (conversion None), also those
 * written through v1beta2: the decoder accepts what either version admits.
 */
export const NUDGE_CONFIGS_KIND: WatchedKind<ClusterNudgeConfig> = {
  resource: NUDGE_CONFIGS,
  decode: decodeNudgeConfig,
};

export const CHANGE_GROUPS_KIND: WatchedKind<ClusterChangeGroup> = {
  resource: CHANGE_GROUPS,
  decode: decodeChangeGroup,
};

export const PIPELINE_RUNS_KIND: WatchedKind<PipelineRun> = { resource: PIPELINE_RUNS, decode: decodePipelineRun };

export const RELEASE_PLAN_ADMISSIONS_KIND: WatchedKind<ReleasePlanAdmission> = {
  resource: RELEASE_PLAN_ADMISSIONS,
  decode: decodeReleasePlanAdmission,
};

/** The nudge PipelineRuns (label-selected), shared by the sweeper and the ChangeGroup controller. */
export const NUDGE_RUNS_SELECTOR: InformerRequest = { labelSelector: `${NUDGE_TYPE_LABEL}=${NUDGE_TYPE_VALUE}` };

/**
 * Push build PipelineRuns of both label families (docs/decisions.md D1), for the dispatcher. A label
 * selector cannot OR `appstudio.openshift.io/component` with `build.konflux-ci.dev/component`, but
 * both families are started by Pipelines-as-Code, which labels every run with its event type; a
 * push is `push` (`Push` as some providers spell it) or `incoming` (build-service's push test).
 * So one selector on that label caches push builds only, leaving out pull-request builds (about
 * half of all builds) and every PipelineRun that is not a build, where watching all PipelineRuns
 * with a predicate would cache them all.
 */
export const PUSH_BUILD_RUNS_SELECTOR: InformerRequest = {
  labelSelector: `${PAC_EVENT_TYPE_KEY} in (push,Push,incoming)`,
};

/** The PipelineRuns of PUSH_BUILD_RUNS_SELECTOR, cached without their Pipelines (build-runs.ts). */
export const BUILD_RUNS_KIND: WatchedKind<PipelineRun> = { resource: PIPELINE_RUNS, decode: decodeBuildRun };

/** integration-service's Snapshots, for validated nudges (docs/decisions.md D10), slimmed (snapshots.ts). */
export const SNAPSHOTS_KIND: WatchedKind<ClusterSnapshot> = { resource: SNAPSHOTS, decode: decodeCachedSnapshot };

/**
 * Only the Snapshots a build makes (`test.appstudio.openshift.io/type: component`): override and
 * group Snapshots never validate a nudge, and a tenant's namespace may hold many of them.
 */
export const COMPONENT_SNAPSHOTS_SELECTOR: InformerRequest = {
  labelSelector: `${SNAPSHOT_TYPE_LABEL}=${SNAPSHOT_TYPE_COMPONENT}`,
};

/** ConfigMaps, cached only through a label selector on nudger's own records. */
export const CONFIG_MAPS_KIND: WatchedKind<ClusterConfigMap> = { resource: CONFIG_MAPS, decode: decodeConfigMap };

/**
 * The dispatcher's records, one ConfigMap per (group, target) pair: validated nudges
 * (docs/decisions.md N27) and pre-merge nudges (N35).
 */
export const NUDGE_RECORDS_SELECTOR: InformerRequest = {
  labelSelector: `${VALIDATED_RECORD_LABEL} in (${VALIDATED_RECORD_LABEL_VALUE},${PRE_MERGE_RECORD_LABEL_VALUE})`,
};

/**
 * Each namespace's `namespace-wide-nudging-renovate-config` and no other ConfigMap (a field
 * selector on the name, which the API server supports for every resource): the Renovate settings
 * every nudge of a namespace reads (docs/decisions.md D6, N49), at most one object per namespace.
 * A per-Component ConfigMap has a name of the tenant's choosing and is still read by name.
 */
export const NAMESPACE_WIDE_RENOVATE_CONFIG_SELECTOR: InformerRequest = {
  fieldSelector: `metadata.name=${NAMESPACE_WIDE_RENOVATE_CONFIG_MAP}`,
};

/**
 * Pull-request builds, for pre-merge nudges (docs/decisions.md D11): Pipelines-as-Code's event
 * types of a PR's runs, the PR itself and the comments that re-run it.
 */
export const PULL_REQUEST_BUILD_RUNS_SELECTOR: InformerRequest = {
  labelSelector: `${PAC_EVENT_TYPE_KEY} in (pull_request,Merge_Request,retest-comment,ok-to-test-comment,retest-all-comment)`,
};
