// The `renovate` executor for GitLab-hosted targets, fired by the manager's dispatcher on a real
// kube-apiserver (docs/decisions.md D9, D12, N24, N32, N38): a push build of operand-a nudges
// operator-bundle on gitlab.com (in a subgroup) and on a self-hosted GitLab given as the manager's
// `--gitlab-host`, the token from each tenant's SCM Secret. The nudge PipelineRun, its ConfigMap
// and its Secret are wired as build-service wires them for GitLab: platform `gitlab`, the
// instance's `/api/v4/` endpoint, the repository's full path, the Secret's user (else
// `red-hat-konflux`, never the `oauth2` git transport name), the token in the Secret alone, and
// build-service's command with its GitLab settings.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import {
  COMPONENTS,
  CONFIG_MAPS,
  NAMESPACES,
  NUDGE_CONFIGS,
  PIPELINE_RUNS,
  SECRETS,
} from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { KonfluxStandIn } from '../../src/sandbox/konflux.ts';
import { RenovateNudgeConfig } from '../../src/schema/renovate-config.ts';
import { assertNoSecrets, tokenForms } from '../support/secret-leaks.ts';
import { sandboxComponent } from '../sandbox/local-forge-fixtures.ts';
import { scmSecret } from './changegroup-tenant.ts';
import { SANDBOX_CRDS, startControlPlane, type ControlPlane } from './harness/control-plane.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';

const SELF_HOSTED = 'gitlab.example.com';
const TOKEN = 'glpat-renovateGitLabTokenMustNotLeak0123';

interface Stored extends KubeObject {
  data?: Record<string, string>;
  spec?: {
    taskRunTemplate?: { serviceAccountName?: string };
    pipelineSpec?: { tasks?: { taskSpec?: { steps?: { command?: string[]; envFrom?: unknown }[] } }[] };
  };
}

interface Tenant {
  readonly namespace: string;
  /** Where the operand and the bundle live: `https://<host>/<group path>`. */
  readonly base: string;
  /** The SCM Secret's host label and username (none: build-service's default user). */
  readonly secretHost: string;
  readonly username?: string;
}

let plane: ControlPlane;
let client: KubeClient;
let manager: TestManager;

before(async () => {
  plane = await startControlPlane({ crds: SANDBOX_CRDS });
  client = new KubeClient(plane.kubeConfig);
  manager = await startTestManager(plane.kubeConfig, {
    changeGroups: {
      // `--gitlab-host gitlab.example.com`: the API at the instance's /api/v4, as the CLI defaults it.
      forgeHosts: new Map([[SELF_HOSTED, { kind: 'gitlab', apiUrl: `https://${SELF_HOSTED}/api/v4` }]]),
    },
    overrides: { dispatch: { enabled: true, defaultExecutor: 'renovate' } },
  });
});

after(async () => {
  await manager.stop();
  client.close();
  await plane.close();
});

/** The tenant's Components, SCM Secret and NudgeConfig; a push build of operand-a; its nudge run. */
async function nudgeRun(tenant: Tenant): Promise<{ run: Stored; configMap: Stored; secret: Stored }> {
  const ns = tenant.namespace;
  await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await client.create(SECRETS, scmSecret(ns, tenant.secretHost, TOKEN, tenant.username));
  for (const name of ['operand-a', 'operator-bundle']) {
    await client.create(COMPONENTS, sandboxComponent(ns, name, `${tenant.base}/${name}`));
  }
  await client.create(NUDGE_CONFIGS, {
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name: 'nudge-config', namespace: ns },
    spec: { nudges: [{ from: 'operand-a', to: 'operator-bundle' }] },
  } as KubeObject);
  await new KonfluxStandIn(client, { seed: ns }).recordBuild({ namespace: ns, component: 'operand-a', nudge: false });
  const name = await eventually(`the renovate executor's nudge run in ${ns}`, async () => {
    const runs = await client.list<Stored>(PIPELINE_RUNS, {
      namespace: ns,
      labelSelector: 'build.appstudio.redhat.com/type=nudge',
    });
    return runs.items[0]?.metadata?.name;
  });
  const [run, configMap, secret] = await Promise.all(
    [PIPELINE_RUNS, CONFIG_MAPS, SECRETS].map((ref) =>
      eventually(`${ref.plural} ${name}`, () => client.get<Stored>(ref, ns, name)),
    ),
  );
  assert.ok(run !== undefined && configMap !== undefined && secret !== undefined);
  return { run, configMap, secret };
}

/** What every GitLab run must hold, whatever the instance: the command, the token and only there. */
function assertWiring(stored: { run: Stored; configMap: Stored; secret: Stored }): RenovateNudgeConfig {
  const { run, configMap, secret } = stored;
  const step = run.spec?.pipelineSpec?.tasks?.[0]?.taskSpec?.steps?.[0];
  assert.ok(step !== undefined);
  // build-service's command, its GitLab merge-request settings included; the token only by reference.
  assert.equal(step.command?.[0], 'bash');
  assert.equal(
    step.command.at(-1),
    'RENOVATE_X_GITLAB_MERGE_REQUEST_DELAY=5000 RENOVATE_X_GITLAB_AUTO_MERGEABLE_CHECK_ATTEMPS=11 ' +
      'RENOVATE_PR_HOURLY_LIMIT=0 RENOVATE_PR_CONCURRENT_LIMIT=0 RENOVATE_TOKEN=$TOKEN_token_0 ' +
      'RENOVATE_CONFIG_FILE=/configs/operator-bundle-0.json renovate',
  );
  assert.deepEqual(step.envFrom, [{ prefix: 'TOKEN_', secretRef: { name: secret.metadata?.name } }]);
  const text = configMap.data?.['operator-bundle-0.json'];
  assert.ok(text !== undefined, 'one config, keyed as integration-service keys it');
  const config = JSON.parse(text) as RenovateNudgeConfig;
  assert.equal(new Ajv({ strict: false }).validate(RenovateNudgeConfig, config), true);
  assert.equal(config.platform, 'gitlab');
  assert.equal(Buffer.from(secret.data?.token_0 ?? '', 'base64').toString('utf8'), TOKEN);
  assertNoSecrets(
    { 'the nudge PipelineRun': JSON.stringify(run), 'its ConfigMap': JSON.stringify(configMap) },
    tokenForms(TOKEN, ['oauth2']),
  );
  return config;
}

describe('the renovate executor on GitLab, fired by the manager', () => {
  it('gitlab.com, a subgroup, a Secret without username: the public endpoint, the full path, red-hat-konflux', async () => {
    const config = assertWiring(
      await nudgeRun({ namespace: 'gl-public', base: 'https://gitlab.com/acme/operators', secretHost: 'gitlab.com' }),
    );
    assert.equal(config.endpoint, 'https://gitlab.com/api/v4/');
    assert.deepEqual(
      config.repositories.map((repository) => repository.repository),
      ['acme/operators/operator-bundle'],
    );
    // No username in the Secret: build-service's default user, not GitLab's `oauth2` git user (N38).
    assert.equal(config.username, 'red-hat-konflux');
    assert.equal(config.gitAuthor, 'red-hat-konflux <123456+red-hat-konflux[bot]@users.noreply.gitlab.com>');
  });

  it('a self-hosted GitLab (--gitlab-host): its own /api/v4/ endpoint and the Secret’s user', async () => {
    const config = assertWiring(
      await nudgeRun({
        namespace: 'gl-self-hosted',
        base: `https://${SELF_HOSTED}/platform`,
        secretHost: SELF_HOSTED,
        username: 'konflux-bot',
      }),
    );
    assert.equal(config.endpoint, `https://${SELF_HOSTED}/api/v4/`);
    assert.deepEqual(
      config.repositories.map((repository) => repository.repository),
      ['platform/operator-bundle'],
    );
    assert.equal(config.username, 'konflux-bot');
    assert.equal(config.gitAuthor, `konflux-bot <123456+konflux-bot[bot]@users.noreply.${SELF_HOSTED}>`);
  });
});
