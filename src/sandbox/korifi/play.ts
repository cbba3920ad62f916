// Plays a Korifi scenario (docs/sandbox.md "Korifi scenarios", docs/decisions.md N44): the space
// and its apps as the CF API makes them, then each step, letting the system settle after each:
// a `stage` until its CFBuild is staged or failed, an operator's stack or buildpack update until
// kpack has rebuilt every Image it touches and nudger's propagator has either switched the app to
// the new droplet or told why not. Then the result: apps and droplets, builders, Events.
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import { BUILD_WORKLOADS, CF_APPS, CF_BUILDS, KPACK_IMAGES } from '../../adapters/kubernetes/korifi-resources.ts';
import { CORE_EVENTS } from '../../adapters/kubernetes/resources.ts';
import { compareStrings } from '../../domain/compare.ts';
import { parseTimeout } from '../../domain/changegroup/duration.ts';
import { KORIFI_APP_GUID_LABEL } from '../../domain/korifi/labels.ts';
import { STACK_UPDATE_DROPLET_ANNOTATION, sameImage } from '../../domain/korifi/stack-update.ts';
import type { Logger } from '../../runtime/logger.ts';
import type { CFApp, CFBuild } from '../../schema/korifi.ts';
import type {
  KorifiAppResult,
  KorifiBuilderResult,
  KorifiEventResult,
  KorifiResult,
} from '../scenario/korifi-result.ts';
import { updateBothBuildpack, type KorifiScenario, type KorifiStep } from '../scenario/korifi.ts';
import type { SandboxResult } from '../scenario/result.ts';
import type { Scenario } from '../scenario/schema.ts';
import { buildpackLifecycle, CfApiStandIn } from './cf-api.ts';
import { startKorifiEnvironment, type KorifiEnvironment } from './environment.ts';
import { KPACK_BUILDERS, KPACK_CLUSTER_BUILDERS, type KpackObject } from './kpack-objects.ts';
import { withDashboard, type SandboxDashboardRun } from '../dashboard.ts';

export interface KorifiPlayOptions {
  /** How long a step may take to settle before the run fails; default 120 s. */
  readonly settleTimeoutMs?: number;
}

/** A step did not settle in time: names the step and what is still waited for. */
export class KorifiSettleError extends Error {
  override readonly name = 'KorifiSettleError';
}

const DEFAULT_SETTLE_TIMEOUT_MS = 120_000;

const delay = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/** A condition as read from an object's raw status (kpack's and Korifi's have this shape). */
interface Condition {
  readonly type?: string;
  readonly status?: string;
  readonly reason?: string;
  readonly message?: string;
}

function conditionOf(object: { status?: unknown }, type: string): Condition | undefined {
  const status = object.status as { conditions?: unknown } | undefined;
  const conditions = Array.isArray(status?.conditions) ? (status.conditions as Condition[]) : [];
  return conditions.find((c) => c.type === type);
}

interface CoreEvent extends KubeObject {
  readonly involvedObject?: { kind?: string; name?: string };
  readonly reason?: string;
  readonly message?: string;
  readonly firstTimestamp?: string;
  readonly source?: { component?: string };
}

/** Whether a kpack builder is Ready for its current generation. */
function builderReady(builder: KpackObject): boolean {
  const observed = builder.status?.observedGeneration;
  const generation = builder.metadata?.generation;
  return conditionOf(builder, 'Ready')?.status === 'True' && (generation === undefined || observed === generation);
}

/** The Korifi stand-in's last failure, as a suffix of a settle message. */
function failureOf(error: unknown): string {
  if (error === undefined) return '';
  return `; the Korifi stand-in fails: ${error instanceof Error ? error.message : JSON.stringify(error)}`;
}

export class KorifiPlayer {
  readonly #env: KorifiEnvironment;
  readonly #space: string;
  readonly #korifi: KorifiScenario;
  readonly #cf: CfApiStandIn;
  readonly #settleTimeoutMs: number;

  constructor(env: KorifiEnvironment, space: string, korifi: KorifiScenario, options: KorifiPlayOptions = {}) {
    this.#env = env;
    this.#space = space;
    this.#korifi = korifi;
    this.#settleTimeoutMs = options.settleTimeoutMs ?? DEFAULT_SETTLE_TIMEOUT_MS;
    this.#cf = new CfApiStandIn({
      client: env.client,
      space,
      builderName: env.builderName,
      packageRepositoryPrefix: env.imageRepositoryPrefix,
    });
  }

  get cf(): CfApiStandIn {
    return this.#cf;
  }

  /** The space and its apps, each with its own lifecycle or the API's default (no buildpacks). */
  async setUp(): Promise<void> {
    await this.#cf.createSpace();
    const stack = this.#korifi.clusterBuilder.stack;
    for (const app of this.#korifi.apps) {
      const data = app.lifecycle ?? { buildpacks: [] };
      await this.#cf.createApp(
        app.name,
        buildpackLifecycle({ buildpacks: data.buildpacks, stack: data.stack ?? stack }),
      );
    }
    this.#cf.start(this.#env.pollIntervalMs);
  }

  async play(): Promise<void> {
    for (const [index, step] of this.#korifi.steps.entries()) await this.#step(step, index);
  }

  async stop(): Promise<void> {
    await this.#cf.stop();
  }

  async #step(step: KorifiStep, index: number): Promise<void> {
    const { kpack } = this.#env;
    if ('wait' in step) {
      const parsed = parseTimeout(step.wait);
      await delay(parsed.ok ? parsed.milliseconds : 0);
      return;
    }
    if ('stage' in step) {
      const { app, lifecycle } = step.stage;
      const stack = lifecycle?.stack ?? this.#korifi.clusterBuilder.stack;
      const name = await this.#cf.stage(
        app,
        lifecycle === undefined ? undefined : buildpackLifecycle({ buildpacks: lifecycle.buildpacks, stack }),
      );
      await this.#until(`steps[${String(index)}].stage: app ${app}'s CFBuild ${name}`, async () =>
        this.#cf.isStaging(name)
          ? `CFBuild ${name} is still staging (${await this.#workloadState(name)})${failureOf(this.#cf.lastError)}`
          : undefined,
      );
    } else if ('updateStack' in step) {
      await kpack.updateStack(step.updateStack.id === undefined ? {} : { id: step.updateStack.id });
    } else if ('updateBuildpack' in step) {
      await kpack.updateBuildpack(step.updateBuildpack.name);
    } else {
      await kpack.updateBoth({
        buildpack: updateBothBuildpack(this.#korifi, step.updateBoth),
        ...(step.updateBoth.id === undefined ? {} : { id: step.updateBoth.id }),
      });
    }
    await this.#until(`steps[${String(index)}]`, () => this.#unsettled());
  }

  async #workloadState(name: string): Promise<string> {
    const workload = await this.#env.client
      .get<KubeObject & { status?: unknown }>(BUILD_WORKLOADS, this.#space, name)
      .catch(() => undefined);
    const succeeded = workload === undefined ? undefined : conditionOf(workload, 'Succeeded');
    if (succeeded === undefined) return 'its BuildWorkload has no Succeeded condition yet';
    return `BuildWorkload Succeeded=${succeeded.status ?? ''} ${succeeded.reason ?? ''}: ${succeeded.message ?? ''}`;
  }

  /** Polls `pending` until it answers undefined; fails naming `what` and its last answer. */
  async #until(what: string, pending: () => Promise<string | undefined>): Promise<void> {
    const deadline = Date.now() + this.#settleTimeoutMs;
    let last: string | undefined;
    // Two quiet readings in a row: the stand-ins and the manager act between polls.
    let quiet = 0;
    while (quiet < 2) {
      last = await pending();
      quiet = last === undefined ? quiet + 1 : 0;
      if (quiet >= 2) return;
      if (Date.now() > deadline)
        throw new KorifiSettleError(
          `${what}: not settled after ${String(this.#settleTimeoutMs / 1000)} s: ${last ?? 'still moving'}`,
        );
      await delay(this.#env.pollIntervalMs);
    }
  }

  /**
   * What the space still waits for, or undefined when settled: kpack's rounds run nothing more, and
   * every ready Image's latest image is its app's current droplet, or nudger told on the app why
   * its latest Build was not rolled out.
   */
  async #unsettled(): Promise<string | undefined> {
    const { client, kpack } = this.#env;
    if ((await kpack.poll()).length > 0) return 'kpack is building';
    const images = (await client.list<KpackObject>(KPACK_IMAGES, { namespace: this.#space })).items;
    const apps = new Map(
      (await client.list<CFApp>(CF_APPS, { namespace: this.#space })).items.map((app) => [
        app.metadata?.name ?? '',
        app,
      ]),
    );
    const builds = new Map(
      (await client.list<CFBuild>(CF_BUILDS, { namespace: this.#space })).items.map((b) => [b.metadata?.name ?? '', b]),
    );
    const events = await this.#events();
    for (const image of images) {
      const name = image.metadata?.name ?? '';
      const ready = conditionOf(image, 'Ready');
      if (ready?.status === 'False') continue;
      if (ready?.status !== 'True' || image.status?.observedGeneration !== image.metadata?.generation)
        return `kpack Image ${name} is not ready`;
      const app = apps.get(image.metadata?.labels?.[KORIFI_APP_GUID_LABEL] ?? name);
      if (app === undefined) continue;
      const latestImage = typeof image.status?.latestImage === 'string' ? image.status.latestImage : '';
      const latestBuild = typeof image.status?.latestBuildRef === 'string' ? image.status.latestBuildRef : '';
      const current = builds.get(app.spec?.currentDropletRef?.name ?? '')?.status?.droplet?.registry.image;
      if (current === undefined) continue;
      if (sameImage(current, latestImage)) continue;
      const told = events.some(
        (event) => event.object === `CFApp/${app.metadata?.name ?? ''}` && event.message.includes(latestBuild),
      );
      if (!told)
        return `app ${app.spec?.displayName ?? name} runs ${current}, kpack's latest is ${latestImage} (Build ${latestBuild})`;
    }
    return undefined;
  }

  async #events(): Promise<KorifiEventResult[]> {
    const events = (await this.#env.client.list<CoreEvent>(CORE_EVENTS, { namespace: this.#space })).items;
    return events
      .filter((event) => event.source?.component?.startsWith('nudger') === true)
      .sort(
        (a, b) =>
          compareStrings(a.firstTimestamp ?? '', b.firstTimestamp ?? '') ||
          compareStrings(a.metadata?.name ?? '', b.metadata?.name ?? ''),
      )
      .map((event) => ({
        object: `${event.involvedObject?.kind ?? ''}/${event.involvedObject?.name ?? ''}`,
        reason: event.reason ?? '',
        message: event.message ?? '',
      }));
  }

  async result(): Promise<KorifiResult> {
    const { client } = this.#env;
    const builds = (await client.list<CFBuild>(CF_BUILDS, { namespace: this.#space })).items;
    const apps: KorifiAppResult[] = [];
    for (const record of this.#cf.apps) {
      const app = await client.get<CFApp>(CF_APPS, this.#space, record.guid);
      const droplets = builds
        .filter((b) => b.spec?.appRef.name === record.guid)
        .map((b) => ({
          created: b.metadata?.creationTimestamp ?? '',
          droplet: {
            guid: b.metadata?.name ?? '',
            state: b.status?.state ?? null,
            image: b.status?.droplet?.registry.image ?? null,
            stack: b.status?.droplet?.stack ?? null,
            origin:
              b.metadata?.annotations?.[STACK_UPDATE_DROPLET_ANNOTATION] === undefined
                ? ('staged' as const)
                : ('stackUpdate' as const),
            failure: b.status?.state === 'FAILED' ? (conditionOf(b, 'Succeeded')?.message ?? '') : null,
          },
        }))
        // Oldest first; within a second, Korifi's own before the propagator's.
        .sort(
          (a, b) =>
            compareStrings(a.created, b.created) ||
            compareStrings(a.droplet.origin, b.droplet.origin) ||
            this.#cf.stagedIndex(a.droplet.guid) - this.#cf.stagedIndex(b.droplet.guid),
        )
        .map((entry) => entry.droplet);
      const currentDroplet = app.spec?.currentDropletRef?.name ?? null;
      apps.push({
        name: record.name,
        guid: record.guid,
        currentDroplet,
        droplets,
        stack: droplets.find((d) => d.guid === currentDroplet)?.stack ?? null,
      });
    }
    const clusterBuilders = (await client.list<KpackObject>(KPACK_CLUSTER_BUILDERS)).items;
    const spaceBuilders = (await client.list<KpackObject>(KPACK_BUILDERS, { namespace: this.#space })).items;
    const builders: KorifiBuilderResult[] = [
      ...clusterBuilders.map((b) => builderResult(b, 'ClusterBuilder')),
      ...spaceBuilders.map((b) => builderResult(b, 'Builder')),
    ].sort((a, b) => compareStrings(a.kind, b.kind) || compareStrings(a.name, b.name));
    return { apps, builders, events: await this.#events() };
  }
}

function builderResult(builder: KpackObject, kind: 'Builder' | 'ClusterBuilder'): KorifiBuilderResult {
  return {
    kind,
    name: builder.metadata?.name ?? '',
    namespace: kind === 'Builder' ? (builder.metadata?.namespace ?? null) : null,
    labels: { ...(builder.metadata?.labels ?? {}) },
    ready: builderReady(builder),
  };
}

/** A Korifi scenario's SandboxResult: no Konflux parts, the `korifi` section. */
export function korifiSandboxResult(korifi: KorifiResult): SandboxResult {
  return { changeGroups: [], builds: {}, files: {}, pullRequests: [], nudges: [], korifi };
}

/** Plays a checked Korifi scenario in an environment already started. */
export async function playKorifiInEnvironment(
  env: KorifiEnvironment,
  scenario: Scenario,
  options: KorifiPlayOptions = {},
): Promise<SandboxResult> {
  const { korifi } = scenario;
  if (korifi === undefined) throw new TypeError('not a Korifi scenario');
  const player = new KorifiPlayer(env, scenario.namespace, korifi, options);
  try {
    await player.setUp();
    await player.play();
    return korifiSandboxResult(await player.result());
  } finally {
    await player.stop();
  }
}

/** `nudger sandbox` for a scenario with `korifi:`: its own environment, played once. */
export async function runKorifiSandbox(options: {
  readonly scenario: Scenario;
  readonly logger: Logger;
  readonly binDirectory?: string;
  readonly play?: KorifiPlayOptions;
  readonly dashboard?: SandboxDashboardRun;
}): Promise<SandboxResult> {
  const { korifi } = options.scenario;
  if (korifi === undefined) throw new TypeError('not a Korifi scenario');
  const env = await startKorifiEnvironment({
    logger: options.logger,
    clusterBuilder: korifi.clusterBuilder,
    ...(options.binDirectory === undefined ? {} : { binDirectory: options.binDirectory }),
    ...(options.dashboard === undefined ? {} : { dashboard: options.dashboard }),
  });
  try {
    return await withDashboard(options.dashboard, env.manager, () =>
      playKorifiInEnvironment(env, options.scenario, options.play),
    );
  } finally {
    await env.close();
  }
}
