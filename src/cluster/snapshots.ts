// Snapshots as the validated-nudge reconciler caches them (docs/decisions.md D10, N27). integration-
// service writes much into a Snapshot that nudger never reads: each component's `source` (git URL
// and revision), the per-scenario test status as a JSON annotation that grows with every scenario,
// the re-prefixed PaC and build annotations. Decoded as any Snapshot, then only what readSnapshot
// reads is kept: name, namespace, labels, the annotations it names, spec's group and each
// component's name and image, and the conditions. Nothing writes a cached Snapshot back.
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import { decodeSnapshot } from '../domain/cluster-objects.ts';
import { SNAPSHOT_START_TIME_ANNOTATION, SNAPSHOT_WORKFLOW_ANNOTATION } from '../domain/nudge/validated-snapshot.ts';
import type { DecodeResult } from '../runtime/watched-kind.ts';
import type { ClusterSnapshot } from '../schema/snapshot.ts';

const KEPT_ANNOTATIONS = [SNAPSHOT_START_TIME_ANNOTATION, SNAPSHOT_WORKFLOW_ANNOTATION] as const;

/** `snapshot` without what no reader of the Snapshot cache reads. */
export function slimSnapshot(snapshot: ClusterSnapshot): ClusterSnapshot {
  const { apiVersion, kind, metadata, spec, status } = snapshot;
  const annotations: Record<string, string> = {};
  for (const key of KEPT_ANNOTATIONS) {
    const value = metadata?.annotations?.[key];
    if (value !== undefined) annotations[key] = value;
  }
  const components = spec?.components?.map(({ name, containerImage }) => ({ name, containerImage }));
  return {
    ...(apiVersion === undefined ? {} : { apiVersion }),
    ...(kind === undefined ? {} : { kind }),
    ...(metadata === undefined
      ? {}
      : {
          metadata: {
            ...(metadata.name === undefined ? {} : { name: metadata.name }),
            ...(metadata.namespace === undefined ? {} : { namespace: metadata.namespace }),
            ...(metadata.uid === undefined ? {} : { uid: metadata.uid }),
            ...(metadata.resourceVersion === undefined ? {} : { resourceVersion: metadata.resourceVersion }),
            ...(metadata.labels === undefined ? {} : { labels: metadata.labels }),
            annotations,
          },
        }),
    ...(spec === undefined
      ? {}
      : {
          spec: {
            ...(spec.componentGroup === undefined ? {} : { componentGroup: spec.componentGroup }),
            ...(components === undefined ? {} : { components }),
          },
        }),
    ...(status?.conditions === undefined ? {} : { status: { conditions: status.conditions } }),
  };
}

export function decodeCachedSnapshot(raw: KubeObject): DecodeResult<ClusterSnapshot> {
  const decoded = decodeSnapshot(raw);
  return decoded.ok ? { ok: true, object: slimSnapshot(decoded.object) } : decoded;
}
