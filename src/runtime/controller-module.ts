// A controller as a module that declares itself: its reconciler, the informers it reads and the
// watches that wake it, and whether it needs leadership. The manager only composes a list of these
// (src/manager/controllers.ts): adding a controller touches no other controller and one line there.
// Modelled on controller-runtime's builder (For/Owns/Watches), with the shared informers of
// shared-informers.ts in place of its cache.
import type { KubeClient } from '../adapters/kubernetes/client.ts';
import type { Registry } from 'prom-client';
import type { ControllerGroup } from './controller-groups.ts';
import type { EventRecorder } from './events.ts';
import type { RuntimeLogger } from './runtime-log.ts';
import type { InformerSource } from './shared-informers.ts';

export interface ControllerContext<Settings> {
  readonly client: KubeClient;
  readonly informers: InformerSource;
  readonly events: EventRecorder;
  readonly registry: Registry;
  readonly logger: RuntimeLogger;
  /** With `--namespace`, the one namespace the manager watches. */
  readonly namespace?: string;
  /** How long a controller waits for its caches before giving up (CacheSyncTimeoutError). */
  readonly cacheSyncTimeoutMs?: number;
  /** The manager's settings, of which each controller reads its own part. */
  readonly settings: Settings;
}

export interface ControllerModule<Settings> {
  /** For logs: the controller's name. */
  readonly name: string;
  /** Its group: it runs only when `--controllers` names it (controller-groups.ts). */
  readonly group: ControllerGroup;
  /** Writers run on the elected leader only; false for controllers every replica runs. */
  readonly leaderOnly: boolean;
  /**
   * Builds the reconciler and declares its watches on informers taken from `context.informers`;
   * returns how to run it until its signal aborts (leadership lost, shutdown). Rejects only on
   * failures that must end the manager.
   */
  setUp(context: ControllerContext<Settings>): (signal: AbortSignal) => Promise<void>;
}
