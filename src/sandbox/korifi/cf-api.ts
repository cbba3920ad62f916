// Korifi, as far as the sandbox's Korifi scenarios need it (docs/sandbox.md "Korifi scenarios",
// docs/decisions.md N44): the objects the CF API and Korifi's CFBuild controller write, on the real
// API server, so that nudger's build reconciler and stack-update propagator meet them as they would
// on a cluster. `cf create-app` makes a CFApp named by a GUID; `cf push`/`cf restage` make a
// CFPackage (its bits uploaded), a CFBuild with the build > app > default lifecycle, and Korifi's
// CFBuild controller the BuildWorkload of the same name, labelled and owned as Korifi does, whose
// `spec.builderName` is Korifi's configured build reconciler (here nudger's). When the workload
// finishes, the CFBuild gets its droplet and state as Korifi copies them, and the app is switched
// to the staged droplet, as `cf push` does after staging.
//
// It does not play the API's validation, package uploads (no bits are pushed: the kpack stand-in
// pulls no source), CFProcesses, AppWorkloads or running instances.
import { randomUUID } from 'node:crypto';
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { BUILD_WORKLOADS, CF_APPS, CF_BUILDS, CF_PACKAGES } from '../../adapters/kubernetes/korifi-resources.ts';
import { NAMESPACES, SERVICE_ACCOUNTS } from '../../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import {
  KORIFI_APP_GUID_LABEL,
  KORIFI_BUILD_GUID_LABEL,
  KORIFI_BUILD_STATE_LABEL,
  KORIFI_DROPLET_GUID_LABEL,
  KORIFI_PACKAGE_GUID_LABEL,
  KORIFI_PACKAGE_STATE_LABEL,
  KORIFI_SPACE_GUID_LABEL,
  KPACK_SERVICE_ACCOUNT,
} from '../../domain/korifi/labels.ts';
import {
  BUILD_WORKLOAD_REASONS,
  KORIFI_API_VERSION,
  SUCCEEDED_CONDITION,
  type BuildWorkload,
  type CFApp,
  type CFBuild,
  type CFPackage,
  type Lifecycle,
} from '../../schema/korifi.ts';
import { SerialPoller } from '../poll-loop.ts';

/** What Korifi's API defaults a build's staging resources to (its Helm chart's `api.lifecycle`). */
const STAGING_MEMORY_MB = 1024;
const STAGING_DISK_MB = 1024;

export interface CfApiStandInOptions {
  readonly client: ObjectClient;
  /** The CF space: the namespace of every object. */
  readonly space: string;
  /** `BuildWorkload.spec.builderName`: Korifi's configured build reconciler (`reconcilers.build`). */
  readonly builderName: string;
  /** Where packages' bits would be uploaded (`<prefix><app GUID>-packages`). */
  readonly packageRepositoryPrefix: string;
}

/** A scenario app as the CF API made it. */
export interface CfAppRecord {
  readonly name: string;
  readonly guid: string;
}

/** A `buildpack` lifecycle as the API writes it. */
export function buildpackLifecycle(data: { buildpacks?: readonly string[]; stack: string }): Lifecycle {
  return { type: 'buildpack', data: { buildpacks: [...(data.buildpacks ?? [])], stack: data.stack } };
}

function ownerOf(object: { metadata?: { name?: string; uid?: string } }, kind: string, controller: boolean) {
  return {
    apiVersion: KORIFI_API_VERSION,
    kind,
    name: object.metadata?.name ?? '',
    uid: object.metadata?.uid ?? '',
    ...(controller ? { controller: true, blockOwnerDeletion: true } : {}),
  };
}

export class CfApiStandIn {
  readonly #client: ObjectClient;
  readonly #options: CfApiStandInOptions;
  readonly #apps = new Map<string, CfAppRecord>();
  /** CFBuilds this stand-in staged and has not yet finished: their droplet is still to be copied. */
  readonly #staging = new Set<string>();
  /** Every CFBuild staged, in order. */
  readonly #staged: string[] = [];
  readonly #poller = new SerialPoller<void>(async () => {
    await this.#round();
    this.#lastError = undefined;
  });
  #lastError: unknown;

  constructor(options: CfApiStandInOptions) {
    this.#client = options.client;
    this.#options = options;
  }

  /** The space's namespace and the service account kpack builds as (Korifi's space controller makes both). */
  async createSpace(): Promise<void> {
    const { space } = this.#options;
    await this.#client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: space } });
    await this.#client.create(SERVICE_ACCOUNTS, {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: { name: KPACK_SERVICE_ACCOUNT, namespace: space },
    });
  }

  /** `cf create-app`: a CFApp named by a new GUID, with the app's lifecycle or the API's default. */
  async createApp(name: string, lifecycle: Lifecycle): Promise<CfAppRecord> {
    const guid = randomUUID();
    const app: CFApp = {
      apiVersion: KORIFI_API_VERSION,
      kind: 'CFApp',
      metadata: {
        name: guid,
        namespace: this.#options.space,
        labels: { [KORIFI_SPACE_GUID_LABEL]: this.#options.space },
      },
      spec: { displayName: name, desiredState: 'STOPPED', lifecycle },
    };
    await this.#client.create(CF_APPS, app);
    const record = { name, guid };
    this.#apps.set(name, record);
    return record;
  }

  app(name: string): CfAppRecord | undefined {
    return this.#apps.get(name);
  }

  get apps(): readonly CfAppRecord[] {
    return [...this.#apps.values()];
  }

  /**
   * `cf push` (or `cf restage`) up to staging: a CFPackage with its bits, a CFBuild whose lifecycle
   * is the request's, else the app's (build > app > default), and the BuildWorkload Korifi's CFBuild
   * controller makes for it. Returns the CFBuild's name, the droplet GUID to be.
   */
  async stage(appName: string, buildLifecycle?: Lifecycle): Promise<string> {
    const record = this.#apps.get(appName);
    if (record === undefined) throw new Error(`app ${JSON.stringify(appName)} was not created`);
    const { space } = this.#options;
    const app = await this.#client.get<CFApp>(CF_APPS, space, record.guid);
    const packageGuid = randomUUID();
    const source = {
      registry: {
        image: `${this.#options.packageRepositoryPrefix}${record.guid}-packages:${packageGuid}`,
        imagePullSecrets: [],
      },
    };
    const cfPackage = await this.#client.create<KubeObject & CFPackage>(CF_PACKAGES, {
      apiVersion: KORIFI_API_VERSION,
      kind: 'CFPackage',
      metadata: {
        name: packageGuid,
        namespace: space,
        labels: {
          [KORIFI_APP_GUID_LABEL]: record.guid,
          [KORIFI_SPACE_GUID_LABEL]: space,
          [KORIFI_PACKAGE_STATE_LABEL]: 'READY',
        },
        ownerReferences: [ownerOf(app, 'CFApp', true)],
      },
      spec: { type: 'bits', appRef: { name: record.guid }, source },
    });
    const buildGuid = randomUUID();
    const lifecycle = buildLifecycle ?? app.spec?.lifecycle;
    if (lifecycle === undefined) throw new Error(`CFApp ${record.guid} has no spec.lifecycle`);
    const cfBuild = await this.#client.create<KubeObject & CFBuild>(CF_BUILDS, {
      apiVersion: KORIFI_API_VERSION,
      kind: 'CFBuild',
      metadata: {
        name: buildGuid,
        namespace: space,
        labels: {
          [KORIFI_APP_GUID_LABEL]: record.guid,
          [KORIFI_PACKAGE_GUID_LABEL]: cfPackage.metadata?.name ?? packageGuid,
          [KORIFI_DROPLET_GUID_LABEL]: buildGuid,
          [KORIFI_SPACE_GUID_LABEL]: space,
          [KORIFI_BUILD_STATE_LABEL]: 'STAGING',
        },
        ownerReferences: [ownerOf(app, 'CFApp', true)],
      },
      spec: {
        packageRef: { name: packageGuid },
        appRef: { name: record.guid },
        stagingMemoryMB: STAGING_MEMORY_MB,
        stagingDiskMB: STAGING_DISK_MB,
        lifecycle,
      },
    });
    this.#staging.add(buildGuid);
    this.#staged.push(buildGuid);
    await this.#client.create<KubeObject & BuildWorkload>(BUILD_WORKLOADS, {
      apiVersion: KORIFI_API_VERSION,
      kind: 'BuildWorkload',
      metadata: {
        name: buildGuid,
        namespace: space,
        labels: { [KORIFI_APP_GUID_LABEL]: record.guid, [KORIFI_BUILD_GUID_LABEL]: buildGuid },
        ownerReferences: [ownerOf(cfBuild, 'CFBuild', true)],
      },
      spec: {
        buildRef: { name: buildGuid },
        builderName: this.#options.builderName,
        source,
        buildpacks: [...(lifecycle.data.buildpacks ?? [])],
        env: [],
        services: [],
      },
    });
    return buildGuid;
  }

  /** Whether the CFBuild is still staging: its BuildWorkload has not finished. */
  isStaging(name: string): boolean {
    return this.#staging.has(name);
  }

  /** The CFBuild's place among those staged here; -1 for one made elsewhere (the propagator's). */
  stagedIndex(name: string): number {
    return this.#staged.indexOf(name);
  }

  /** One round of Korifi's CFBuild controller; then `cf push` switches the app to a staged droplet. */
  poll(): Promise<void> {
    return this.#poller.poll();
  }

  /** Polls every `intervalMs` until stop(); a failed round is kept as `lastError` and reported to `onError`. */
  start(intervalMs: number, onError: (error: unknown) => void = () => undefined): void {
    this.#poller.start(intervalMs, (error) => {
      this.#lastError = error;
      onError(error);
    });
  }

  /** The last round's failure, if the last round failed (cleared by a round that does not). */
  get lastError(): unknown {
    return this.#lastError;
  }

  stop(): Promise<void> {
    return this.#poller.stop();
  }

  async #round(): Promise<void> {
    const { space } = this.#options;
    for (const name of [...this.#staging]) {
      const workload = await this.#client.get<BuildWorkload>(BUILD_WORKLOADS, space, name);
      const succeeded = workload.status?.conditions?.find((c) => c.type === SUCCEEDED_CONDITION);
      if (succeeded === undefined || succeeded.status === 'Unknown') continue;
      const staged = succeeded.status === 'True' && workload.status?.droplet !== undefined;
      await this.#finish(name, staged, succeeded, workload);
      this.#staging.delete(name);
    }
  }

  /** Korifi's buildpack delegate: the workload's outcome onto the CFBuild; then the app's droplet. */
  async #finish(
    name: string,
    staged: boolean,
    succeeded: { reason?: string; message?: string },
    workload: BuildWorkload,
  ): Promise<void> {
    const { space } = this.#options;
    const now = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    const cfBuild = await this.#client.get<CFBuild>(CF_BUILDS, space, name);
    const state = staged ? 'STAGED' : 'FAILED';
    const condition = (type: string, status: string, reason: string, message: string) => ({
      type,
      status,
      reason,
      message,
      lastTransitionTime: now,
      observedGeneration: cfBuild.metadata?.generation ?? 1,
    });
    await this.#client.patchStatus(CF_BUILDS, space, name, 'merge', {
      status: {
        state,
        observedGeneration: cfBuild.metadata?.generation ?? 1,
        conditions: [
          condition('Staging', 'False', 'BuildNotRunning', `BuildWorkload ${name} has finished`),
          staged
            ? condition(SUCCEEDED_CONDITION, 'True', BUILD_WORKLOAD_REASONS.succeeded, succeeded.message ?? 'staged')
            : condition(
                SUCCEEDED_CONDITION,
                'False',
                BUILD_WORKLOAD_REASONS.failed,
                `${succeeded.reason ?? ''}: ${succeeded.message ?? ''}`,
              ),
        ],
        ...(staged && workload.status?.droplet !== undefined ? { droplet: workload.status.droplet } : {}),
      },
    });
    await this.#client.patch(CF_BUILDS, space, name, 'merge', {
      metadata: { labels: { [KORIFI_BUILD_STATE_LABEL]: state } },
    });
    const appGuid = cfBuild.spec?.appRef.name;
    if (!staged || appGuid === undefined) return;
    await this.#client.patch(CF_APPS, space, appGuid, 'merge', {
      spec: { currentDropletRef: { name }, desiredState: 'STARTED' },
    });
  }
}
