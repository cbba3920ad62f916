// A forge token as a value that cannot be printed by accident: every way Node turns an object into
// text (String(), template strings, JSON.stringify, util.inspect, console.log, Error messages)
// yields a redacted form. The token itself lives in a private field and leaves only through
// revealToken(), which the git adapter and forge clients call at the last moment.

const REDACTED = '[redacted]';
const inspectCustom = Symbol.for('nodejs.util.inspect.custom');

export interface CredentialsInit {
  readonly token: string;
  /**
   * The user name paired with the token for HTTP Basic auth over git. GitHub accepts
   * `x-access-token` for installation and personal tokens; GitLab expects `oauth2`.
   */
  readonly username?: string;
}

export class Credentials {
  readonly username: string;
  readonly #token: string;

  constructor(init: CredentialsInit) {
    if (init.token.length === 0) throw new TypeError('Credentials: the token must not be empty');
    this.username = init.username ?? 'x-access-token';
    this.#token = init.token;
  }

  /** The secret itself. Call only where it goes straight into a request header. */
  revealToken(): string {
    return this.#token;
  }

  /** Replaces every occurrence of the token (and its Basic-auth encoding) in `text`. */
  redact(text: string): string {
    return redactSecrets(text, [this.#token, basicAuthValue(this.username, this.#token)]);
  }

  toString(): string {
    return `Credentials(${this.username}:${REDACTED})`;
  }

  toJSON(): { username: string; token: string } {
    return { username: this.username, token: REDACTED };
  }

  [inspectCustom](): string {
    return this.toString();
  }
}

/** `base64(user:token)`, the value after `Basic ` in an Authorization header. */
export function basicAuthValue(username: string, token: string): string {
  return Buffer.from(`${username}:${token}`, 'utf8').toString('base64');
}

/** `text` with every non-empty secret replaced by `[redacted]`. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let result = text;
  for (const secret of secrets) {
    if (secret.length > 0) result = result.split(secret).join(REDACTED);
  }
  return result;
}

/** `https://user:secret@host/…` → `https://***@host/…`; other text unchanged. */
export function redactUserInfo(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/\s]*@/i, '$1***@');
}
