// Redaction of text whose secrets nudger does not hold. Credentials.redact (src/adapters/credentials/)
// removes a token nudger knows; text written by someone else (a Tekton condition message quoting a
// Renovate log line, docs/decisions.md N24) may carry a token nudger never saw, or no longer has:
// the renovate executor's Secret is never read back. So what looks like a secret is removed by its
// shape: user information in a URL (as redactUserInfo writes it, `scheme://***@host`), the value
// of an Authorization header or a Bearer/Basic credential, a value whose key names a secret
// (`TOKEN_token_0=…`, `"password": "…"`), a JWT, and the forge token formats GitHub, GitLab and
// Bitbucket document. It over-masks rather than under-masks: a message that loses a word is still a
// message.

const REDACTED = '[redacted]';

const SHAPES: readonly (readonly [RegExp, string])[] = [
  // https://x-access-token:ghs_…@github.com/…: everything between the scheme and the `@`.
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^@/\s]+@/gi, '$1***@'],
  // `Authorization: Bearer …`, `authorization=token …`: the scheme and the value.
  [/\b(authorization["']?\s*[:=]\s*["']?)(?:(?:bearer|basic|token)\s+)?[^\s"',;]+/gi, `$1${REDACTED}`],
  [/\b(bearer|basic)\s+(?!\[redacted\])[A-Za-z0-9._~+/-]{8,}=*/gi, `$1 ${REDACTED}`],
  // A value whose key names a secret: `TOKEN_token_0=…`, `"token": "…"`, `password: …`.
  [
    /\b([\w.-]*(?:token|password|passwd|secret|api[_-]?key|private[_-]?key)[\w.-]*)(["']?\s*[:=]\s*["']?)(?!\[redacted\]|\*\*\*)[^\s"',;&]+/gi,
    `$1$2${REDACTED}`,
  ],
  // A JWT (a GitHub App's, signed with its private key), quoted without its scheme: base64url JSON
  // header and payload, then the signature, which a message cut short may have lost in part.
  [/\beyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]*/g, REDACTED],
  // Forge token formats, wherever they stand.
  [
    /\b(?:gh[pousr]_[A-Za-z0-9_]{16,}|github_pat_[A-Za-z0-9_]{16,}|gl(?:pat|dt|rt|cbt|ptt|ft|imt|agent|oas|soat|ffct)-[A-Za-z0-9_-]{16,}|ATBB[A-Za-z0-9_=.-]{16,})/g,
    REDACTED,
  ],
];

/** `text` with everything shaped like a secret replaced (see above). */
export function redactSecretShapes(text: string): string {
  let result = text;
  for (const [shape, replacement] of SHAPES) result = result.replace(shape, replacement);
  return result;
}
