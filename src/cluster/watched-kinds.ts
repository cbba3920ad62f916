// The kinds nudger watches, each with its resource and its decoder (src/domain/cluster-objects.ts):
// informers are asked for by these (src/runtime/shared-informers.ts), so every cache of a kind
// holds the same typed objects, decoded once as they arrive. Named `*_KIND` because the resource
// coordinates (src/adapters/kubernetes/resources.ts) already own the plain names.
import {
  CHANGE_GROUPS,
  COMPONENTS,
  NUDGE_CONFIGS,
  PIPELINE_RUNS,
  RELEASE_PLAN_ADMISSIONS,
} from '../adapters/kubernetes/resources.ts';
import {
  decodeChangeGroup,
  decodeComponent,
  decodeNudgeConfig,
  decodePipelineRun,
  decodeReleasePlanAdmission,
} from '../domain/cluster-objects.ts';
import { NUDGE_TYPE_LABEL, NUDGE_TYPE_VALUE } from '../domain/nudge-pipelinerun.ts';
import type { InformerRequest } from '../runtime/shared-informers.ts';
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
