// The droplet's process types and ports, read from the built image's config through the registry
// client (docs/decisions.md D13, N40, N41): the `io.buildpacks.build.metadata` label's processes,
// each command written as Korifi writes it, and the `ExposedPorts` numbers. As Korifi does, the
// registry is read with the space's kpack service account's Secrets, and the droplet names that
// account's image pull secrets.
import { Credentials } from '../../adapters/credentials/credentials.ts';
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { KubeApiError } from '../../adapters/kubernetes/errors.ts';
import { SECRETS, SERVICE_ACCOUNTS } from '../../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import { RegistryClient, type RegistryClientOptions } from '../../adapters/registry/client.ts';
import { dropletCommand, parseBuildMetadata } from '../../adapters/registry/image-metadata.ts';
import type { DropletImageConfig, LocalObjectReference } from '../../domain/korifi/build-workload-status.ts';
import { KPACK_SERVICE_ACCOUNT } from '../../domain/korifi/labels.ts';
import { registryAuthsOf, type SecretView } from '../../domain/korifi/registry-secrets.ts';
import type { DropletReader } from './build-workload-reconciler.ts';

type ServiceAccount = KubeObject & {
  secrets?: readonly { name?: string }[];
  imagePullSecrets?: readonly { name?: string }[];
};

export interface SpaceRegistryAccess {
  /** Credentials per registry host from the account's Secrets; undefined: none for that host. */
  readonly credentials: (registry: string) => Credentials | undefined;
  readonly imagePullSecrets: readonly LocalObjectReference[];
}

/** 404 (none made) and 403 (not granted): read anonymously or with the manager's access. */
function isAbsent(error: unknown): boolean {
  return error instanceof KubeApiError && (error.statusCode === 404 || error.statusCode === 403);
}

/** The space's `kpack-service-account`: its Secrets' registry credentials and its pull secrets. */
export async function spaceRegistryAccess(
  client: ObjectClient,
  namespace: string,
  signal?: AbortSignal,
): Promise<SpaceRegistryAccess> {
  let account: ServiceAccount;
  try {
    account = await client.get<ServiceAccount>(SERVICE_ACCOUNTS, namespace, KPACK_SERVICE_ACCOUNT, signal);
  } catch (error) {
    if (isAbsent(error)) return { credentials: () => undefined, imagePullSecrets: [] };
    throw error;
  }
  const names = (list: readonly { name?: string }[] | undefined) =>
    (list ?? []).map((ref) => ref.name).filter((name): name is string => name !== undefined && name !== '');
  const byHost = new Map<string, Credentials>();
  for (const name of new Set([...names(account.secrets), ...names(account.imagePullSecrets)])) {
    let secret: SecretView;
    try {
      secret = await client.get<KubeObject & SecretView>(SECRETS, namespace, name, signal);
    } catch (error) {
      if (isAbsent(error)) continue;
      throw error;
    }
    for (const auth of registryAuthsOf(secret).auths) {
      if (!byHost.has(auth.registry)) {
        byHost.set(auth.registry, new Credentials({ username: auth.username, token: auth.password }));
      }
    }
  }
  return {
    credentials: (registry) => byHost.get(registry.toLowerCase()),
    imagePullSecrets: names(account.imagePullSecrets).map((name) => ({ name })),
  };
}

/**
 * A reader that asks the space's kpack service account for registry credentials first, then
 * `options.credentials` (the manager's), else reads anonymously.
 */
export function registryDropletReader(client: ObjectClient, options: RegistryClientOptions = {}): DropletReader {
  return async (image, namespace, signal): Promise<DropletImageConfig> => {
    const access = await spaceRegistryAccess(client, namespace, signal);
    const registry = new RegistryClient({
      ...options,
      credentials: (host) => access.credentials(host) ?? options.credentials?.(host),
    });
    const config = await registry.readImageConfig(image);
    const metadata = parseBuildMetadata(image, config.labels);
    return {
      image,
      processTypes: metadata.processes.map((process) => ({ type: process.type, command: dropletCommand(process) })),
      ports: [...config.ports],
      imagePullSecrets: access.imagePullSecrets,
    };
  };
}
