// HTTP to an OCI distribution registry with its auth dance: a request goes out with what we already
// hold for the host; a 401 names the scheme in WWW-Authenticate; Basic answers with the host's
// credentials, Bearer fetches a token from the challenge's realm (with the host's credentials as
// Basic, or anonymously) for the repository scope, and the request is repeated once. Credentials
// go only to the registry's own host and the realm it names; redirects are followed by hand so
// that no hop goes to plain HTTP off loopback and none carries our Authorization header away
// (docs/decisions.md N40). Node's fetch, no library: the protocol is a handful of requests.
import { basicAuthValue, type Credentials } from '../credentials/credentials.ts';
import { RegistryAuthError, RegistryRequestError } from './errors.ts';
import { assertSecureUrl, registryBaseUrl, type ImageReference, type RegistryScheme } from './reference.ts';

/** Credentials per registry (`host[:port]` as written in references); undefined: anonymous. */
export type RegistryCredentialsLookup = (registry: string) => Credentials | undefined;

export interface TransportOptions {
  readonly credentials?: RegistryCredentialsLookup;
  readonly fetch?: typeof fetch;
  /** Scheme for loopback registries; default `http`. Other hosts are always HTTPS. */
  readonly loopbackScheme?: RegistryScheme;
  /** Per request; default 30 s. */
  readonly requestTimeoutMs?: number;
}

export type Access = 'pull' | 'pull,push';

export interface RegistryRequest {
  readonly method: 'GET' | 'HEAD' | 'POST' | 'PUT';
  /** A path under the registry's base URL, or an absolute URL (an upload Location). */
  readonly target: string;
  readonly headers?: Readonly<Record<string, string>>;
  readonly body?: Uint8Array;
  readonly access: Access;
}

export interface Challenge {
  readonly scheme: string;
  readonly params: Readonly<Record<string, string>>;
}

/** The first challenge of a WWW-Authenticate header: `Bearer realm="…",service="…",scope="…"`. */
export function parseChallenge(header: string | null): Challenge | undefined {
  if (header === null) return undefined;
  const match = /^\s*([A-Za-z][\w-]*)\s*(.*)$/s.exec(header);
  if (match === null) return undefined;
  const params: Record<string, string> = {};
  const paramPattern = /([A-Za-z][\w-]*)\s*=\s*(?:"((?:[^"\\]|\\.)*)"|([^\s,]*))\s*,?\s*/gy;
  const rest = match[2] ?? '';
  let param: RegExpExecArray | null;
  while ((param = paramPattern.exec(rest)) !== null && param[0] !== '') {
    const key = (param[1] ?? '').toLowerCase();
    params[key] = param[2] === undefined ? (param[3] ?? '') : param[2].replace(/\\(.)/g, '$1');
  }
  return { scheme: (match[1] ?? '').toLowerCase(), params };
}

const MAX_REDIRECTS = 5;

export class RegistryTransport {
  readonly #options: TransportOptions;
  readonly #fetch: typeof fetch;
  /** Authorization header values by `registry scope`, reused until the registry refuses one. */
  readonly #authorizations = new Map<string, string>();

  constructor(options: TransportOptions = {}) {
    this.#options = options;
    this.#fetch = options.fetch ?? fetch;
  }

  baseUrl(ref: ImageReference): URL {
    return registryBaseUrl(ref, this.#options.loopbackScheme);
  }

  /** Sends `request`, authenticating on a 401 once; resolves with any final status. */
  async send(ref: ImageReference, request: RegistryRequest): Promise<Response> {
    const base = this.baseUrl(ref);
    const scope = `repository:${ref.repository}:${request.access}`;
    const key = `${ref.registry} ${scope}`;
    const first = await this.#sendFollowing(ref, base, request, this.#authorizations.get(key));
    if (first.status !== 401) return first;
    const challenge = parseChallenge(first.headers.get('www-authenticate'));
    await first.body?.cancel();
    const authorization = await this.#authorize(ref, challenge, scope);
    this.#authorizations.set(key, authorization);
    const second = await this.#sendFollowing(ref, base, request, authorization);
    if (second.status === 401 || second.status === 403) {
      await second.body?.cancel();
      this.#authorizations.delete(key);
      throw new RegistryAuthError(ref.original, ref.registry, second.status, 'the credentials were not accepted');
    }
    return second;
  }

  /** One request and its redirects; the Authorization header only ever goes to the registry. */
  async #sendFollowing(
    ref: ImageReference,
    base: URL,
    request: RegistryRequest,
    authorization: string | undefined,
  ): Promise<Response> {
    let url = new URL(request.target, base);
    for (let hop = 0; ; hop++) {
      assertSecureUrl(ref.original, url);
      const headers: Record<string, string> = { ...request.headers };
      if (authorization !== undefined && url.host === base.host) headers.authorization = authorization;
      const response = await this.#fetchOnce(ref, url, request.method, headers, request.body);
      const location = response.headers.get('location');
      const isRedirect = [301, 302, 303, 307, 308].includes(response.status);
      if (!isRedirect || location === null) return response;
      await response.body?.cancel();
      if (hop >= MAX_REDIRECTS) {
        throw new RegistryRequestError(
          ref.original,
          request.method,
          url.pathname,
          response.status,
          'too many redirects',
        );
      }
      url = new URL(location, url);
    }
  }

  async #fetchOnce(
    ref: ImageReference,
    url: URL,
    method: string,
    headers: Record<string, string>,
    body: Uint8Array | undefined,
  ): Promise<Response> {
    try {
      return await this.#fetch(url, {
        method,
        headers,
        ...(body === undefined ? {} : { body }),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.#options.requestTimeoutMs ?? 30_000),
      });
    } catch (error) {
      // fetch's messages carry no headers; the cause (ECONNREFUSED, timeout) is the telling part.
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : '';
      const reason = error instanceof Error ? `${error.message}${cause === '' ? '' : ` (${cause})`}` : String(error);
      throw new RegistryRequestError(ref.original, method, url.pathname, undefined, reason);
    }
  }

  async #authorize(ref: ImageReference, challenge: Challenge | undefined, scope: string): Promise<string> {
    const credentials = this.#options.credentials?.(ref.registry);
    const refuse = (reason: string): never => {
      throw new RegistryAuthError(ref.original, ref.registry, 401, reason);
    };
    if (challenge === undefined) return refuse('no WWW-Authenticate challenge came with the 401');
    if (challenge.scheme === 'basic') {
      if (credentials === undefined) return refuse('it asks for Basic credentials and none are configured for it');
      return `Basic ${basicAuthValue(credentials.username, credentials.revealToken())}`;
    }
    if (challenge.scheme !== 'bearer') return refuse(`unsupported auth scheme ${challenge.scheme}`);
    const realm = challenge.params.realm;
    if (realm === undefined || realm === '') return refuse('its Bearer challenge names no realm');
    let tokenUrl: URL;
    try {
      tokenUrl = new URL(realm);
    } catch {
      return refuse('its Bearer realm is not a URL');
    }
    assertSecureUrl(ref.original, tokenUrl);
    if (challenge.params.service !== undefined) tokenUrl.searchParams.set('service', challenge.params.service);
    tokenUrl.searchParams.set('scope', challenge.params.scope ?? scope);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (credentials !== undefined) {
      headers.authorization = `Basic ${basicAuthValue(credentials.username, credentials.revealToken())}`;
    }
    const response = await this.#fetchOnce(ref, tokenUrl, 'GET', headers, undefined);
    if (!response.ok) {
      await response.body?.cancel();
      throw new RegistryAuthError(
        ref.original,
        tokenUrl.host,
        response.status,
        `the token service refused ${credentials === undefined ? 'anonymous' : 'our'} access to ${scope}`,
      );
    }
    let body: unknown;
    try {
      body = await response.json();
    } catch {
      return refuse('the token service answered with no JSON');
    }
    const token =
      typeof body === 'object' && body !== null
        ? ((body as { token?: unknown }).token ?? (body as { access_token?: unknown }).access_token)
        : undefined;
    if (typeof token !== 'string' || token === '') return refuse('the token service answered with no token');
    return `Bearer ${token}`;
  }
}

/**
 * The body, at most `limit` bytes (a larger one is refused without reading on), as bytes.
 * Registry errors come as JSON `{errors: [{code, message}]}`; `describeFailure` reads those.
 */
export async function readLimited(
  ref: ImageReference,
  method: string,
  path: string,
  response: Response,
  limit: number,
): Promise<Uint8Array> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  const tooLarge = (): RegistryRequestError =>
    new RegistryRequestError(ref.original, method, path, response.status, `response larger than ${limit} bytes`);
  if (declared > limit) {
    await response.body?.cancel();
    throw tooLarge();
  }
  if (response.body === null) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const body: AsyncIterable<Uint8Array> = response.body;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > limit) throw tooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** `CODE: message` of a registry error body, else the status text; bounded. */
export async function describeFailure(response: Response): Promise<string> {
  let text = '';
  try {
    text = (await response.text()).slice(0, 4096);
  } catch {
    // no body: the status says it
  }
  try {
    const parsed = JSON.parse(text) as { errors?: { code?: unknown; message?: unknown }[] };
    const errors = (parsed.errors ?? []).map((e) => `${String(e.code)}: ${String(e.message)}`);
    if (errors.length > 0) return errors.join('; ').slice(0, 500);
  } catch {
    // not a registry error body
  }
  return response.statusText === '' ? 'unexpected status' : response.statusText;
}
