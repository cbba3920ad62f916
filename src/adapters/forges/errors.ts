// Forge API failures with one-line messages that name the operation and the repository. They never
// carry the token or an Authorization header: implementations pass their reason text through
// Credentials.redact() before building one.

export class ForgeError extends Error {
  override readonly name = 'ForgeError';
  /** Which forge: `local`, `github`, `gitlab`. */
  readonly forge: string;
  /** The ForgeProvider method that failed, e.g. `createPullRequest`. */
  readonly operation: string;
  /** `owner/name`. */
  readonly repo: string;
  /** HTTP-like status: 404 not found, 409 conflict, 422 invalid (GitHub's codes, used by every forge). */
  readonly status: number | undefined;
  readonly reason: string;
  /**
   * Set when no HTTP answer came back at all: what went wrong on the way (`ECONNREFUSED`,
   * `ENOTFOUND`, `CERT_HAS_EXPIRED`, `timeout`, ...), and the `host:port` it was trying to reach.
   */
  readonly transport: { readonly code: string; readonly host: string } | undefined;

  constructor(init: {
    forge: string;
    operation: string;
    repo: string;
    status?: number;
    reason: string;
    transport?: { code: string; host: string };
  }) {
    const status = init.status === undefined ? '' : ` (${String(init.status)})`;
    super(`${init.forge} ${init.operation} ${init.repo}: ${init.reason}${status}`);
    this.forge = init.forge;
    this.operation = init.operation;
    this.repo = init.repo;
    this.status = init.status;
    this.reason = init.reason;
    this.transport = init.transport;
  }
}

export function isForgeError(error: unknown, status?: number): error is ForgeError {
  return error instanceof ForgeError && (status === undefined || error.status === status);
}
