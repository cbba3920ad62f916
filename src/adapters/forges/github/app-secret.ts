// The GitHub App nudger acts as for tenants without an SCM Secret (docs/decisions.md D9): the
// Pipelines-as-Code Secret's `github-application-id` and `github-private-key`, as build-service
// reads them (its pipelines-as-code-secret in the build-service namespace by default; the manager
// flag --github-app-secret names another). The Secret is read live on every use and the key is
// checked before anything is signed with it; a malformed value is a GitHubAppSecretError naming
// the Secret and the key, never quoting the value. The private key itself leaves only through
// revealPrivateKey(), at the moment a JWT is signed.
import { createPrivateKey } from 'node:crypto';
import type { ObjectClient } from '../../kubernetes/client.ts';
import { isNotFound } from '../../kubernetes/errors.ts';
import { SECRETS } from '../../kubernetes/resources.ts';
import type { KubeObject } from '../../kubernetes/types.ts';
import type { SecretObject } from '../scm-credentials.ts';

/** Where the Secret is: namespace and name. */
export interface SecretRef {
  readonly namespace: string;
  readonly name: string;
}

/** build-service's: `build-service/pipelines-as-code-secret`. */
export const DEFAULT_GITHUB_APP_SECRET: SecretRef = { namespace: 'build-service', name: 'pipelines-as-code-secret' };
export const GITHUB_APP_ID_KEY = 'github-application-id';
export const GITHUB_PRIVATE_KEY_KEY = 'github-private-key';

const REDACTED = '[redacted]';
const inspectCustom = Symbol.for('nodejs.util.inspect.custom');
/** GitHub App ids are positive integers; 19 digits is past any safe integer and refused below. */
const APP_ID = /^[1-9][0-9]{0,18}$/;

/** A malformed App Secret: which Secret, which key, what is wrong (never the value). */
export class GitHubAppSecretError extends Error {
  override readonly name = 'GitHubAppSecretError';
  /** `namespace/name`. */
  readonly secret: string;
  readonly key: string;
  readonly reason: string;

  constructor(secret: string, key: string, reason: string) {
    super(`Secret ${secret} key ${key}: ${reason}`);
    this.secret = secret;
    this.key = key;
    this.reason = reason;
  }
}

/** An App id and its private key; printing it in any way shows the id and the Secret only. */
export class GitHubAppKey {
  readonly appId: number;
  /** `namespace/name` of the Secret it was read from, for messages. */
  readonly secret: string;
  readonly #privateKey: string;

  constructor(appId: number, privateKey: string, secret: string) {
    this.appId = appId;
    this.secret = secret;
    this.#privateKey = privateKey;
  }

  /** The PEM text. Call only where a JWT is signed with it. */
  revealPrivateKey(): string {
    return this.#privateKey;
  }

  toString(): string {
    return `GitHubAppKey(${String(this.appId)} from ${this.secret}: ${REDACTED})`;
  }

  toJSON(): { appId: number; secret: string; privateKey: string } {
    return { appId: this.appId, secret: this.secret, privateKey: REDACTED };
  }

  [inspectCustom](): string {
    return this.toString();
  }
}

export function formatSecretRef(ref: SecretRef): string {
  return `${ref.namespace}/${ref.name}`;
}

/**
 * `namespace/name` as the flag gives it; undefined for `none` (no App). Throws TypeError naming
 * the value when it is neither.
 */
export function parseSecretRef(value: string): SecretRef | undefined {
  if (value === 'none') return undefined;
  const match = /^([a-z0-9](?:[-a-z0-9]*[a-z0-9])?)\/([a-z0-9](?:[-.a-z0-9]*[a-z0-9])?)$/.exec(value);
  if (match?.[1] === undefined || match[2] === undefined) {
    throw new TypeError(`"${value}" is neither <namespace>/<name> of a Secret nor "none"`);
  }
  return { namespace: match[1], name: match[2] };
}

function decoded(secret: SecretObject, key: string): string | undefined {
  const value = secret.data?.[key];
  if (value === undefined) return undefined;
  const text = Buffer.from(value, 'base64').toString('utf8').trim();
  return text === '' ? undefined : text;
}

/**
 * The App of an already-read Secret: undefined when it holds neither key (Pipelines-as-Code
 * without a GitHub App, e.g. only webhook secrets); a GitHubAppSecretError when it holds one key
 * only, or a value that is not an App id or an RSA private key.
 */
export function gitHubAppKeyOf(secret: SecretObject, ref: SecretRef): GitHubAppKey | undefined {
  const shown = formatSecretRef(ref);
  const appId = decoded(secret, GITHUB_APP_ID_KEY);
  // Keys kept in environment variables often carry `\n` escapes; the JWT library undoes them too.
  const privateKey = decoded(secret, GITHUB_PRIVATE_KEY_KEY)?.replace(/\\n/g, '\n');
  if (appId === undefined && privateKey === undefined) return undefined;
  if (appId === undefined)
    throw new GitHubAppSecretError(shown, GITHUB_APP_ID_KEY, `is missing or empty beside ${GITHUB_PRIVATE_KEY_KEY}`);
  if (privateKey === undefined) {
    throw new GitHubAppSecretError(shown, GITHUB_PRIVATE_KEY_KEY, `is missing or empty beside ${GITHUB_APP_ID_KEY}`);
  }
  const id = Number(appId);
  if (!APP_ID.test(appId) || !Number.isSafeInteger(id)) {
    throw new GitHubAppSecretError(shown, GITHUB_APP_ID_KEY, 'is not a GitHub App id (a positive integer)');
  }
  let type: string | undefined;
  try {
    type = createPrivateKey(privateKey).asymmetricKeyType;
  } catch {
    // OpenSSL's message is dropped: nothing about the value may reach a log or a status.
    type = undefined;
  }
  if (type !== 'rsa') {
    throw new GitHubAppSecretError(shown, GITHUB_PRIVATE_KEY_KEY, 'is not a PEM-encoded RSA private key');
  }
  return new GitHubAppKey(id, privateKey, shown);
}

/** Reads the Secret now; undefined when it does not exist or holds no App. */
export async function readGitHubAppKey(
  client: Pick<ObjectClient, 'get'>,
  ref: SecretRef,
  signal?: AbortSignal,
): Promise<GitHubAppKey | undefined> {
  let secret: KubeObject & SecretObject;
  try {
    secret = await client.get<KubeObject & SecretObject>(SECRETS, ref.namespace, ref.name, signal);
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
  return gitHubAppKeyOf(secret, ref);
}
