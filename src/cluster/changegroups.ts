// The ChangeGroups of a namespace as the hold decision, ChangeGroup admission and the nudge sweeper
// read them from the informer cache: one reader for the webhooks and the controllers.
import type { KubeObject } from '../adapters/kubernetes/types.ts';
import { readChangeGroupView } from '../domain/changegroup/admission.ts';
import type { ChangeGroupView } from '../domain/changegroup/hold-decision.ts';
import type { Store } from '../runtime/store.ts';

export interface ChangeGroupSource {
  inNamespace(namespace: string): readonly ChangeGroupView[];
}

export class StoreChangeGroupSource implements ChangeGroupSource {
  readonly #store: Store<KubeObject>;

  constructor(store: Store<KubeObject>) {
    this.#store = store;
  }

  inNamespace(namespace: string): readonly ChangeGroupView[] {
    return this.#store.list(namespace).flatMap((object) => {
      // Being deleted: it holds nothing more, and it no longer blocks a successor at admission.
      if (object.metadata?.deletionTimestamp !== undefined) return [];
      const view = readChangeGroupView(object, namespace);
      return view === undefined ? [] : [view];
    });
  }
}
