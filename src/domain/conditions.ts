// Kubernetes condition semantics (metav1 SetStatusCondition), one implementation for every status
// nudger writes: a condition is replaced by type, and its lastTransitionTime moves only when its
// status changes, so a controller that re-derives the same status every reconcile writes nothing new.

/** A `metav1.Condition` as stored, of any type. */
export interface StoredCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  readonly lastTransitionTime?: string;
  readonly observedGeneration?: number;
}

/** Kubernetes condition semantics: `lastTransitionTime` moves only when the status changes. */
export function mergeCondition(
  existing: readonly StoredCondition[] | undefined,
  next: Omit<StoredCondition, 'lastTransitionTime' | 'observedGeneration'>,
  now: string,
  observedGeneration: number | undefined,
): (StoredCondition & { lastTransitionTime: string })[] {
  const others = (existing ?? []).filter((c) => c.type !== next.type);
  const previous = (existing ?? []).find((c) => c.type === next.type);
  const lastTransitionTime =
    previous?.status === next.status && previous.lastTransitionTime !== undefined ? previous.lastTransitionTime : now;
  return [
    ...others.map((c) => ({ ...c, lastTransitionTime: c.lastTransitionTime ?? now })),
    { ...next, lastTransitionTime, ...(observedGeneration === undefined ? {} : { observedGeneration }) },
  ];
}
