// The ChangeGroups of a namespace as the hold decision, ChangeGroup admission and the nudge sweeper
// read them from the informer cache: one reader for the webhooks and the controllers.
import { changeGroupView } from '../domain/changegroup/admission.ts';
import type { ChangeGroupView } from '../domain/changegroup/hold-decision.ts';
import type { Store } from '../runtime/store.ts';
import type { ClusterChangeGroup } from '../schema/changegroup.ts';

export interface ChangeGroupSource {
  inNamespace(namespace: string): readonly ChangeGroupView[];
}

export class StoreChangeGroupSource implements ChangeGroupSource {
  readonly #store: Store<ClusterChangeGroup>;

  constructor(store: Store<ClusterChangeGroup>) {
    this.#store = store;
  }

  inNamespace(namespace: string): readonly ChangeGroupView[] {
    // Being deleted: it holds nothing more, and it no longer blocks a successor at admission.
    return this.#store
      .list(namespace)
      .filter((object) => object.metadata?.deletionTimestamp === undefined)
      .map((object) => changeGroupView(object, namespace));
  }
}
