// The part of a Tekton PipelineRun (`tekton.dev/v1` or `v1beta1`) that nudger reads: nudge runs
// from build-service or integration-service and the build runs they name (docs/decisions.md D2,
// D3). Tekton owns the full schema (vendored in sandbox/crds/); its CRD preserves unknown fields and
// Tekton's own webhook and controller write these, so this one only types what nudger reads and lets
// everything else through. Result values may be strings, arrays or objects: none is refused.
import Type, { type Static } from 'typebox';
import { ClusterObjectMeta } from './common.ts';

export const TEKTON_GROUP = 'tekton.dev';
export const PIPELINE_RUN_KIND = 'PipelineRun';

const open = { additionalProperties: true } as const;

/** A knative condition as Tekton writes it (`Succeeded` is the one nudger reads). */
export const PipelineRunCondition = Type.Object(
  {
    type: Type.String(),
    status: Type.String(),
    reason: Type.Optional(Type.String()),
    lastTransitionTime: Type.Optional(Type.String()),
  },
  open,
);
export type PipelineRunCondition = Static<typeof PipelineRunCondition>;

/** One result: v1 `status.results[]`, v1beta1 `status.pipelineResults[]`. */
export const PipelineRunResult = Type.Object({ name: Type.String(), value: Type.Optional(Type.Unknown()) }, open);
export type PipelineRunResult = Static<typeof PipelineRunResult>;

export const PipelineRunStatus = Type.Object(
  {
    conditions: Type.Optional(Type.Array(PipelineRunCondition)),
    startTime: Type.Optional(Type.String()),
    /** Set by Tekton when the run finishes, whatever the outcome. */
    completionTime: Type.Optional(Type.String()),
    results: Type.Optional(Type.Array(PipelineRunResult)),
    pipelineResults: Type.Optional(Type.Array(PipelineRunResult)),
  },
  open,
);
export type PipelineRunStatus = Static<typeof PipelineRunStatus>;

export const PipelineRun = Type.Object(
  {
    // Absent on the items of some LISTs; when present they must say tekton.dev PipelineRun, so an
    // admission request for another kind is never read as one.
    apiVersion: Type.Optional(Type.String({ pattern: `^${TEKTON_GROUP.replaceAll('.', '\\.')}/` })),
    kind: Type.Optional(Type.Unsafe<string>({ type: 'string', const: PIPELINE_RUN_KIND })),
    // Admission requests may carry generateName only; the name is assigned after the webhook.
    metadata: Type.Optional(ClusterObjectMeta),
    spec: Type.Optional(Type.Object({ status: Type.Optional(Type.String()) }, open)),
    status: Type.Optional(PipelineRunStatus),
  },
  open,
);
export type PipelineRun = Static<typeof PipelineRun>;
