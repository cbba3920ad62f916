// The one test for "a JSON object" (not null, not an array), used wherever untyped input is read:
// manifests, admission requests, cluster objects, API answers, and the CRD generator. It lives in
// the innermost layer so that the schema's own tools can use it too; src/domain/records.ts
// re-exports it for everything else.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
