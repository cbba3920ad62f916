// Registry credentials from a space's kpack service account's Secrets, in the forms kpack reads
// (docs/decisions.md N41): `kubernetes.io/dockerconfigjson`, the legacy `kubernetes.io/dockercfg`,
// and `kubernetes.io/basic-auth` annotated `kpack.io/docker: <registry>`. Pure: Secret data in,
// `(registry, username, password)` out; a malformed Secret is skipped and named, never its values.

/** The Secret as read from the API server: `data` values are base64. */
export interface SecretView {
  readonly metadata?: { readonly name?: string; readonly annotations?: Readonly<Record<string, string>> };
  readonly type?: string;
  readonly data?: Readonly<Record<string, string>>;
}

export interface RegistryAuth {
  /** `host[:port]`, as image references write it. */
  readonly registry: string;
  readonly username: string;
  readonly password: string;
}

export const KPACK_DOCKER_ANNOTATION = 'kpack.io/docker';

/** base64 → UTF-8 text, with web APIs only (the pure core imports no Node built-in). */
function decode(value: string): string {
  try {
    return new TextDecoder().decode(Uint8Array.from(atob(value), (c) => c.charCodeAt(0)));
  } catch {
    return '';
  }
}

/** `https://index.docker.io/v1/` → `index.docker.io`; `registry:5000` stays. */
export function registryHostOf(key: string): string {
  const withoutScheme = key.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  const host = withoutScheme.split('/')[0] ?? '';
  return host.toLowerCase();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function authsOf(entries: Record<string, unknown>): RegistryAuth[] {
  const result: RegistryAuth[] = [];
  for (const [key, entry] of Object.entries(entries)) {
    if (!isRecord(entry)) continue;
    let username = typeof entry.username === 'string' ? entry.username : '';
    let password = typeof entry.password === 'string' ? entry.password : '';
    if ((username === '' || password === '') && typeof entry.auth === 'string') {
      const pair = decode(entry.auth);
      const colon = pair.indexOf(':');
      if (colon > 0) {
        username = pair.slice(0, colon);
        password = pair.slice(colon + 1);
      }
    }
    if (username !== '' && password !== '') result.push({ registry: registryHostOf(key), username, password });
  }
  return result;
}

/**
 * The registry credentials a Secret holds; `problem` names the Secret and the key when its data
 * does not parse (the values are never quoted).
 */
export function registryAuthsOf(secret: SecretView): { auths: RegistryAuth[]; problem?: string } {
  const name = secret.metadata?.name ?? '(unnamed)';
  const data = secret.data ?? {};
  const parse = (key: string): unknown => {
    const text = data[key];
    if (text === undefined) return undefined;
    try {
      return JSON.parse(decode(text)) as unknown;
    } catch {
      return null;
    }
  };
  switch (secret.type) {
    case 'kubernetes.io/dockerconfigjson': {
      const config = parse('.dockerconfigjson');
      if (!isRecord(config) || !isRecord(config.auths)) {
        return { auths: [], problem: `Secret ${name}: .dockerconfigjson is not a Docker config with "auths"` };
      }
      return { auths: authsOf(config.auths) };
    }
    case 'kubernetes.io/dockercfg': {
      const config = parse('.dockercfg');
      if (!isRecord(config)) return { auths: [], problem: `Secret ${name}: .dockercfg is not a JSON object` };
      return { auths: authsOf(config) };
    }
    case 'kubernetes.io/basic-auth': {
      const registry = secret.metadata?.annotations?.[KPACK_DOCKER_ANNOTATION];
      if (registry === undefined) return { auths: [] };
      const username = data.username === undefined ? '' : decode(data.username);
      const password = data.password === undefined ? '' : decode(data.password);
      if (username === '' || password === '') {
        return { auths: [], problem: `Secret ${name}: basic-auth without a username or password` };
      }
      return { auths: [{ registry: registryHostOf(registry), username, password }] };
    }
    default:
      return { auths: [] };
  }
}
