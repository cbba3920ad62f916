// The one test for "a JSON object" (not null, not an array) used wherever untyped input is read:
// manifests, admission requests, cluster objects and API answers.

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
