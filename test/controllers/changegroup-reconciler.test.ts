// The ChangeGroup controller end to end on one machine: in-memory caches, a recording ObjectClient
// that serves the build PipelineRuns (D3), and the real local forge with real git (D5).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LocalForge, readForgeEvents } from '../../src/adapters/forges/local/local-forge.ts';
import { LocalForgeResolver } from '../../src/adapters/forges/local/local-resolver.ts';
import { Credentials } from '../../src/adapters/credentials/credentials.ts';
import { GitHubForge } from '../../src/adapters/forges/github/index.ts';
import type { ForgeResolver } from '../../src/adapters/forges/resolver.ts';
import { parseRepositoryUrl } from '../../src/adapters/forges/repository-url.ts';
import { closedPort } from '../adapters/forges/closed-port.ts';
import type { ObjectClient, PatchType } from '../../src/adapters/kubernetes/client.ts';
import { errorFromResponse } from '../../src/adapters/kubernetes/errors.ts';
import { PIPELINE_RUNS, CHANGE_GROUPS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import { GitWorkspaces } from '../../src/adapters/git/workspace.ts';
import { BuildVerifier } from '../../src/controllers/changegroup/build-verifier.ts';
import { ChangeGroupReconciler } from '../../src/controllers/changegroup/reconciler.ts';
import type { ComponentResource, NudgeConfigResource } from '../../src/cluster/nudgeconfig-objects.ts';
import { HELD_TARGETS_ANNOTATION } from '../../src/domain/changegroup/hold-decision.ts';
import { changeGroupBranch } from '../../src/domain/changegroup/model.ts';
import { hasSkipMarker } from '../../src/domain/pr-description/index.ts';
import { Store } from '../../src/runtime/store.ts';
import type { ChangeGroupStatus } from '../../src/schema/changegroup.ts';
import { buildRun, DIGEST, nudgeRun } from '../domain/changegroup/fixtures.ts';
import { git, removeTempDirs, tempDir } from '../adapters/git/helpers.ts';

const NS = 'my-tenant';
const CG = 'bundle-x-update';
const BRANCH = changeGroupBranch(CG);
const BOT = { name: 'nudger[bot]', email: 'nudger@example.com' };
const COMPONENTS = ['operand-a', 'operand-b', 'operator'] as const;
const OLD = DIGEST('0');

interface Call {
  readonly verb: string;
  readonly ref: ResourceRef;
  readonly name: string;
  readonly body?: unknown;
}

/** GETs from `objects` (404 otherwise); every write recorded and answered with what was sent. */
class RecordingClient implements ObjectClient {
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

  list = (): Promise<never> => Promise.reject(new Error('unused'));
  replace = (): Promise<never> => Promise.reject(new Error('unused'));
  patchStatus = (): Promise<never> => Promise.reject(new Error('unused'));
  delete = (): Promise<never> => Promise.reject(new Error('unused'));
}

function component(name: string, spec: Record<string, unknown>, status?: Record<string, unknown>): ComponentResource {
  return {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { name, namespace: NS },
    spec: { componentName: name, ...spec },
    ...(status === undefined ? {} : { status }),
  };
}

async function setup(prefix: string, options: { forges?: (local: ForgeResolver) => ForgeResolver } = {}) {
  const dir = tempDir(prefix);
  const forge = new LocalForge({ root: join(dir, 'forge') });
  const repo = await forge.createRepository('acme', 'bundle-x', {
    'manifests/csv.yaml': COMPONENTS.map((c) => `${c}: quay.io/org/${c}@${OLD}\n`).join(''),
  });
  const client = new RecordingClient();
  const changeGroups = new Store<KubeObject>();
  const components = new Store<ComponentResource>();
  const nudgeConfigs = new Store<NudgeConfigResource>();
  const nudgeRuns = new Store<KubeObject>();
  components.upsert(component('bundle-x', { source: { git: { url: repo.url, revision: 'main' } } }));
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
  changeGroups.upsert({
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
  } as KubeObject);
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
    forges: options.forges?.(new LocalForgeResolver(forge)) ?? new LocalForgeResolver(forge),
    workspaces: new GitWorkspaces({ cacheDir: join(dir, 'cache') }),
    bot: BOT,
    link: { kind: 'kubectl' },
    pollIntervalMs: 60_000,
    events: { event: (_object, _type, reason, message) => events.push({ reason, message }) },
    clock,
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
      if (written !== undefined) changeGroups.upsert(written);
    }
  };
  const status = (): ChangeGroupStatus => (changeGroups.get(NS, CG) as { status?: ChangeGroupStatus }).status ?? {};
  const forgeEvents = async () => (await readForgeEvents(forge, repo, 0)).events;
  const headMessage = (): string =>
    git(dir, '--git-dir', forge.gitDirectory(repo), 'log', '-1', '--format=%B', BRANCH).trim();
  return { forge, repo, client, nudge, reconcile, status, forgeEvents, headMessage, events, dir };
}

describe('ChangeGroupReconciler', () => {
  after(removeTempDirs);

  it('collects three held nudges one reconcile at a time into one PR, then makes the final push', async () => {
    const env = await setup('reconciler-flow');
    const { forge, repo } = env;

    env.nudge('operand-a', '1', 1);
    await env.reconcile(2);
    assert.equal(env.status().phase, 'Waiting');
    assert.equal(env.status().summary, '1/3');
    assert.ok(hasSkipMarker(env.headMessage()), env.headMessage());
    assert.equal((await forge.getPullRequest(repo, 1)).draft, true);

    env.nudge('operand-b', '2', 3);
    await env.reconcile(4);
    assert.equal(env.status().summary, '2/3');
    assert.ok(hasSkipMarker(env.headMessage()), env.headMessage());

    env.nudge('operator', '3', 5);
    const result = await env.reconcile(6);
    const final = env.status();
    assert.equal(final.phase, 'Ready');
    assert.equal(final.summary, '3/3');
    assert.equal(final.pullRequest?.final, true);
    assert.equal(final.pullRequest.draft, false);
    assert.equal(final.pullRequest.number, 1);
    assert.deepEqual(result, { requeueAfterMs: 60_000 });

    // One PR, ready for review, whose single commit writes all three digests without [skip ci].
    const pr = await forge.getPullRequest(repo, 1);
    assert.equal(pr.draft, false);
    assert.equal(pr.state, 'open');
    await assert.rejects(forge.getPullRequest(repo, 2), /no pull request #2/);
    assert.equal(hasSkipMarker(env.headMessage()), false, env.headMessage());
    assert.equal(pr.headSha, final.pullRequest.lastPushedCommit);
    const commits = await forge.listCommits(repo, 1);
    assert.equal(commits.length, 1);
    const manifest = git(env.dir, '--git-dir', forge.gitDirectory(repo), 'show', `${BRANCH}:manifests/csv.yaml`);
    assert.equal(
      manifest,
      ['1', '2', '3']
        .map((c, i) => `${COMPONENTS[i] ?? ''}: quay.io/org/${COMPONENTS[i] ?? ''}@${DIGEST(c)}\n`)
        .join(''),
    );

    // Ready for review came before the final push, so the final push is the one build.
    const types = (await env.forgeEvents()).map((e) => (e.type === 'push' ? `push ${e.ref}` : e.type));
    const readyAt = types.indexOf('ready_for_review');
    const pushes = types.map((t, i) => [t, i] as const).filter(([t]) => t === `push refs/heads/${BRANCH}`);
    assert.equal(pushes.length, 3);
    assert.ok(readyAt >= 0 && readyAt < (pushes.at(-1)?.[1] ?? -1), types.join(', '));
    assert.equal(types.filter((t) => t === 'opened').length, 1);
    assert.ok(env.events.some((e) => e.reason === 'FinalPush'));
  });

  it('converges: re-running with the status it wrote makes no forge or API writes', async () => {
    const env = await setup('reconciler-idempotent');
    env.nudge('operand-a', '1', 1);
    await env.reconcile(2);
    env.nudge('operand-b', '2', 3);
    env.nudge('operator', '3', 3);
    await env.reconcile(4);
    assert.equal(env.status().phase, 'Ready');

    const forgeBefore = (await env.forgeEvents()).length;
    const writesBefore = env.client.writes().length;
    await env.reconcile(10);
    await env.reconcile(20);
    assert.equal((await env.forgeEvents()).length, forgeBefore, 'no push and no PR change');
    assert.deepEqual(env.client.writes().slice(writesBefore), [], 'no status write, patch or create');
  });

  it('leaves the PR untouched for a forged nudge and reports BuildsVerified False', async () => {
    const env = await setup('reconciler-forged');
    env.nudge('operand-a', '1', 1);
    await env.reconcile(2);
    const before = await env.forgeEvents();
    const head = await env.forge.branchHead(env.repo, BRANCH);
    const body = (await env.forge.getPullRequest(env.repo, 1)).body;

    env.nudge('operand-b', '9', 3, true); // its build PipelineRun does not exist: GET is a 404
    await env.reconcile(4);

    assert.deepEqual(await env.forgeEvents(), before);
    assert.equal(await env.forge.branchHead(env.repo, BRANCH), head);
    assert.equal((await env.forge.getPullRequest(env.repo, 1)).body, body);
    const status = env.status();
    assert.equal(status.summary, '1/3');
    assert.equal(status.components?.find((c) => c.name === 'operand-b')?.newBuild, undefined);
    const verified = status.conditions?.find((c) => c.type === 'BuildsVerified');
    assert.equal(verified?.status, 'False');
    assert.equal(verified.reason, 'UnverifiedBuild');
    assert.match(verified.message, /nudge-operand-b-9 \(operand-b\): build-not-found/);
    assert.ok(!JSON.stringify(status).includes(DIGEST('9')));
    assert.ok(
      env.client.calls.some((c) => c.verb === 'get' && c.ref === PIPELINE_RUNS && c.name === 'operand-b-on-push-9'),
      'the build was looked up live',
    );
  });

  it('collects the genuine nudge when a forged one names a build the API server cannot look up', async () => {
    const env = await setup('reconciler-forged-name');
    // Before: the GET answered 400, only 404 was tolerated, and every reconcile failed for ever.
    env.nudge('operand-b', '8', 1, true, 'operand-b-on-push-%2e%2e');
    env.nudge('operand-a', '1', 2);
    await env.reconcile(3);
    const status = env.status();
    assert.equal(status.components?.find((c) => c.name === 'operand-a')?.state, 'Ready');
    assert.equal(status.pullRequest?.number, 1);
    const verified = status.conditions?.find((c) => c.type === 'BuildsVerified');
    assert.equal(verified?.status, 'False');
    assert.match(verified.message, /nudge-operand-b-8 \(operand-b\): invalid-build-name/);
    assert.ok(!env.client.calls.some((c) => c.verb === 'get' && c.name.includes('%')), 'never asked');
  });

  it('says in ForgeAvailable that the forge is unreachable, naming the host and never the token, and clears it', async () => {
    const token = 'ghp_reconcilerToken0123456789abcdefABCDEF';
    const port = await closedPort();
    let down = true;
    const env = await setup('reconciler-forge-down', {
      forges: (local) => ({
        resolve: (url, namespace, signal) =>
          down
            ? Promise.resolve({
                repo: parseRepositoryUrl('https://github.example/acme/bundle-x'),
                provider: new GitHubForge({
                  apiUrl: `http://127.0.0.1:${String(port)}/api/v3`,
                  credentials: new Credentials({ token }),
                }),
              })
            : local.resolve(url, namespace, signal),
      }),
    });
    env.nudge('operand-a', '1', 1);
    await assert.rejects(env.reconcile(2), /connection refused/);
    const failed = env.status().conditions?.find((c) => c.type === 'ForgeAvailable');
    assert.equal(failed?.status, 'False');
    assert.equal(failed.reason, 'ForgeUnreachable');
    assert.match(failed.message, new RegExp(`connection refused to 127\\.0\\.0\\.1:${String(port)}`));
    assert.match(failed.message, /^local forge: /, 'the host of the nudged repository comes first');
    assert.ok(!JSON.stringify(env.client.calls).includes(token), 'the token is in no status write');
    assert.ok(!JSON.stringify(env.events).includes(token), 'nor in any event');

    down = false;
    await env.reconcile(3);
    const cleared = env.status().conditions?.find((c) => c.type === 'ForgeAvailable');
    assert.equal(cleared?.status, 'True');
    assert.equal(cleared.reason, 'ForgeAvailable');
    assert.equal(env.status().components?.find((c) => c.name === 'operand-a')?.state, 'Ready');
  });
});
