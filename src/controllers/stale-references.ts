// ADR 67 "Stale Reference Handling": keeps each NudgeConfig's `Valid` condition true to the
// Components that exist. Level-triggered: whatever woke it (a Component created or deleted, the
// NudgeConfig edited, a resync), it recomputes from the caches and writes only on a difference, so
// its own status writes cannot loop. It never edits spec: stale entries stay until a human acts.
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import { NUDGE_CONFIG_NAME } from '../domain/model.ts';
import { mergeCondition } from '../domain/conditions.ts';
import { VALID_CONDITION, staleReferences } from '../domain/stale-references.ts';
import type { EventRecorder } from '../runtime/events.ts';
import type { ObjectKey, ReconcileResult, Reconciler } from '../runtime/reconciler.ts';
import { updateStatus } from '../runtime/status.ts';
import type { Store } from '../runtime/store.ts';
import { namespaceNudgeGraph } from '../cluster/nudge-graph.ts';
import { nudgeConfigResourceFor } from '../cluster/nudgeconfig-objects.ts';
import { decodeNudgeConfig } from '../domain/cluster-objects.ts';
import type { ClusterComponent } from '../schema/component.ts';
import type { ClusterNudgeConfig } from '../schema/nudgeconfig.ts';

export interface StaleReferenceReconcilerOptions {
  readonly client: ObjectClient;
  readonly nudgeConfigs: Store<ClusterNudgeConfig>;
  readonly components: Store<ClusterComponent>;
  readonly events?: EventRecorder;
  readonly now?: () => Date;
}

const FIELD_MANAGER = 'nudger-stale-references';

export class StaleReferenceReconciler implements Reconciler {
  readonly name = 'nudgeconfig-stale-references';
  readonly #options: StaleReferenceReconcilerOptions;

  constructor(options: StaleReferenceReconcilerOptions) {
    this.#options = options;
  }

  async reconcile(key: ObjectKey, signal: AbortSignal): Promise<ReconcileResult | undefined> {
    const { nudgeConfigs, components, client, events } = this.#options;
    const cached = nudgeConfigs.get(key.namespace, key.name);
    if (cached === undefined) return undefined; // deleted: nothing to report on
    const existing = new Set(
      components.list(key.namespace).flatMap((c) => (c.metadata?.name === undefined ? [] : [c.metadata.name])),
    );
    const report = staleReferences(entriesOf(cached), existing);
    if (isUpToDate(cached, report.condition)) return undefined;

    const now = (this.#options.now ?? (() => new Date()))().toISOString();
    const outcome = { transitionedToStale: false };
    const written = await updateStatus<ClusterNudgeConfig>(
      client,
      nudgeConfigResourceFor(cached),
      key,
      (read) => {
        // Recompute against the object just read: the cache may trail the server by an edit. It
        // is decoded like the cache's; one that no longer decodes is the informer's to report.
        const decoded = decodeNudgeConfig(read);
        if (!decoded.ok) return undefined;
        const current = decoded.object;
        const fresh = staleReferences(entriesOf(current), existing);
        if (isUpToDate(current, fresh.condition)) return undefined;
        const previous = current.status?.conditions?.find((c) => c.type === VALID_CONDITION);
        outcome.transitionedToStale = fresh.condition.status === 'False' && previous?.status !== 'False';
        const generation = current.metadata?.generation;
        current.status = {
          ...current.status,
          conditions: mergeCondition(current.status?.conditions, fresh.condition, now, generation),
          lastValidationTime: now,
          ...(generation === undefined ? {} : { observedGeneration: generation }),
        };
        return current;
      },
      { signal, fieldManager: FIELD_MANAGER },
    );
    if (written !== undefined && outcome.transitionedToStale && events !== undefined) {
      events.event(written, 'Warning', 'StaleReferences', report.condition.message);
    }
    return undefined;
  }
}

function isUpToDate(
  config: ClusterNudgeConfig,
  condition: { status: string; reason: string; message: string },
): boolean {
  const current = config.status?.conditions?.find((c) => c.type === VALID_CONDITION);
  return (
    current?.status === condition.status &&
    current.reason === condition.reason &&
    current.message === condition.message &&
    config.status?.observedGeneration === config.metadata?.generation &&
    config.status?.lastValidationTime !== undefined
  );
}

/** A Component appearing or disappearing matters to its namespace's singleton NudgeConfig. */
export function nudgeConfigOfComponent(component: ClusterComponent): readonly ObjectKey[] {
  const namespace = component.metadata?.namespace;
  return namespace === undefined ? [] : [{ namespace, name: NUDGE_CONFIG_NAME }];
}

/** The NudgeConfig's own entries, as the one graph reader reads them (no build-nudges-ref here). */
function entriesOf(config: ClusterNudgeConfig): readonly { from: string; to: string }[] {
  return namespaceNudgeGraph(config.metadata?.namespace ?? '', { components: [], nudgeConfig: config }).edges;
}
