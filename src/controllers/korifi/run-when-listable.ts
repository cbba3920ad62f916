// How a korifi-group controller runs (docs/decisions.md N39): its kinds' caches probed and run,
// the controller started once every kind it reads can be listed (Korifi or kpack may be installed
// after the manager), and a cache that never syncs logged rather than ending the manager.
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import type { KorifiKindCaches } from '../../cluster/korifi-watched-kinds.ts';
import { CacheSyncTimeoutError, type Controller } from '../../runtime/controller.ts';
import type { OptionalKindCache } from '../../runtime/optional-kind.ts';
import type { RuntimeLogger } from '../../runtime/runtime-log.ts';

export function runWhenListable(
  kinds: KorifiKindCaches,
  caches: readonly OptionalKindCache<KubeObject>[],
  controller: Controller,
  logger: RuntimeLogger,
): (signal: AbortSignal) => Promise<void> {
  return async (signal) => {
    const running = kinds.run(signal);
    try {
      if (await kinds.whenListable(caches, signal)) await controller.start(signal);
    } catch (error) {
      if (!(error instanceof CacheSyncTimeoutError)) throw error;
      logger.error({ err: error }, `${controller.name} controller not running: a cache did not sync`);
    }
    await running;
  };
}
