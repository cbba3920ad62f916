// The ChangeGroup controller end to end on one machine, shared by its tests: in-memory caches, a
// recording ObjectClient that serves the build PipelineRuns (D3) and the namespace's Secrets, the
// real local forge with real git (D5), and the runtime's Controller around the reconciler for the
// log lines it writes.
import { join } from 'node:path';
import { LocalForge, readForgeEvents } from '../../src/adapters/forges/local/local-forge.ts';
import { LocalForgeResolver } from '../../src/adapters/forges/local/local-resolver.ts';
import type { ForgeResolver } from '../../src/adapters/forges/resolver.ts';
import type { ObjectClient, PatchType } from '../../src/adapters/kubernetes/client.ts';
import { errorFromResponse } from '../../src/adapters/kubernetes/errors.ts';
import { PIPELINE_RUNS, CHANGE_GROUPS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject, ListPage, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import { GitWorkspaces } from '../../src/adapters/git/workspace.ts';
import { BuildVerifier } from '../../src/controllers/changegroup/build-verifier.ts';
import {
  ChangeGroupReconciler,
  type ChangeGroupReconcilerOptions,
} from '../../src/controllers/changegroup/reconciler.ts';
import { CHANGE_GROUPS_KIND, COMPONENTS_KIND } from '../../src/cluster/watched-kinds.ts';
import { HELD_TARGETS_ANNOTATION } from '../../src/domain/changegroup/hold-decision.ts';
import { changeGroupBranch } from '../../src/domain/changegroup/model.ts';
import { Controller } from '../../src/runtime/controller.ts';
import { Store } from '../../src/runtime/store.ts';
import type { ChangeGroupStatus, ClusterChangeGroup } from '../../src/schema/changegroup.ts';
import type { ClusterComponent } from '../../src/schema/component.ts';
import type { ClusterNudgeConfig } from '../../src/schema/nudgeconfig.ts';
import type { PipelineRun } from '../../src/schema/pipelinerun.ts';
import { decoded } from '../support/decoded.ts';
import { buildRun, DIGEST, nudgeRun } from '../domain/changegroup/fixtures.ts';
import { git, tempDir } from '../adapters/git/helpers.ts';

export const NS = 'my-tenant';
export const CG = 'bundle-x-update';
export const BRANCH = changeGroupBranch(CG);
const BOT = { name: 'nudger[bot]', email: 'nudger@example.com' };
export const COMPONENTS = ['operand-a', 'operand-b', 'operator'] as const;
const OLD = DIGEST('0');
/** The nudged repository acme/bundle-x as it starts: every operand at its promoted digest. */
export const NUDGED_FILES = {
  'manifests/csv.yaml': COMPONENTS.map((c) => `${c}: quay.io/org/${c}@${OLD}\n`).join(''),
};

interface Call {
  readonly verb: string;
  readonly ref: ResourceRef;
  readonly name: string;
  readonly body?: unknown;
}

/** GETs from `objects` (404 otherwise); every write recorded and answered with what was sent. */
export class RecordingClient implements ObjectClient {
  readonly objects = new Map<string, KubeObject>();
  readonly calls: Call[] = [];

  #key(ref: ResourceRef, name: string): string {
    return `${ref.plural}/${name}`;
  }

  put(ref: ResourceRef, object: KubeObject): void {
    this.objects.set(this.#key(ref, object.metadata?.name ?? ''), structuredClone(object));
  }

  writes(): Call[] {
    return this.calls.filter((c) => c.verb !== 'get');
  }

  get<T extends KubeObject>(ref: ResourceRef, namespace: string, name: string): Promise<T> {
    this.calls.push({ verb: 'get', ref, name });
    // As the API server does: a name that cannot be an object name is a bad request, not a 404.
    if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(name) || name.length > 253) {
      return Promise.reject(errorFromResponse({ verb: 'get', resource: ref.plural, namespace, name }, 400, undefined));
    }
    const found = this.objects.get(this.#key(ref, name));
    if (found === undefined) {
      return Promise.reject(errorFromResponse({ verb: 'get', resource: ref.plural, namespace, name }, 404, undefined));
    }
    return Promise.resolve(structuredClone(found) as T);
  }

  replaceStatus<T extends KubeObject>(ref: ResourceRef, object: T): Promise<T> {
    this.calls.push({ verb: 'replaceStatus', ref, name: object.metadata?.name ?? '', body: structuredClone(object) });
    return Promise.resolve(object);
  }

  patch<T extends KubeObject>(
    ref: ResourceRef,
    _ns: string,
    name: string,
    _type: PatchType,
    patch: unknown,
  ): Promise<T> {
    this.calls.push({ verb: 'patch', ref, name, body: patch });
    return Promise.resolve({ metadata: { name } } as T);
  }

  create<T extends KubeObject>(ref: ResourceRef, object: T): Promise<T> {
    this.calls.push({ verb: 'create', ref, name: object.metadata?.name ?? '', body: object });
    return Promise.resolve(object);
  }

  /** Every object of `ref` put here (the caller filters by label, as chooseScmSecret does). */
  list<T extends KubeObject>(ref: ResourceRef): Promise<ListPage<T>> {
    this.calls.push({ verb: 'list', ref, name: '' });
    const items = [...this.objects].filter(([key]) => key.startsWith(`${ref.plural}/`)).map(([, o]) => o);
    return Promise.resolve({ items: structuredClone(items) as T[], resourceVersion: '1' });
  }

  replace = (): Promise<never> => Promise.reject(new Error('unused'));
  patchStatus = (): Promise<never> => Promise.reject(new Error('unused'));
  delete = (): Promise<never> => Promise.reject(new Error('unused'));
}

function component(name: string, spec: Record<string, unknown>, status?: Record<string, unknown>): ClusterComponent {
  return decoded(COMPONENTS_KIND, {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { name, namespace: NS },
    spec: { componentName: name, ...spec },
    ...(status === undefined ? {} : { status }),
  } as KubeObject);
}

export interface SetupOptions {
  /**
   * The forge resolver the reconciler uses, given the one over the local forge and the client
   * (which serves the Secrets put into it, as the manager's resolver reads them).
   */
  readonly forges?: (local: ForgeResolver, client: RecordingClient) => ForgeResolver;
  /** The nudged Component's spec.source.git.url; the local forge's repository by default. */
  readonly nudgedUrl?: string;
  /** The manager's executors as the reconciler fires through them; absent: dispatch is off. */
  readonly redispatcher?: ChangeGroupReconcilerOptions['redispatcher'];
}

export async function setup(prefix: string, options: SetupOptions = {}) {
  const dir = tempDir(prefix);
  const forge = new LocalForge({ root: join(dir, 'forge') });
  const repo = await forge.createRepository('acme', 'bundle-x', NUDGED_FILES);
  const client = new RecordingClient();
  const changeGroups = new Store<ClusterChangeGroup>();
  const components = new Store<ClusterComponent>();
  const nudgeConfigs = new Store<ClusterNudgeConfig>();
  const nudgeRuns = new Store<PipelineRun>();
  components.upsert(
    component('bundle-x', { source: { git: { url: options.nudgedUrl ?? repo.url, revision: 'main' } } }),
  );
  for (const c of COMPONENTS) {
    components.upsert(
      component(
        c,
        {
          'build-nudges-ref': ['bundle-x'],
          containerImage: `quay.io/org/${c}`,
          source: { git: { url: `https://forge.example/acme/${c}`, revision: 'main' } },
        },
        { lastPromotedImage: `quay.io/org/${c}@${OLD}` },
      ),
    );
  }
  changeGroups.upsert(
    decoded(CHANGE_GROUPS_KIND, {
      apiVersion: 'appstudio.redhat.com/v1alpha1',
      kind: 'ChangeGroup',
      // As after the first reconcile added it (the finalizer patch is not fed back here).
      metadata: {
        name: CG,
        namespace: NS,
        generation: 1,
        resourceVersion: '1',
        finalizers: ['nudger.konflux-ci.dev/release-held-nudges'],
      },
      spec: { nudgedComponent: 'bundle-x', nudgingComponents: COMPONENTS.map((name) => ({ name })) },
    } as KubeObject),
  );
  let minute = 0;
  const clock = () => new Date(Date.UTC(2025, 0, 15, 10, minute));
  const events: { reason: string; message: string }[] = [];
  const reconciler = new ChangeGroupReconciler({
    client,
    changeGroups,
    components,
    nudgeConfigs,
    nudgeRuns,
    builds: new BuildVerifier(client),
    forges: options.forges?.(new LocalForgeResolver(forge), client) ?? new LocalForgeResolver(forge),
    workspaces: new GitWorkspaces({ cacheDir: join(dir, 'cache') }),
    bot: BOT,
    link: { kind: 'kubectl' },
    pollIntervalMs: 60_000,
    events: { event: (_object, _type, reason, message) => events.push({ reason, message }) },
    clock,
    ...(options.redispatcher === undefined ? {} : { redispatcher: options.redispatcher }),
  });

  /** A held nudge of bundle-x from `source`; its build is served by the API unless `forged`. */
  const nudge = (source: string, digestChar: string, minutes: number, forged = false, pipeline?: string): void => {
    const build = pipeline ?? `${source}-on-push-${digestChar}`;
    nudgeRuns.upsert(
      nudgeRun({
        name: `nudge-${source}-${digestChar}`,
        namespace: NS,
        source,
        targets: 'bundle-x',
        pipeline: build,
        image: `quay.io/org/${source}:t${digestChar}`,
        extraAnnotations: { [HELD_TARGETS_ANNOTATION]: `bundle-x=${CG}` },
      }),
    );
    if (!forged) {
      client.put(
        PIPELINE_RUNS,
        buildRun({
          name: build,
          namespace: NS,
          component: source,
          digest: DIGEST(digestChar),
          url: `quay.io/org/${source}:t${digestChar}`,
          createdAt: new Date(Date.UTC(2025, 0, 15, 10, minutes)).toISOString().replace('.000Z', 'Z'),
        }),
      );
    }
  };

  /** One reconcile at `at` minutes; the status written (if any) is fed back as the watch would. */
  const reconcile = async (at: number) => {
    minute = at;
    // The status write reads the ChangeGroup first (read-modify-write), as the API server has it.
    const current = changeGroups.get(NS, CG);
    if (current !== undefined) client.put(CHANGE_GROUPS, current);
    try {
      return await reconciler.reconcile({ namespace: NS, name: CG }, new AbortController().signal);
    } finally {
      const written = client.calls.filter((c) => c.verb === 'replaceStatus').at(-1)?.body as KubeObject | undefined;
      if (written !== undefined) changeGroups.upsert(decoded(CHANGE_GROUPS_KIND, written));
    }
  };
  const status = (): ChangeGroupStatus => (changeGroups.get(NS, CG) as { status?: ChangeGroupStatus }).status ?? {};
  const forgeEvents = async () => (await readForgeEvents(forge, repo, 0)).events;
  const headMessage = (): string =>
    git(dir, '--git-dir', forge.gitDirectory(repo), 'log', '-1', '--format=%B', BRANCH).trim();
  /**
   * One reconcile at `at` minutes run by the runtime's Controller, as the manager runs it; returns
   * every line the Controller logged (JSON), up to and including the failure it reports.
   */
  const reconcileLogged = async (at: number): Promise<string[]> => {
    const lines: string[] = [];
    const stop = new AbortController();
    const record =
      (level: string) =>
      (fields: Record<string, unknown>, message: string): void => {
        lines.push(JSON.stringify({ level, ...fields, message }));
      };
    const once = async () => {
      try {
        return await reconcile(at);
      } finally {
        // After the Controller has logged the outcome (it does so as soon as this settles).
        setImmediate(() => {
          stop.abort();
        });
      }
    };
    const controller = new Controller({
      reconciler: { name: 'changegroup', reconcile: once },
      logger: { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') },
    });
    controller.enqueue({ namespace: NS, name: CG });
    await controller.start(stop.signal);
    return lines;
  };
  return {
    forge,
    repo,
    client,
    nudge,
    reconcile,
    reconcileLogged,
    status,
    forgeEvents,
    headMessage,
    events,
    dir,
    changeGroups,
    nudgeRuns,
  };
}
