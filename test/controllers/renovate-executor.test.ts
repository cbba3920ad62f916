// The `renovate` executor over an in-memory API server (docs/decisions.md D9, N18): the three objects
// in build-service's order, idempotency by the request's key across repeats and interrupted
// attempts, the token in the Secret and nowhere else, and each failure classified.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ForgeError } from '../../src/adapters/forges/errors.ts';
import { HostedForgeResolver } from '../../src/adapters/forges/hosted-resolver.ts';
import { publicForgeHosts } from '../../src/adapters/forges/registry.ts';
import { ForgeResolutionError } from '../../src/adapters/forges/resolver.ts';
import type { WriteOptions } from '../../src/adapters/kubernetes/client.ts';
import { toKubeApiError } from '../../src/adapters/kubernetes/errors.ts';
import { CONFIG_MAPS, PIPELINE_RUNS, SECRETS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import {
  ForgeResolverAccess,
  type RenovateForgeAccessResolver,
} from '../../src/controllers/dispatch/renovate/forge-access.ts';
import { RenovateExecutor } from '../../src/controllers/dispatch/renovate/renovate-executor.ts';
import { readRenovateSettings } from '../../src/domain/nudge/renovate-settings.ts';
import { FakeObjectClient, status } from '../runtime/fakes.ts';
import { validatedGroupName } from '../../src/domain/nudge/validated-text.ts';
import type { RenovateNudgeConfig } from '../../src/schema/renovate-config.ts';
import {
  BUILD_NAME,
  BUILD_NAME_B,
  GROUP,
  KEY,
  NS,
  SHA,
  TOKEN,
  batchRequest,
  component,
  fakeForgeAccess,
  renovateRequest,
} from './renovate-executor-fixtures.ts';

const NAME = `renovate-pipeline-${KEY}`;

/** The fake, plus what the API server adds on create: a uid. */
class ApiServer extends FakeObjectClient {
  #uids = 0;
  override create<T extends KubeObject>(ref: ResourceRef, object: T, options?: WriteOptions): Promise<T> {
    this.#uids += 1;
    const withUid = { ...object, metadata: { ...object.metadata, uid: `uid-${String(this.#uids)}` } };
    return super.create(ref, withUid, options);
  }

  stored(ref: ResourceRef): KubeObject[] {
    return [...this.objects.entries()].filter(([key]) => key.startsWith(`${ref.plural}/`)).map(([, o]) => o);
  }

  creates(): string[] {
    return this.calls.filter((c) => c.verb === 'create').map((c) => `${c.ref.plural}/${c.name}`);
  }
}

type Result = Awaited<ReturnType<RenovateExecutor['fire']>>['result'];

/** The failure's reason, permanence and message; fails the test when the fire succeeded. */
function failure(result: Result): { reason: string; permanent: boolean; message: string } {
  if (result.ok) return assert.fail(`expected a failure, got ok ${result.detail ?? ''}`);
  return { reason: result.reason, permanent: result.permanent === true, message: result.message };
}

function executor(client: FakeObjectClient, access: RenovateForgeAccessResolver = fakeForgeAccess()) {
  return new RenovateExecutor({ client, forgeAccess: access });
}

describe('RenovateExecutor.fire', () => {
  it('creates the PipelineRun first, then its ConfigMap and Secret owned by it; ok names the run', async () => {
    const api = new ApiServer();
    const outcome = await executor(api).fire(renovateRequest());
    assert.deepEqual(outcome.result, { ok: true, detail: NAME });
    assert.deepEqual(api.creates(), [`pipelineruns/${NAME}`, `configmaps/${NAME}`, `secrets/${NAME}`]);
    const [run] = api.stored(PIPELINE_RUNS);
    const uid = run?.metadata?.uid;
    for (const ref of [CONFIG_MAPS, SECRETS]) {
      assert.deepEqual(api.stored(ref)[0]?.metadata?.ownerReferences, [
        { apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', name: NAME, uid, controller: false },
      ]);
    }
    assert.equal(run?.metadata?.annotations?.['build.appstudio.redhat.com/nudged-components'], 'operator-bundle');
  });

  it('twice with the same key: one PipelineRun, one ConfigMap, one Secret, both fires ok', async () => {
    const api = new ApiServer();
    const fire = executor(api);
    assert.equal((await fire.fire(renovateRequest())).result.ok, true);
    const uid = api.stored(PIPELINE_RUNS)[0]?.metadata?.uid;
    assert.deepEqual((await fire.fire(renovateRequest({ attempt: 2 }))).result, { ok: true, detail: NAME });
    for (const ref of [PIPELINE_RUNS, CONFIG_MAPS, SECRETS]) assert.equal(api.stored(ref).length, 1, ref.plural);
    assert.equal(api.stored(PIPELINE_RUNS)[0]?.metadata?.uid, uid);
    assert.equal(api.stored(SECRETS)[0]?.metadata?.ownerReferences?.length, 1);
  });

  it('an attempt cut short after the PipelineRun is completed by the next, never a second run', async () => {
    const api = new ApiServer();
    api.fault = (verb, ref) =>
      verb === 'create' && ref === CONFIG_MAPS ? status(503, 'ServiceUnavailable') : undefined;
    const first = await executor(api).fire(renovateRequest());
    assert.deepEqual([failure(first.result).reason, failure(first.result).permanent], ['api-unavailable', false]);
    assert.equal(api.stored(PIPELINE_RUNS).length, 1);
    api.fault = undefined;
    assert.deepEqual((await executor(api).fire(renovateRequest({ attempt: 2 }))).result, { ok: true, detail: NAME });
    const uid = api.stored(PIPELINE_RUNS)[0]?.metadata?.uid;
    assert.equal(api.stored(PIPELINE_RUNS).length, 1);
    for (const ref of [CONFIG_MAPS, SECRETS]) {
      const [owner] = (api.stored(ref)[0]?.metadata?.ownerReferences ?? []) as { uid?: string }[];
      assert.equal(owner?.uid, uid, ref.plural);
    }
  });

  it('a PipelineRun of that name that is not this nudge is not adopted', async () => {
    const api = new ApiServer();
    await api.create(PIPELINE_RUNS, { metadata: { name: NAME, namespace: NS } });
    const { result } = await executor(api).fire(renovateRequest());
    assert.deepEqual([failure(result).reason, failure(result).permanent], ['name-taken', true]);
    assert.equal(api.stored(CONFIG_MAPS).length + api.stored(SECRETS).length, 0);
  });

  it('runs as build-pipeline-<nudging> when it exists, else appstudio-pipeline, as build-service', async () => {
    const serviceAccount = async (api: ApiServer) => {
      await executor(api).fire(renovateRequest());
      const run = api.stored(PIPELINE_RUNS)[0] as { spec?: { taskRunTemplate?: { serviceAccountName?: string } } };
      return run.spec?.taskRunTemplate?.serviceAccountName;
    };
    assert.equal(await serviceAccount(new ApiServer()), 'appstudio-pipeline');
    const api = new ApiServer();
    const sa: ResourceRef = {
      group: '',
      version: 'v1',
      plural: 'serviceaccounts',
      kind: 'ServiceAccount',
      namespaced: true,
    };
    await api.create(sa, { metadata: { name: 'build-pipeline-operand-a', namespace: NS } });
    assert.equal(await serviceAccount(api), 'build-pipeline-operand-a');
    // Without RBAC to read service accounts, the current Konflux one, rather than no nudge at all.
    const denied = new ApiServer();
    denied.fault = (verb, ref) =>
      verb === 'get' && ref.plural === 'serviceaccounts' ? status(403, 'Forbidden') : undefined;
    assert.equal(await serviceAccount(denied), 'build-pipeline-operand-a');
  });
});

describe('a build link nudger may not quote', () => {
  it('is left out of the config with a Warning, as the direct executor leaves it out', async () => {
    const api = new ApiServer();
    const request = renovateRequest();
    const buildRun = {
      ...request.buildRun,
      metadata: {
        ...request.buildRun.metadata,
        annotations: { 'build.appstudio.openshift.io/repo': 'file:///srv/forge/acme/operand-a.git?rev=abc' },
      },
    };
    const outcome = await executor(api).fire({ ...request, buildRun });
    assert.deepEqual(outcome.result, { ok: true, detail: NAME });
    assert.deepEqual(
      outcome.notices?.map((n) => [n.type, n.reason]),
      [['Warning', 'NudgeBuildLinkIgnored']],
    );
    const data = (api.stored(CONFIG_MAPS)[0] as { data?: Record<string, string> }).data ?? {};
    const config = JSON.parse(data['operator-bundle-0.json'] ?? '{}') as { packageRules: { prHeader?: string }[] };
    assert.equal(config.packageRules[1]?.prHeader, "Image created from ''");
    const run = api.stored(PIPELINE_RUNS)[0];
    assert.equal(run?.metadata?.annotations?.['build.appstudio.redhat.com/nudging-commit'], '');
  });
});

describe('the token goes into the Secret only', () => {
  it('not into the PipelineRun, the ConfigMap, the result or notices', async () => {
    const api = new ApiServer();
    const outcome = await executor(api).fire(renovateRequest());
    assert.equal(JSON.stringify(api.stored(SECRETS)).includes(TOKEN), true);
    const elsewhere = JSON.stringify([api.stored(PIPELINE_RUNS), api.stored(CONFIG_MAPS), outcome]);
    assert.equal(elsewhere.includes(TOKEN), false);
    assert.equal(elsewhere.includes(Buffer.from(TOKEN).toString('base64')), false);
  });

  it('not into a failure message, even when the API server echoes it', async () => {
    const api = new ApiServer();
    api.fault = (verb, ref) =>
      verb === 'create' && ref === SECRETS
        ? status(422, 'Invalid', `stringData.token_0: Invalid value: "${TOKEN}"`)
        : undefined;
    const outcome = await executor(api).fire(renovateRequest());
    assert.equal(failure(outcome.result).reason, 'invalid-object');
    assert.equal(JSON.stringify(outcome).includes(TOKEN), false);
    assert.match(JSON.stringify(outcome), /\[redacted\]/);
  });
});

describe('failures are classified (docs/decisions.md N18)', () => {
  const failOn = (code: number, reason: string) => async () => {
    const api = new ApiServer();
    api.fault = (verb, ref) => (verb === 'create' && ref === PIPELINE_RUNS ? status(code, reason) : undefined);
    return (await executor(api).fire(renovateRequest())).result;
  };

  it('5xx, 429 and no answer at all are retried: api-unavailable', async () => {
    for (const [code, reason] of [
      [500, 'InternalError'],
      [503, 'ServiceUnavailable'],
      [504, 'Timeout'],
      [429, 'TooManyRequests'],
    ] as const) {
      const result = failure(await failOn(code, reason)());
      assert.deepEqual([result.reason, result.permanent], ['api-unavailable', false]);
    }
    const api = new ApiServer();
    // A transport error reaches the executor as the client maps it: a KubeApiError with status 0.
    api.create = () =>
      Promise.reject(toKubeApiError({ verb: 'create', resource: 'pipelineruns' }, new Error('ETIMEDOUT')));
    assert.equal(failure((await executor(api).fire(renovateRequest())).result).reason, 'api-unavailable');
  });

  it('403 is permanent: forbidden', async () => {
    const result = failure(await failOn(403, 'Forbidden')());
    assert.deepEqual([result.reason, result.permanent], ['forbidden', true]);
  });

  it('no SCM Secret for the repository is permanent: no-credentials, and nothing is created', async () => {
    const api = new ApiServer();
    const access = new ForgeResolverAccess(new HostedForgeResolver(api, publicForgeHosts()), {
      hosts: publicForgeHosts(),
    });
    const result = failure((await executor(api, access).fire(renovateRequest())).result);
    assert.deepEqual([result.reason, result.permanent], ['no-credentials', true]);
    assert.deepEqual(api.creates(), []);
  });

  it('a forge that cannot be reached is retried, one that refuses the credentials is not', async () => {
    const unreachable = fakeForgeAccess(
      () => new ForgeError({ forge: 'github', operation: 'installationToken', repo: 'acme/x', reason: 'timeout' }),
    );
    const refused = fakeForgeAccess(
      () =>
        new ForgeError({ forge: 'github', operation: 'installationToken', repo: 'acme/x', reason: 'no', status: 404 }),
    );
    const noForge = fakeForgeAccess(
      () => new ForgeResolutionError('https://x.example/a/b', NS, 'no forge', 'no-forge'),
    );
    const reasons = [];
    for (const access of [unreachable, refused, noForge]) {
      const result = failure((await executor(new ApiServer(), access).fire(renovateRequest())).result);
      reasons.push([result.reason, result.permanent]);
    }
    assert.deepEqual(reasons, [
      ['forge-unavailable', false],
      ['no-credentials', true],
      ['no-forge', true],
    ]);
  });

  it('an input nudger refuses is permanent and names the field', async () => {
    const request = renovateRequest({ nudged: component('operator-bundle', '') });
    const result = failure((await executor(new ApiServer()).fire(request)).result);
    assert.equal(result.reason, 'invalid-nudge-input');
    assert.match(result.message, /spec\.source\.git\.url/);
  });
});

describe('every setting reaches the generated config', () => {
  it('ConfigMap keys, fileMatch, simple branch and distribution repositories', async () => {
    const api = new ApiServer();
    const { settings } = readRenovateSettings({
      name: 'namespace-wide-nudging-renovate-config',
      data: {
        automerge: 'true',
        automergeType: 'branch',
        platformAutomerge: 'false',
        ignoreTests: 'true',
        gitLabIgnoreApprovals: 'true',
        commitMessagePrefix: 'chore(deps):',
        commitMessageSuffix: '[skip ci]',
        labels: 'team-a, nudge',
        automergeSchedule: 'after 10pm; before 5am',
        fileMatch: 'bundle/.*\\.yaml',
      },
    });
    await executor(api).fire(
      renovateRequest({
        settings,
        fileMatch: ['bundle/.*\\.yaml'],
        simpleBranch: true,
        distributionRepositories: ['registry.redhat.io/acme/operand-a'],
      }),
    );
    const data = (api.stored(CONFIG_MAPS)[0] as { data?: Record<string, string> }).data ?? {};
    const config = JSON.parse(data['operator-bundle-0.json'] ?? '{}') as Record<string, unknown>;
    assert.deepEqual(
      {
        automerge: config.automerge,
        automergeType: config.automergeType,
        platformAutomerge: config.platformAutomerge,
        ignoreTests: config.ignoreTests,
        gitLabIgnoreApprovals: config.gitLabIgnoreApprovals,
        labels: config.labels,
        automergeSchedule: config.automergeSchedule,
        registryAliases: config.registryAliases,
      },
      {
        automerge: true,
        automergeType: 'branch',
        platformAutomerge: false,
        ignoreTests: true,
        gitLabIgnoreApprovals: true,
        labels: ['konflux-nudge', 'team-a', 'nudge'],
        automergeSchedule: ['after 10pm', 'before 5am'],
        registryAliases: { 'registry.redhat.io/acme/operand-a': 'quay.io/acme/operand-a' },
      },
    );
    const [manager] = config.customManagers as [{ fileMatch: string[]; matchStrings: string[] }];
    assert.deepEqual(manager.fileMatch, ['bundle/.*\\.yaml']);
    assert.equal(manager.matchStrings.length, 2);
    const [, rule] = config.packageRules as Record<string, unknown>[];
    assert.deepEqual(
      [rule?.additionalBranchPrefix, rule?.commitMessagePrefix, rule?.commitMessageSuffix],
      ['', 'chore(deps):', '[skip ci]'],
    );
    assert.deepEqual(config.repositories, [{ repository: 'acme/operator-bundle', baseBranches: ['main'] }]);
  });
});

describe('RenovateExecutor.fireBatch: a validated batch in one run (docs/decisions.md N29)', () => {
  const batchName = () => `renovate-pipeline-${batchRequest().key}`;
  const storedConfig = (api: ApiServer) => {
    const data = (api.stored(CONFIG_MAPS)[0] as { data?: Record<string, string> }).data ?? {};
    assert.deepEqual(Object.keys(data), ['operator-bundle-0.json']);
    return JSON.parse(data['operator-bundle-0.json'] ?? '{}') as RenovateNudgeConfig;
  };

  it('one run named from the batch key, its ConfigMap and Secret; the config covers every component', async () => {
    const api = new ApiServer();
    const outcome = await executor(api).fireBatch(batchRequest());
    assert.deepEqual(outcome.result, { ok: true, detail: batchName() });
    assert.deepEqual(api.creates(), [
      `pipelineruns/${batchName()}`,
      `configmaps/${batchName()}`,
      `secrets/${batchName()}`,
    ]);
    const config = storedConfig(api);
    assert.deepEqual(
      config.customManagers.map((m) => [m.depNameTemplate, m.currentValueTemplate]),
      [
        ['quay.io/acme/operand-a', SHA],
        ['quay.io/acme/operand-b', SHA],
      ],
    );
    const [, rule] = config.packageRules;
    assert.deepEqual(
      [rule.groupName, rule.groupSlug, rule.branchPrefix, rule.additionalBranchPrefix],
      [validatedGroupName(GROUP), 'operator-bundle-validated-operators', 'konflux/component-updates/', ''],
    );
    assert.match(rule.prHeader, /operand-a \| `sha256:62f4ce6a+` \| `operators-8x2kq`/);
    assert.match(rule.prHeader, /operand-b \| `sha256:b0b0b0bb+` \| `operators-m4n7z`/);
    const annotations = api.stored(PIPELINE_RUNS)[0]?.metadata?.annotations ?? {};
    assert.deepEqual(
      [
        annotations['build.appstudio.redhat.com/nudged-components'],
        annotations['build.appstudio.redhat.com/nudging-component'],
        annotations['nudger.konflux-ci.dev/gating-group'],
        annotations['nudger.konflux-ci.dev/nudging-components'],
        annotations['nudger.konflux-ci.dev/nudging-pipelines'],
        annotations['nudger.konflux-ci.dev/validated-snapshots'],
      ],
      [
        'operator-bundle',
        'operand-a',
        GROUP,
        'operand-a operand-b',
        `operand-a=${BUILD_NAME} operand-b=${BUILD_NAME_B}`,
        'operand-a=operators-8x2kq operand-b=operators-m4n7z',
      ],
    );
    assert.equal(JSON.stringify([api.stored(PIPELINE_RUNS), api.stored(CONFIG_MAPS), outcome]).includes(TOKEN), false);
    assert.equal(JSON.stringify(api.stored(SECRETS)).includes(TOKEN), true);
  });

  it('repeated with the same key (a crash after the run): the one run completed, never a second', async () => {
    const api = new ApiServer();
    api.fault = (verb, ref) => (verb === 'create' && ref === SECRETS ? status(503, 'ServiceUnavailable') : undefined);
    const first = await executor(api).fireBatch(batchRequest());
    assert.deepEqual([failure(first.result).reason, failure(first.result).permanent], ['api-unavailable', false]);
    api.fault = undefined;
    const again = await executor(api).fireBatch(batchRequest({ attempt: 2 }));
    assert.deepEqual(again.result, { ok: true, detail: batchName() });
    assert.deepEqual((await executor(api).fireBatch(batchRequest({ attempt: 3 }))).result, again.result);
    for (const ref of [PIPELINE_RUNS, CONFIG_MAPS, SECRETS]) assert.equal(api.stored(ref).length, 1, ref.plural);
  });

  it('one run per key: other content is another run; a run of that name for another batch is not adopted', async () => {
    const api = new ApiServer();
    const one = batchRequest();
    const [a] = one.entries;
    assert.ok(a !== undefined);
    const other = batchRequest({ key: 'f00df00df00df00d', entries: [a] });
    assert.equal((await executor(api).fireBatch(one)).result.ok, true);
    assert.deepEqual((await executor(api).fireBatch(other)).result, {
      ok: true,
      detail: 'renovate-pipeline-f00df00df00df00d',
    });
    assert.equal(api.stored(PIPELINE_RUNS).length, 2);
    // The same name for a batch of another group (or another set of builds) is someone else's.
    const taken = await executor(api).fireBatch({ ...other, gatingGroup: 'bundles' });
    assert.deepEqual([failure(taken.result).reason, failure(taken.result).permanent], ['name-taken', true]);
  });

  it('a later batch carries the components an earlier run of its branch pinned, so the open PR keeps them', async () => {
    const api = new ApiServer();
    assert.equal((await executor(api).fireBatch(batchRequest())).result.ok, true);
    const [, b] = batchRequest().entries;
    assert.ok(b !== undefined);
    const newer = `sha256:${'c3'.repeat(32)}`;
    const rebuilt = {
      ...b,
      snapshot: 'operators-z1y2x',
      build: { ...b.build, digest: newer, pipelineRun: 'operand-b-on-push-r5t6y' },
    };
    const later = batchRequest({ key: 'c0ffeec0ffeec0ff', entries: [rebuilt] });
    assert.deepEqual((await executor(api).fireBatch(later)).result, {
      ok: true,
      detail: 'renovate-pipeline-c0ffeec0ffeec0ff',
    });
    const run = api.stored(PIPELINE_RUNS).find((r) => r.metadata?.name === 'renovate-pipeline-c0ffeec0ffeec0ff');
    const annotations = run?.metadata?.annotations ?? {};
    assert.deepEqual(
      [
        annotations['nudger.konflux-ci.dev/nudging-components'],
        annotations['nudger.konflux-ci.dev/validated-snapshots'],
      ],
      ['operand-a operand-b', 'operand-a=operators-8x2kq operand-b=operators-z1y2x'],
    );
    const configMap = api.stored(CONFIG_MAPS).find((c) => c.metadata?.name === 'renovate-pipeline-c0ffeec0ffeec0ff');
    const data = (configMap as { data?: Record<string, string> } | undefined)?.data ?? {};
    const config = JSON.parse(data['operator-bundle-0.json'] ?? '{}') as RenovateNudgeConfig;
    assert.deepEqual(
      config.customManagers.map((m) => [m.depNameTemplate, m.currentValueTemplate]),
      [
        ['quay.io/acme/operand-a', SHA],
        ['quay.io/acme/operand-b', SHA],
      ],
    );
    assert.match(config.packageRules[1].prHeader, new RegExp(`operand-b \\| \`${newer}\``));
  });

  it("nothing is carried when the earlier run's ConfigMap is gone", async () => {
    const api = new ApiServer();
    assert.equal((await executor(api).fireBatch(batchRequest())).result.ok, true);
    api.objects.delete(`configmaps/${NS}/${batchName()}`);
    const [, b] = batchRequest().entries;
    assert.ok(b !== undefined);
    const later = batchRequest({ key: 'c0ffeec0ffeec0ff', entries: [b] });
    assert.equal((await executor(api).fireBatch(later)).result.ok, true);
    const config = JSON.parse(
      (api.stored(CONFIG_MAPS)[0] as { data?: Record<string, string> }).data?.['operator-bundle-0.json'] ?? '{}',
    ) as RenovateNudgeConfig;
    assert.deepEqual(
      config.customManagers.map((m) => m.depNameTemplate),
      ['quay.io/acme/operand-b'],
    );
  });

  it('an entry nudger refuses fails the batch permanently, naming the field; nothing is created', async () => {
    const api = new ApiServer();
    const request = batchRequest();
    const entries = request.entries.map((e, i) => (i === 1 ? { ...e, snapshot: 'Not_A_Name' } : e));
    const { result } = await executor(api).fireBatch({ ...request, entries });
    assert.deepEqual([failure(result).reason, failure(result).permanent], ['invalid-nudge-input', true]);
    assert.match(failure(result).message, /components\[1\]\.snapshot/);
    assert.deepEqual(api.creates(), []);
  });
});
