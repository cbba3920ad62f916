// How nudger names an object in messages, logs and errors: `namespace/name`, or the name alone for
// a cluster-scoped object. One definition, so that a grep for what a log line says finds every
// place that could have said it. (The work queue encodes its keys differently on purpose: see
// keyOf in src/runtime/workqueue.ts.)

export interface ObjectKey {
  readonly namespace: string;
  readonly name: string;
}

export function formatObjectKey(key: ObjectKey): string {
  return key.namespace === '' ? key.name : `${key.namespace}/${key.name}`;
}
