// The droplet's process types and ports, read from the built image's config through the registry
// client (docs/decisions.md D13, N40, N41): the `io.buildpacks.build.metadata` label's processes,
// each command written as Korifi writes it, and the `ExposedPorts` numbers.
import { RegistryClient, type RegistryClientOptions } from '../../adapters/registry/client.ts';
import { dropletCommand, parseBuildMetadata } from '../../adapters/registry/image-metadata.ts';
import type { DropletImageConfig } from '../../domain/korifi/build-workload-status.ts';
import type { DropletReader } from './build-workload-reconciler.ts';

/**
 * A reader over one registry client. Known limit: credentials come from `options` for every
 * space, where Korifi reads the space's kpack service account's secrets (docs/decisions.md N41).
 */
export function registryDropletReader(options: RegistryClientOptions = {}): DropletReader {
  const client = new RegistryClient(options);
  return async (image: string): Promise<DropletImageConfig> => {
    const config = await client.readImageConfig(image);
    const metadata = parseBuildMetadata(image, config.labels);
    return {
      image,
      processTypes: metadata.processes.map((process) => ({ type: process.type, command: dropletCommand(process) })),
      ports: [...config.ports],
    };
  };
}
