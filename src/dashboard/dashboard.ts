// The dashboard as the manager runs it (docs/decisions.md D14, N46): the server over the replica's
// informer caches, with the production views, Kubernetes authentication through the manager's own
// client, and the Korifi caches when the korifi controllers run.
import type { KubeClient } from '../adapters/kubernetes/client.ts';
import { KubernetesAccessReviewer } from '../runtime/access-review.ts';
import type { Logger } from '../runtime/logger.ts';
import { SharedInformers } from '../runtime/shared-informers.ts';
import type { Registry } from 'prom-client';
import { dashboardAuthorizer, type DashboardAuth } from './auth.ts';
import { DashboardServer } from './server.ts';
import { CacheData, KorifiKindCaches, konfluxCaches, korifiCaches, type KonfluxCaches } from './snapshots.ts';
import { DASHBOARD_VIEWS } from './views.ts';

export type { DashboardAuth } from './auth.ts';

/** `nudger manager --dashboard-*`, and the sandbox's dashboard. */
export interface DashboardOptions {
  /** 0 picks a free port. */
  readonly port: number;
  /** Default 127.0.0.1. */
  readonly host?: string;
  /** tls.crt and tls.key for HTTPS; absent: plain HTTP. */
  readonly certDir?: string;
  readonly auth: DashboardAuth;
}

export interface DashboardSetup {
  /** The replica's informer set, not running yet: the Konflux caches are asked from it. */
  readonly informers: SharedInformers;
  readonly client: KubeClient;
  /** Whether the konflux and korifi controller groups run: only their kinds are read. */
  readonly konflux: boolean;
  readonly korifi: boolean;
  /** With `--namespace`, the one namespace watched. */
  readonly namespace?: string;
  readonly logger: Logger;
  readonly registry?: Registry;
}

export interface Dashboard {
  readonly server: DashboardServer;
  /** Runs the dashboard's own caches (the Korifi kinds) until `signal` aborts. Never rejects. */
  run(signal: AbortSignal): Promise<void>;
}

export function createDashboard(options: DashboardOptions, setup: DashboardSetup): Dashboard {
  const { client, logger, namespace } = setup;
  const konflux: KonfluxCaches | undefined = setup.konflux ? konfluxCaches(setup.informers) : undefined;
  // The Korifi kinds are probed (the CRDs may come later) through caches of the dashboard's own:
  // the korifi controllers' caches belong to a leadership term, which only the leader has.
  const korifiKinds = setup.korifi
    ? KorifiKindCaches.of({
        client,
        informers: new SharedInformers({
          http: client.http,
          logger,
          ...(namespace === undefined ? {} : { namespace }),
        }),
        logger,
        ...(namespace === undefined ? {} : { namespace }),
      })
    : undefined;
  const data = new CacheData({
    ...(konflux === undefined ? {} : { konflux }),
    ...(korifiKinds === undefined ? {} : { korifi: korifiCaches(korifiKinds) }),
  });
  const server = new DashboardServer({
    port: options.port,
    ...(options.host === undefined ? {} : { host: options.host }),
    ...(options.certDir === undefined ? {} : { certDir: options.certDir }),
    authorizer: dashboardAuthorizer(options.auth, () => new KubernetesAccessReviewer(client)),
    data,
    views: DASHBOARD_VIEWS,
    logger,
    ...(setup.registry === undefined ? {} : { registry: setup.registry }),
  });
  return {
    server,
    run: async (signal) => {
      await korifiKinds?.run(signal);
    },
  };
}
