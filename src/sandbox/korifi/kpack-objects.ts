// The kpack kinds the sandbox's kpack stand-in reads and writes (docs/decisions.md N43), read
// loosely as raw JSON (kpack's CRDs have no schema; its webhook validates), with kpack's
// (knative's) condition shape: `{type, status, reason?, message?, lastTransitionTime}`, the
// transition time moving only when the status does.
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import type { ResourceRef, KubeObject } from '../../adapters/kubernetes/types.ts';
import { compareStrings } from '../../domain/compare.ts';
import { isRecord } from '../../domain/records.ts';

export {
  KPACK_BUILDERS,
  KPACK_BUILDS,
  KPACK_CLUSTER_BUILDERS,
  KPACK_CLUSTER_STACKS,
  KPACK_CLUSTER_STORES,
  KPACK_IMAGES,
} from '../../adapters/kubernetes/korifi-resources.ts';
export { KPACK_API_VERSION } from '../../schema/kpack.ts';

/** An object the stand-in left alone because it does not decode (what kpack's webhook would refuse). */
export interface RejectedObject {
  readonly kind: string;
  readonly object: string;
  readonly message: string;
}

/** A kpack object as listed: open spec and status. */
export interface KpackObject extends KubeObject {
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

export interface KpackCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason?: string;
  readonly message?: string;
  readonly lastTransitionTime: string;
}

export function recordAt(value: unknown, key: string): Record<string, unknown> {
  const inner = isRecord(value) ? value[key] : undefined;
  return isRecord(inner) ? inner : {};
}

export function stringAt(value: unknown, key: string): string | undefined {
  const inner = isRecord(value) ? value[key] : undefined;
  return typeof inner === 'string' && inner !== '' ? inner : undefined;
}

export function recordsAt(value: unknown, key: string): Record<string, unknown>[] {
  const inner = isRecord(value) ? value[key] : undefined;
  return Array.isArray(inner) ? inner.filter(isRecord) : [];
}

export function conditionsOf(object: KpackObject | undefined): KpackCondition[] {
  return recordsAt(object?.status, 'conditions').flatMap((entry) => {
    const { type, status, lastTransitionTime } = entry;
    if (typeof type !== 'string' || (status !== 'True' && status !== 'False' && status !== 'Unknown')) return [];
    return [
      {
        type,
        status,
        ...(typeof entry.reason === 'string' && entry.reason !== '' ? { reason: entry.reason } : {}),
        ...(typeof entry.message === 'string' && entry.message !== '' ? { message: entry.message } : {}),
        lastTransitionTime: typeof lastTransitionTime === 'string' ? lastTransitionTime : '',
      },
    ];
  });
}

export function conditionStatus(object: KpackObject | undefined, type: string): KpackCondition['status'] | undefined {
  return conditionsOf(object).find((condition) => condition.type === type)?.status;
}

/** A condition to set: type, status and, unless empty, reason and message. */
export interface ConditionUpdate {
  readonly type: string;
  readonly status: KpackCondition['status'];
  readonly reason?: string;
  readonly message?: string;
}

/** `updates` over the object's conditions, each keeping its transition time while its status holds. */
export function withConditions(
  object: KpackObject,
  updates: readonly ConditionUpdate[],
  now: string,
): KpackCondition[] {
  const previous = conditionsOf(object);
  return updates.map((update) => {
    const before = previous.find((condition) => condition.type === update.type);
    return {
      type: update.type,
      status: update.status,
      ...(update.reason === undefined ? {} : { reason: update.reason }),
      ...(update.message === undefined ? {} : { message: update.message }),
      lastTransitionTime:
        before?.status === update.status && before.lastTransitionTime !== '' ? before.lastTransitionTime : now,
    };
  });
}

/** `namespace/name`, or `name` for a cluster-scoped object. */
export function keyOf(object: KubeObject): string {
  const namespace = object.metadata?.namespace ?? '';
  const name = object.metadata?.name ?? '';
  return namespace === '' ? name : `${namespace}/${name}`;
}

/** The repository of an image reference: the tag and digest dropped. */
export function repositoryOf(reference: string): string {
  const withoutDigest = reference.split('@')[0] ?? reference;
  const slash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > slash ? withoutDigest.slice(0, colon) : withoutDigest;
}

/** JSON with object keys sorted, so that equal values compare equal whatever their key order. */
export function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) =>
    isRecord(inner) ? Object.fromEntries(Object.entries(inner).sort(([a], [b]) => compareStrings(a, b))) : inner,
  );
}

/**
 * Writes `status` as the object's whole status unless it already holds it (a merge patch, fields
 * it no longer has set to null, so no conflict with a spec written meanwhile); returns the object
 * as it is now.
 */
export async function writeStatus(
  client: ObjectClient,
  ref: ResourceRef,
  object: KpackObject,
  status: Record<string, unknown>,
): Promise<KpackObject> {
  const previous = object.status ?? {};
  if (canonical(previous) === canonical(status)) return object;
  const removed = Object.fromEntries(
    Object.keys(previous)
      .filter((key) => !(key in status))
      .map((key) => [key, null]),
  );
  return client.patchStatus<KpackObject>(ref, object.metadata?.namespace ?? '', object.metadata?.name ?? '', 'merge', {
    status: { ...removed, ...status },
  });
}
