// Many tenant namespaces set up fast, for the benchmarks at scale (bench/scale.ts,
// bench/dispatch-burst.ts; docs/decisions.md N50). The ScenarioPlayer sets one namespace up one
// object and one repository at a time, and each repository of the local forge costs about seven
// git processes (init, hash-object, read-tree, update-index, write-tree, commit-tree,
// update-ref): 30,000 of them were most of the full-size scale run's set-up. Here:
// - every distinct first commit (branch and files) is made once, by the local forge itself, into
//   a template bare repository; each repository is a copy of its template made in this process:
//   object files hard-linked (git never rewrites an object file), the few others copied, and its
//   own post-receive hook (the hook names its repository's event log);
// - the Kubernetes objects of all namespaces are created in phases, each bounded in flight, in the
//   order the ScenarioPlayer keeps per namespace (namespace, ConfigMaps, Components,
//   ComponentGroups, NudgeConfig, ChangeGroups), then every ChangeGroup is awaited observed with
//   one cluster-wide list per poll.
// What the namespaces hold is what the ScenarioPlayer would create for the same scenarios, but no
// player is left to play steps and the PaC stand-in watches none of the repositories: for
// benchmarks that drive builds themselves. On another forge than the local one, each repository is
// created through the sandbox forge as the player does.
import { copyFile, link, mkdir, readdir } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { installPostReceiveHook } from '../src/adapters/forges/local/event-log.ts';
import { LocalForge } from '../src/adapters/forges/local/local-forge.ts';
import {
  CHANGE_GROUPS,
  COMPONENTS,
  CONFIG_MAPS,
  NAMESPACES,
  NUDGE_CONFIGS,
  SECRETS,
} from '../src/adapters/kubernetes/resources.ts';
import type { ObjectClient } from '../src/adapters/kubernetes/client.ts';
import type { KubeObject, ResourceRef } from '../src/adapters/kubernetes/types.ts';
import { mapWithConcurrency } from '../src/domain/concurrency.ts';
import type { SandboxEnvironment } from '../src/sandbox/environment.ts';
import { COMPONENT_GROUPS } from '../src/sandbox/integration.ts';
import { scenarioObjects, type RepositorySeed, type ScenarioObjects } from '../src/sandbox/scenario/objects.ts';
import { checkScenarioDocument } from '../src/sandbox/scenario/parse.ts';
import type { Scenario } from '../src/sandbox/scenario/schema.ts';
import { NAMESPACE_NAME_LABEL } from '../src/sandbox/webhooks.ts';

/** The component every operand nudges in an operator tenant. */
export const BUNDLE = 'bundle';

/**
 * One OLM operator's namespace: each operand nudges the one bundle (one nudge branch and pull
 * request per operand on the bundle's repository), with the `direct` executor; optionally an
 * active ChangeGroup `bundle-update` on the bundle.
 */
export function operatorScenario(
  namespace: string,
  operands: readonly string[],
  options: { readonly changeGroup?: boolean; readonly origin: string },
): Scenario {
  return checkScenarioDocument(
    {
      namespace,
      nudgedBy: 'nudger',
      executor: 'direct',
      components: [
        ...operands.map((name) => ({ name, image: `quay.io/bench/${name}`, nudges: [BUNDLE] })),
        { name: BUNDLE, image: 'quay.io/bench/bundle' },
      ],
      ...(options.changeGroup === true ? { changeGroups: [{ name: 'bundle-update', nudgedComponent: BUNDLE }] } : {}),
    },
    options.origin,
  );
}

export interface SetUpOptions {
  /** Kubernetes requests in flight at once (all namespaces together). */
  readonly requestsInFlight?: number;
  /** Repositories being copied at once. */
  readonly copiesInFlight?: number;
  /** How long every ChangeGroup may take to get its first status from the manager. */
  readonly observedTimeoutMs?: number;
}

/** Where the set-up's time went. */
export interface SetUpTimes {
  readonly repositoriesMs: number;
  readonly objectsMs: number;
  readonly observedMs: number;
  readonly repositories: number;
  readonly templates: number;
  readonly objects: number;
}

const REQUESTS_IN_FLIGHT = 32;
const COPIES_IN_FLIGHT = 16;

/** Sets every scenario's namespace up as ScenarioPlayer.setUp would, fast (see the header). */
export async function setUpScenarios(
  env: SandboxEnvironment,
  scenarios: readonly Scenario[],
  options: SetUpOptions = {},
): Promise<SetUpTimes> {
  const requests = options.requestsInFlight ?? REQUESTS_IN_FLIGHT;
  const objects = scenarios.map((scenario) => ({
    scenario,
    objects: scenarioObjects(scenario, {
      repoUrl: (component) => env.sandboxForge.repositoryUrl(scenario.namespace, component),
    }),
  }));
  const start = performance.now();
  const repositories = objects.flatMap(({ scenario, objects: o }) =>
    o.repositories.map((seed) => ({ namespace: scenario.namespace, seed })),
  );
  const templates = new RepositoryTemplates(env.forge, join(env.directory, 'repository-templates'));
  await mapWithConcurrency(repositories, options.copiesInFlight ?? COPIES_IN_FLIGHT, async ({ namespace, seed }) => {
    if (env.sandboxForge.kind === 'local') await templates.copy(namespace, seed);
    else await env.sandboxForge.createRepository(namespace, seed.component, seed.files, seed.branch);
  });
  const repositoriesMs = performance.now() - start;

  const objectsStart = performance.now();
  // Phases in the player's order; within a phase, any namespace's objects in any order.
  const phases: ((o: ScenarioObjects, namespace: string) => { ref: ResourceRef; object: KubeObject }[])[] = [
    (_, namespace) => [
      {
        ref: NAMESPACES,
        object: {
          apiVersion: 'v1',
          kind: 'Namespace',
          metadata: { name: namespace, labels: { [NAMESPACE_NAME_LABEL]: namespace } },
        },
      },
    ],
    (_, namespace) => env.sandboxForge.tenantObjects(namespace).map((object) => ({ ref: SECRETS, object })),
    (o) => o.configMaps.map((object) => ({ ref: CONFIG_MAPS, object })),
    (o) => [
      ...o.components.map((object) => ({ ref: COMPONENTS, object })),
      ...o.componentGroups.map((object) => ({ ref: COMPONENT_GROUPS, object })),
    ],
    (o) => ((o.nudgeConfig.spec?.nudges ?? []).length > 0 ? [{ ref: NUDGE_CONFIGS, object: o.nudgeConfig }] : []),
    (o) => o.changeGroups.map((object) => ({ ref: CHANGE_GROUPS, object })),
  ];
  let created = 0;
  for (const phase of phases) {
    const work = objects.flatMap(({ scenario, objects: o }) => phase(o, scenario.namespace));
    await mapWithConcurrency(work, requests, ({ ref, object }) => env.client.create(ref, object));
    created += work.length;
  }
  const objectsMs = performance.now() - objectsStart;

  const observedStart = performance.now();
  await awaitChangeGroupsObserved(
    env,
    objects.flatMap(({ objects: o }) => o.changeGroups.map((cg) => `${cg.metadata.namespace}/${cg.metadata.name}`)),
    options.observedTimeoutMs ?? 600_000,
  );
  return {
    repositoriesMs,
    objectsMs,
    observedMs: performance.now() - observedStart,
    repositories: repositories.length,
    templates: templates.size,
    objects: created,
  };
}

/** `n` repositories, … objects: the set-up's times in one phrase for a benchmark's figures line. */
export function setUpSummary(times: SetUpTimes): string {
  const s = (ms: number): string => `${(ms / 1000).toFixed(1)} s`;
  return (
    `${String(times.repositories)} repositories from ${String(times.templates)} templates in ${s(times.repositoriesMs)}, ` +
    `${String(times.objects)} objects in ${s(times.objectsMs)}, ChangeGroups observed in ${s(times.observedMs)}`
  );
}

/**
 * Until the manager has written every named ChangeGroup's status (ScenarioPlayer.setUp waits the
 * same way, per namespace): then the webhook's and the dispatcher's caches hold them, and no build
 * slips past a ChangeGroup on its way.
 */
async function awaitChangeGroupsObserved(
  env: SandboxEnvironment,
  keys: readonly string[],
  timeoutMs: number,
): Promise<void> {
  if (keys.length === 0) return;
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const listed = await env.client.list<KubeObject & { status?: { observedGeneration?: number } }>(CHANGE_GROUPS);
    const observed = new Set(
      listed.items
        .filter((cg) => cg.status?.observedGeneration !== undefined)
        .map((cg) => `${cg.metadata?.namespace ?? ''}/${cg.metadata?.name ?? ''}`),
    );
    const waiting = keys.filter((key) => !observed.has(key));
    if (waiting.length === 0) return;
    if (performance.now() > deadline) {
      throw new Error(
        `${String(waiting.length)} ChangeGroups without status after ${String(timeoutMs)} ms (first: ${waiting[0] ?? ''}); is the manager running?`,
      );
    }
    await sleep(env.pollIntervalMs);
  }
}

/**
 * `client` with each GET of a `ref` object sent once and its answer shared: for a stand-in that
 * records thousands of builds of the same few Components during a set-up, in which they do not
 * change (KonfluxStandIn reads the build's Component each time).
 */
export function withCachedGets(client: ObjectClient, ref: ResourceRef): ObjectClient {
  const cache = new Map<string, Promise<KubeObject>>();
  const get = (r: ResourceRef, namespace: string, name: string, signal?: AbortSignal): Promise<KubeObject> => {
    if (r !== ref) return client.get(r, namespace, name, signal);
    const key = `${namespace}/${name}`;
    let answer = cache.get(key);
    if (answer === undefined) {
      answer = client.get(r, namespace, name, signal);
      cache.set(key, answer);
      // A failed GET is asked again next time.
      answer.catch(() => cache.delete(key));
    }
    return answer;
  };
  return new Proxy(client, {
    get(target, property) {
      if (property === 'get') return get;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

/** One file or directory of a template repository, and how a copy gets it. */
interface TemplateEntry {
  readonly path: string;
  readonly how: 'directory' | 'link' | 'copy';
}

interface Template {
  readonly root: string;
  readonly entries: readonly TemplateEntry[];
}

/**
 * Bare repositories of the local forge copied from templates: one per distinct first commit, made
 * by LocalForge.createRepository in a forge of its own under `root` (the same file system as the
 * forge, for the hard links).
 */
export class RepositoryTemplates {
  readonly #forge: LocalForge;
  readonly #templates: LocalForge;
  readonly #made = new Map<string, Promise<Template>>();

  constructor(forge: LocalForge, root: string) {
    this.#forge = forge;
    this.#templates = new LocalForge({ root });
  }

  /** Templates made so far. */
  get size(): number {
    return this.#made.size;
  }

  /** `namespace`'s repository of `seed`, as LocalForge.createRepository would make it. */
  async copy(namespace: string, seed: RepositorySeed): Promise<void> {
    const key = JSON.stringify([seed.branch, Object.entries(seed.files).sort(([a], [b]) => (a < b ? -1 : 1))]);
    let template = this.#made.get(key);
    if (template === undefined) {
      template = this.#make(`t${String(this.#made.size)}`, seed);
      this.#made.set(key, template);
    }
    const { root: source, entries } = await template;
    const repo = this.#forge.repository(namespace, seed.component);
    const destination = this.#forge.gitDirectory(repo);
    await mkdir(dirname(destination), { recursive: true });
    // Not recursive: an existing repository is an error, as createRepository's 422.
    await mkdir(destination);
    for (const entry of entries) if (entry.how === 'directory') await mkdir(join(destination, entry.path));
    await Promise.all(
      entries.map(async (entry) => {
        const from = join(source, entry.path);
        const to = join(destination, entry.path);
        if (entry.how === 'copy') await copyFile(from, to);
        else if (entry.how === 'link') await link(from, to).catch(() => copyFile(from, to));
      }),
    );
    await installPostReceiveHook(destination, this.#forge.eventLogPath(repo));
  }

  async #make(name: string, seed: RepositorySeed): Promise<Template> {
    const repo = await this.#templates.createRepository('template', name, seed.files);
    const root = this.#templates.gitDirectory(repo);
    const entries: TemplateEntry[] = [];
    for (const dirent of await readdir(root, { recursive: true, withFileTypes: true })) {
      const path = relative(root, join(dirent.parentPath, dirent.name));
      const top = path.split('/')[0];
      // The hooks are the copy's own (its post-receive names its event log); the scratch space of
      // the template's first commit is no part of a repository.
      if (top === 'hooks' || top === 'nudger-tmp') continue;
      if (dirent.isDirectory()) entries.push({ path, how: 'directory' });
      else if (dirent.isFile()) entries.push({ path, how: top === 'objects' ? 'link' : 'copy' });
    }
    entries.push({ path: 'hooks', how: 'directory' });
    // Parents before children.
    entries.sort((a, b) => a.path.split('/').length - b.path.split('/').length);
    return { root, entries };
  }
}
