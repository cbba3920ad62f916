// HAND-WRITTEN, NOT GITLAB'S: what the GitLab emulator checks where the vendored official
// description (openapi/) has nothing to check against. Kept apart from it on purpose, so that the
// official document is never widened in silence (docs/decisions.md N32). Each entry says what the
// official subset lacks.

/**
 * The official subset documents error statuses (400, 401, 404, 409, 422, ...) on each operation
 * but no body for any of them. GitLab answers `{"message": ...}` (a string, or field → messages for
 * a validation error) or `{"error": "..."}`: gitbeaker's error text is read from these.
 */
export const GITLAB_ERROR_BODY = {
  type: 'object',
  anyOf: [{ required: ['message'] }, { required: ['error'] }],
  properties: {
    message: {
      anyOf: [{ type: 'string' }, { type: 'object' }, { type: 'array', items: { type: 'string' } }],
    },
    error: { type: 'string' },
  },
} as const;

/** Statuses GitLab may answer on any operation, documented there or not. */
export const GITLAB_GENERIC_ERROR_STATUSES: readonly number[] = [401, 403, 404, 429, 500];
