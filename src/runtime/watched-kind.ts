// What an informer watches and how it reads what it gets: the resource, and the decoder that turns
// a raw object into the typed one every reader of the cache then holds. Decoding happens once, as
// the object enters the cache (src/runtime/informer.ts); a malformed object never enters it. The
// kinds nudger watches are declared in src/cluster/watched-kinds.ts.
import type { KubeObject, ResourceRef } from '../adapters/kubernetes/types.ts';
import type { DecodeResult } from '../domain/schema-validation.ts';

export type { DecodeProblem, DecodeResult } from '../domain/schema-validation.ts';

export interface WatchedKind<T extends KubeObject> {
  readonly resource: ResourceRef;
  /** The typed object, or the fields that do not match; never throws. */
  decode(raw: KubeObject): DecodeResult<T>;
}
