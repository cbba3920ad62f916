// The Konflux convention for forge credentials: a Secret in the tenant namespace labelled
// `appstudio.redhat.com/credentials=scm` and `appstudio.redhat.com/scm.host=<host>`, optionally
// annotated `appstudio.redhat.com/scm.repository` with the repositories it is for. This module only
// chooses among Secrets already read; the token leaves it wrapped in Credentials.
import { Credentials } from '../credentials/credentials.ts';
import { compareStrings } from '../../domain/compare.ts';

export const SCM_CREDENTIALS_LABEL = 'appstudio.redhat.com/credentials';
export const SCM_CREDENTIALS_VALUE = 'scm';
export const SCM_HOST_LABEL = 'appstudio.redhat.com/scm.host';
export const SCM_REPOSITORY_ANNOTATION = 'appstudio.redhat.com/scm.repository';

export interface SecretObject {
  readonly metadata?: {
    readonly name?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
  };
  readonly type?: string;
  /** base64 values, as the API returns them. */
  readonly data?: Readonly<Record<string, string>>;
}

/**
 * The `scm.host` label value for a repository host: the host name without a port, since a label
 * value cannot hold `:` (and Konflux labels Secrets with the bare host name).
 */
export function scmHostLabelValue(host: string): string {
  return host.replace(/:[0-9]+$/, '');
}

/** The label selector that lists a host's SCM Secrets. */
export function scmSecretSelector(host: string): string {
  return `${SCM_CREDENTIALS_LABEL}=${SCM_CREDENTIALS_VALUE},${SCM_HOST_LABEL}=${scmHostLabelValue(host)}`;
}

/**
 * How well a Secret's repository annotation matches `owner/name`: 3 exact, 2 `owner/*` (or a
 * longer prefix wildcard), 1 no annotation (host-wide), 0 annotated for other repositories.
 */
export function repositoryMatch(annotation: string | undefined, repository: string): number {
  if (annotation === undefined || annotation.trim() === '') return 1;
  let best = 0;
  for (const raw of annotation.split(',')) {
    const entry = raw
      .trim()
      .replace(/^\/+|\/+$/g, '')
      .replace(/\.git$/, '');
    if (entry === '') continue;
    if (entry === repository) return 3;
    if (entry.endsWith('/*') && repository.startsWith(entry.slice(0, -1))) best = 2;
  }
  return best;
}

export type ScmSecretChoice =
  | { readonly ok: true; readonly secret: string; readonly credentials: Credentials }
  | { readonly ok: false; readonly reason: string };

function decode(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const text = Buffer.from(value, 'base64').toString('utf8').trim();
  return text === '' ? undefined : text;
}

/** The best Secret for `owner/name` on `host`; reasons name Secrets and keys, never values. */
export function chooseScmSecret(secrets: readonly SecretObject[], host: string, repository: string): ScmSecretChoice {
  const ranked = secrets
    .filter((s) => s.metadata?.labels?.[SCM_HOST_LABEL] === scmHostLabelValue(host))
    .map((s) => ({
      secret: s,
      score: repositoryMatch(s.metadata?.annotations?.[SCM_REPOSITORY_ANNOTATION], repository),
    }))
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || compareStrings(a.secret.metadata?.name ?? '', b.secret.metadata?.name ?? ''));
  const chosen = ranked[0]?.secret;
  if (chosen === undefined) {
    return {
      ok: false,
      reason: `no Secret labelled ${scmSecretSelector(host)} is for ${repository}`,
    };
  }
  const name = chosen.metadata?.name ?? '';
  const token = decode(chosen.data?.password) ?? decode(chosen.data?.token);
  if (token === undefined) {
    return { ok: false, reason: `Secret ${name} has neither a "password" nor a "token" key with a value` };
  }
  const username = decode(chosen.data?.username);
  return {
    ok: true,
    secret: name,
    credentials: new Credentials({ token, ...(username === undefined ? {} : { username }) }),
  };
}
