// The objects nudger reads from the cluster, decoded once where they enter: the informer (each
// watched kind, src/cluster/watched-kinds.ts), an admission request, a live read. Each decoder is
// built from the kind's schema in src/schema, so controllers, webhooks and the sandbox all hold the
// same typed model, and a malformed object is refused there with its field paths instead of being
// re-checked (or mis-read) at every use. Pure: ajv and the schemas only.
import { ClusterChangeGroup } from '../schema/changegroup.ts';
import { ClusterComponent } from '../schema/component.ts';
import { ClusterConfigMap } from '../schema/config-map.ts';
import { ClusterNudgeConfig } from '../schema/nudgeconfig.ts';
import { PipelineRun } from '../schema/pipelinerun.ts';
import { ReleasePlanAdmission } from '../schema/release-plan-admission.ts';
import { ClusterSnapshot } from '../schema/snapshot.ts';
import { ClusterUpstreamKonfluxNudgeConfig } from '../schema/upstream-nudgeconfig.ts';
import { objectDecoder, type DecodeResult, type Decoder } from './schema-validation.ts';

export type { DecodeProblem, DecodeResult, Decoder } from './schema-validation.ts';

export const decodeComponent: Decoder<ClusterComponent> = objectDecoder(ClusterComponent);
export const decodeChangeGroup: Decoder<ClusterChangeGroup> = objectDecoder(ClusterChangeGroup);
export const decodePipelineRun: Decoder<PipelineRun> = objectDecoder(PipelineRun);
export const decodeReleasePlanAdmission: Decoder<ReleasePlanAdmission> = objectDecoder(ReleasePlanAdmission);
export const decodeSnapshot: Decoder<ClusterSnapshot> = objectDecoder(ClusterSnapshot);
export const decodeConfigMap: Decoder<ClusterConfigMap> = objectDecoder(ClusterConfigMap);

const decodeNudgerNudgeConfig = objectDecoder(ClusterNudgeConfig);
const decodeUpstreamKonfluxNudgeConfig = objectDecoder(ClusterUpstreamKonfluxNudgeConfig);

/**
 * A stored NudgeConfig, whichever version its client wrote: the CRD serves v1alpha1 and v1beta2
 * from the same objects (conversion None), so an object is good when either version's schema
 * admits it. Both type its entries alike; which version's rules admit it is
 * storedNudgeConfigFlavour's question (src/cluster/nudgeconfig-objects.ts).
 */
export function decodeNudgeConfig(value: unknown): DecodeResult<ClusterNudgeConfig> {
  const asNudger = decodeNudgerNudgeConfig(value);
  if (asNudger.ok) return asNudger;
  const asUpstream = decodeUpstreamKonfluxNudgeConfig(value);
  // The same type: both versions' entries have the same fields (src/schema/upstream-nudgeconfig.ts).
  return asUpstream.ok ? { ok: true, object: asUpstream.object } : asNudger;
}
