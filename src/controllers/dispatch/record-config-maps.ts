// The ConfigMaps that hold the dispatcher's records of validated and pre-merge nudges
// (docs/decisions.md N27, N35): one per (group, target) pair, labelled so one label-selected cache
// holds them all, owned by the namespace's NudgeConfig (a namespace that stops using them keeps
// none), and written only as a compare-and-swap on the resourceVersion read.
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { isAlreadyExists, isConflict, isNotFound } from '../../adapters/kubernetes/errors.ts';
import { CONFIG_MAPS } from '../../adapters/kubernetes/resources.ts';
import { NUDGE_CONFIG_NAME } from '../../domain/model.ts';
import {
  RECORD_GROUP_ANNOTATION,
  RECORD_TARGET_ANNOTATION,
  VALIDATED_RECORD_KEY,
  VALIDATED_RECORD_LABEL,
} from '../../domain/nudge/validated-record.ts';
import type { ClusterConfigMap } from '../../schema/config-map.ts';
import type { ClusterNudgeConfig } from '../../schema/nudgeconfig.ts';

/** A compare-and-swap lost (or the object appeared or vanished meanwhile): decide again. */
export class RecordConflict extends Error {
  constructor() {
    super('compare-and-swap lost');
    this.name = 'RecordConflict';
  }
}

export interface RecordWrite {
  readonly nudgeConfig: ClusterNudgeConfig;
  readonly name: string;
  /** The record label's value: which kind of record. */
  readonly kind: string;
  readonly group: string;
  readonly target: string;
  /** The record's text, under the `record` key. */
  readonly text: string;
  readonly fieldManager: string;
}

/**
 * Writes `write.text` into the record ConfigMap `current` (undefined: creates it), returning what
 * the API server stored; the same text is not written again. Throws RecordConflict when the
 * object moved since it was read.
 */
export async function writeRecordConfigMap(
  client: ObjectClient,
  current: ClusterConfigMap | undefined,
  write: RecordWrite,
  signal: AbortSignal,
): Promise<ClusterConfigMap> {
  if (current?.data?.[VALIDATED_RECORD_KEY] === write.text) return current;
  const metadata = current?.metadata;
  const uid = write.nudgeConfig.metadata?.uid;
  const next: ClusterConfigMap = {
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: {
      namespace: write.nudgeConfig.metadata?.namespace ?? '',
      name: write.name,
      ...(metadata?.resourceVersion === undefined ? {} : { resourceVersion: metadata.resourceVersion }),
      labels: { ...metadata?.labels, 'app.kubernetes.io/managed-by': 'nudger', [VALIDATED_RECORD_LABEL]: write.kind },
      annotations: {
        ...metadata?.annotations,
        [RECORD_GROUP_ANNOTATION]: write.group,
        [RECORD_TARGET_ANNOTATION]: write.target,
      },
      ...(uid === undefined
        ? {}
        : {
            ownerReferences: [
              {
                apiVersion: write.nudgeConfig.apiVersion ?? 'konflux-ci.dev/v1alpha1',
                kind: write.nudgeConfig.kind ?? 'NudgeConfig',
                name: NUDGE_CONFIG_NAME,
                uid,
              },
            ],
          }),
    },
    data: { [VALIDATED_RECORD_KEY]: write.text },
  };
  try {
    const options = { fieldManager: write.fieldManager, signal };
    return current === undefined
      ? await client.create(CONFIG_MAPS, next, options)
      : await client.replace(CONFIG_MAPS, next, options);
  } catch (error) {
    if (isConflict(error) || isAlreadyExists(error) || isNotFound(error)) throw new RecordConflict();
    throw error;
  }
}
