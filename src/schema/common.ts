// Schema fragments shared by every nudger CRD. Each fragment is plain JSON Schema (TypeBox), so
// the same object feeds the generated CRD, ajv at runtime and the TypeScript types.
import Type, { type Static, type TSchema } from 'typebox';
import { DNS1123_LABEL_MAX_LENGTH, DNS1123_LABEL_PATTERN } from './names.ts';

/** The Kubernetes extensions to OpenAPI that nudger's schemas may carry, for the CRD and for ajv. */
export const KUBERNETES_SCHEMA_EXTENSIONS = [
  'x-kubernetes-validations',
  'x-kubernetes-list-type',
  'x-kubernetes-list-map-keys',
  'x-kubernetes-map-type',
  'x-kubernetes-preserve-unknown-fields',
  'x-kubernetes-int-or-string',
  'x-kubernetes-embedded-resource',
] as const;

/** A Component name: Kubernetes requires DNS-1123 labels for the objects nudges point at. */
export const ComponentName = Type.String({
  minLength: 1,
  maxLength: DNS1123_LABEL_MAX_LENGTH,
  pattern: DNS1123_LABEL_PATTERN,
});

/** A string enum with `type: string`, which structural CRD schemas require beside `enum`. */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** `metav1.Condition`, with the API server's own limits. */
export const Condition = Type.Object({
  type: Type.String({
    maxLength: 316,
    pattern:
      '^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*/)?(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])$',
  }),
  status: StringEnum(['True', 'False', 'Unknown'] as const),
  reason: Type.String({ minLength: 1, maxLength: 1024, pattern: '^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$' }),
  message: Type.String({ maxLength: 32768 }),
  lastTransitionTime: Type.String({ format: 'date-time' }),
  observedGeneration: Type.Optional(Type.Integer({ minimum: 0 })),
});
export type Condition = Static<typeof Condition>;

/** The part of ObjectMeta nudger reads from manifests; the rest passes through untouched. */
export const ObjectMeta = Type.Object(
  {
    name: Type.Optional(Type.String()),
    namespace: Type.Optional(Type.String()),
    labels: Type.Optional(Type.Record(Type.String(), Type.String())),
    annotations: Type.Optional(Type.Record(Type.String(), Type.String())),
  },
  { additionalProperties: true },
);

/**
 * ObjectMeta as the API server serves it, in the objects nudger reads from the cluster: the fields
 * the runtime and the controllers read, typed as the API server guarantees them (it sets or checks
 * every one), so checking them again refuses no real object. The rest passes through untouched.
 */
export const ClusterObjectMeta = Type.Object(
  {
    name: Type.Optional(Type.String()),
    generateName: Type.Optional(Type.String()),
    namespace: Type.Optional(Type.String()),
    uid: Type.Optional(Type.String()),
    resourceVersion: Type.Optional(Type.String()),
    generation: Type.Optional(Type.Integer()),
    // null in the object of an admission request on CREATE: the API server sets it after admission.
    creationTimestamp: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    deletionTimestamp: Type.Optional(Type.String()),
    labels: Type.Optional(Type.Record(Type.String(), Type.String())),
    annotations: Type.Optional(Type.Record(Type.String(), Type.String())),
    finalizers: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: true },
);
export type ClusterObjectMeta = Static<typeof ClusterObjectMeta>;

/**
 * The envelope every cluster object shares. A LIST leaves `apiVersion` and `kind` off its items
 * for built-in kinds, so neither is required; the informer knows the kind it watches.
 */
export const ClusterEnvelope = {
  apiVersion: Type.Optional(Type.String()),
  kind: Type.Optional(Type.String()),
  metadata: Type.Optional(ClusterObjectMeta),
};

/**
 * Another service's kind as the API server serves it: the envelope, then `spec` and `status`, each
 * optional (no CRD root requires them) and open, like every object nudger decodes.
 */
export function ClusterKind<Spec extends TSchema, Status extends TSchema>(spec: Spec, status: Status) {
  return Type.Object(
    { ...ClusterEnvelope, spec: Type.Optional(spec), status: Type.Optional(status) },
    { additionalProperties: true },
  );
}
