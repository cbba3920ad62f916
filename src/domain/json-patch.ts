// RFC 6902 JSON Patch, as the API server accepts it (`application/json-patch+json`) and as admission
// webhooks answer with it. One type for the webhooks, the domain decisions that build patches and
// the Kubernetes client that sends them.

export type JsonPatchOperation =
  | { readonly op: 'add' | 'replace' | 'test'; readonly path: string; readonly value: unknown }
  | { readonly op: 'remove'; readonly path: string }
  | { readonly op: 'move' | 'copy'; readonly from: string; readonly path: string };

/** RFC 6901: `~` becomes `~0` and `/` becomes `~1`, in that order. */
export function escapeJsonPointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

/** RFC 6901's reverse: `~1` becomes `/`, then `~0` becomes `~` (the other order would misread `~01`). */
export function unescapeJsonPointerToken(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}
