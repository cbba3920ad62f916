// Build PipelineRuns as the dispatcher caches them (docs/decisions.md N22): the cache holds every
// push build of the cluster, and a Konflux build run carries its whole Pipeline twice (the
// `spec.pipelineSpec` Pipelines-as-Code inlines, the `status.pipelineSpec` Tekton resolves), plus
// child references and provenance: tens of kilobytes each that no reader looks at. Decoded as any
// PipelineRun, then only what the dispatcher, D3 and the executors read is kept: all metadata
// (labels, annotations, finalizers, uid, resourceVersion), `spec.status`, and the status's
// conditions, times and results. Nothing writes a cached build back whole (every write is a patch
// of metadata), so nothing is lost from the API server.
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import { decodePipelineRun } from '../domain/cluster-objects.ts';
import type { DecodeResult } from '../runtime/watched-kind.ts';
import type { PipelineRun } from '../schema/pipelinerun.ts';

/** The status fields readers use (`completionTime`: a build finished before its NudgeConfig, N25). */
function keptStatus(status: NonNullable<PipelineRun['status']>): NonNullable<PipelineRun['status']> {
  const { conditions, startTime, completionTime, results, pipelineResults } = status;
  return {
    ...(conditions === undefined ? {} : { conditions }),
    ...(startTime === undefined ? {} : { startTime }),
    ...(completionTime === undefined ? {} : { completionTime }),
    ...(results === undefined ? {} : { results }),
    ...(pipelineResults === undefined ? {} : { pipelineResults }),
  };
}

/** `run` without what no reader of the build cache reads. */
export function slimBuildRun(run: PipelineRun): PipelineRun {
  const { apiVersion, kind, metadata, spec, status } = run;
  return {
    ...(apiVersion === undefined ? {} : { apiVersion }),
    ...(kind === undefined ? {} : { kind }),
    ...(metadata === undefined ? {} : { metadata }),
    ...(spec?.status === undefined ? {} : { spec: { status: spec.status } }),
    ...(status === undefined ? {} : { status: keptStatus(status) }),
  };
}

export function decodeBuildRun(raw: KubeObject): DecodeResult<PipelineRun> {
  const decoded = decodePipelineRun(raw);
  return decoded.ok ? { ok: true, object: slimBuildRun(decoded.object) } : decoded;
}
