// CRDs written for current Kubernetes, made acceptable to kube-apiserver v1.20 (docs/decisions.md D7:
// only here, in the local control plane of the tests and the sandbox; shipped manifests keep
// targeting current Kubernetes).
// Pure: no I/O. The input is never modified.
//
// What v1.20 actually does with newer CRDs (found by installing the upstream CRDs on it):
// - `x-kubernetes-validations` (CEL, 1.25+): v1.20 decodes non-strictly and silently drops it, so
//   the CRD is accepted but the rules are not enforced. Stripped anyway, so that what is installed
//   is exactly what is enforced.
// - `default: ""` on a string (what Kubernetes >= 1.30 API types generate for
//   LocalObjectReference.name, e.g. 20 times in Tekton's PipelineRun CRD): v1.20's default
//   validation sees the empty string as null and refuses the whole CRD ("Invalid value: "null":
//   in body must be of type string"). Dropped: an absent name reads as "" to every consumer.
// - `x-kubernetes-map-type`, `x-kubernetes-list-type`/`-map-keys`, `x-kubernetes-int-or-string`,
//   `nullable`, `anyOf`, other defaults, Tekton's conversion webhook: accepted as they are.

import { isRecord } from '../../domain/records.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

function cloneJson(value: unknown): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}

/** Every nested JSON-schema node: properties, items, additionalProperties, anyOf/allOf/oneOf/not. */
function* schemaNodes(schema: Record<string, unknown>): Generator<Record<string, unknown>> {
  yield schema;
  const children: unknown[] = [];
  if (isRecord(schema.properties)) children.push(...Object.values(schema.properties));
  if (isRecord(schema.patternProperties)) children.push(...Object.values(schema.patternProperties));
  if (isRecord(schema.definitions)) children.push(...Object.values(schema.definitions));
  if (Array.isArray(schema.items)) children.push(...(schema.items as unknown[]));
  else children.push(schema.items);
  children.push(schema.additionalProperties, schema.additionalItems, schema.not);
  for (const key of ['anyOf', 'allOf', 'oneOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) children.push(...(list as unknown[]));
  }
  for (const child of children) if (isRecord(child)) yield* schemaNodes(child);
}

/**
 * A copy of `crd` (an apiextensions.k8s.io/v1 CustomResourceDefinition object) that kube-apiserver
 * v1.20 accepts and enforces the same way except for CEL: in every version's schema it strips
 * `x-kubernetes-validations` and empty-string defaults, and it drops version fields v1.20 lacks.
 */
export function adaptCrdForV120(crd: Record<string, unknown>): Record<string, unknown> {
  const copy = cloneJson(crd) as Record<string, unknown>;
  const spec = copy.spec;
  if (!isRecord(spec) || !Array.isArray(spec.versions)) return copy;
  for (const version of spec.versions as unknown[]) {
    if (!isRecord(version)) continue;
    delete version.selectableFields; // 1.30+
    const schema = isRecord(version.schema) ? version.schema.openAPIV3Schema : undefined;
    if (!isRecord(schema)) continue;
    for (const node of schemaNodes(schema)) {
      delete node['x-kubernetes-validations'];
      if (node.default === '') delete node.default;
    }
  }
  return copy;
}
