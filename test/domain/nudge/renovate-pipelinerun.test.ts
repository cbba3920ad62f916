// The renovate executor's objects against build-service's shape (konflux-upstream §2, konflux-wave2
// §A1, as docs/decisions.md D9 summarises them): name, label, the five annotations, the inline
// Renovate task, the ConfigMap and Secret named like the run and owned by it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NudgeInputError } from '../../../src/domain/nudge/errors.ts';
import { renovateNudgeConfig } from '../../../src/domain/nudge/renovate-config.ts';
import {
  DEFAULT_RENOVATE_IMAGE,
  nudgingCommit,
  renovateCommand,
  renovateConfigsMap,
  renovateNudgeConfigMap,
  renovateNudgePipelineRun,
  renovateNudgeTokenSecret,
  renovatePipelineRunName,
  renovateTokensSecret,
  type RenovateNudgeRunInput,
} from '../../../src/domain/nudge/renovate-pipelinerun.ts';
import { NO_RENOVATE_SETTINGS } from '../../../src/domain/nudge/renovate-settings.ts';
import { GITHUB_TARGET } from './renovate-fixtures.ts';

const SHA = '0123456789abcdef0123456789abcdef01234567';
const LINK = `https://github.com/acme/operand-a?rev=${SHA}`;
const TOKEN = 'ghp_not-a-real-token-0123456789';
const config = renovateNudgeConfig({
  target: GITHUB_TARGET,
  nudging: 'operand-a',
  nudged: 'operator-bundle',
  simpleBranch: false,
  builtRepository: 'quay.io/acme/operand-a',
  builtTag: SHA,
  distributionRepositories: [],
  repoAtShaLink: LINK,
  settings: NO_RENOVATE_SETTINGS,
  fileMatch: ['.*\\.yaml'],
});

const input = (overrides: Partial<RenovateNudgeRunInput> = {}): RenovateNudgeRunInput => ({
  namespace: 'tenant',
  key: '0a1b2c3d4e5f6071',
  nudging: 'operand-a',
  nudged: 'operator-bundle',
  buildPipelineRun: 'operand-a-on-push-x7k2p',
  imageUrl: `quay.io/acme/operand-a:${SHA}`,
  repoAtShaLink: LINK,
  serviceAccountName: 'build-pipeline-operand-a',
  ...overrides,
});

const NAME = 'renovate-pipeline-0a1b2c3d4e5f6071';
const OWNER = { name: NAME, uid: '6f1c1c2e-0000-4000-8000-000000000001' };

describe('renovateNudgePipelineRun: build-service CreateRenovaterPipeline', () => {
  it('is exactly the upstream shape, named from the key', () => {
    assert.deepEqual(renovateNudgePipelineRun(input()), {
      apiVersion: 'tekton.dev/v1',
      kind: 'PipelineRun',
      metadata: {
        name: NAME,
        namespace: 'tenant',
        labels: { 'build.appstudio.redhat.com/type': 'nudge' },
        annotations: {
          'build.appstudio.redhat.com/nudged-components': 'operator-bundle',
          'build.appstudio.redhat.com/nudging-commit': `operand-a?rev=${SHA}`,
          'build.appstudio.redhat.com/nudging-component': 'operand-a',
          'build.appstudio.redhat.com/nudging-image': `quay.io/acme/operand-a:${SHA}`,
          'build.appstudio.redhat.com/nudging-pipeline': 'operand-a-on-push-x7k2p',
        },
      },
      spec: {
        pipelineSpec: {
          tasks: [
            {
              name: 'renovate',
              taskSpec: {
                steps: [
                  {
                    name: 'renovate',
                    image: DEFAULT_RENOVATE_IMAGE,
                    envFrom: [{ prefix: 'TOKEN_', secretRef: { name: NAME } }],
                    env: [{ name: 'LOG_LEVEL', value: 'debug' }],
                    command: [
                      'bash',
                      '-c',
                      'RENOVATE_X_GITLAB_MERGE_REQUEST_DELAY=5000 RENOVATE_X_GITLAB_AUTO_MERGEABLE_CHECK_ATTEMPS=11 ' +
                        'RENOVATE_PR_HOURLY_LIMIT=0 RENOVATE_PR_CONCURRENT_LIMIT=0 RENOVATE_TOKEN=$TOKEN_token_0 ' +
                        'RENOVATE_CONFIG_FILE=/configs/operator-bundle-0.json renovate',
                    ],
                    volumeMounts: [{ name: NAME, mountPath: '/configs' }],
                    securityContext: {
                      capabilities: { drop: ['ALL'] },
                      runAsNonRoot: true,
                      allowPrivilegeEscalation: false,
                      seccompProfile: { type: 'RuntimeDefault' },
                    },
                  },
                ],
                volumes: [{ name: NAME, configMap: { name: NAME } }],
              },
            },
          ],
        },
        taskRunTemplate: { serviceAccountName: 'build-pipeline-operand-a' },
      },
    });
  });

  it('has no params, no results and no owner (build-service gives it none)', () => {
    const run = renovateNudgePipelineRun(input());
    assert.equal('params' in run.spec, false);
    assert.equal('ownerReferences' in run.metadata, false);
  });

  it('takes another Renovate image when given one', () => {
    const run = renovateNudgePipelineRun(input({ renovateImage: 'registry.example/renovate:1' }));
    assert.match(JSON.stringify(run.spec), /registry\.example\/renovate:1/);
  });

  it('refuses inputs that would not make a valid run, naming the field', () => {
    for (const [overrides, field] of [
      [{ nudging: 'Operand_A' }, 'nudging'],
      [{ nudged: '' }, 'nudged'],
      [{ imageUrl: `quay.io/acme/operand-a@sha256:${'1'.repeat(64)}` }, 'imageUrl'],
      [{ serviceAccountName: '' }, 'serviceAccountName'],
      [{ key: '' }, 'key'],
    ] as const) {
      assert.throws(
        () => renovateNudgePipelineRun(input(overrides)),
        (error: unknown) => error instanceof NudgeInputError && error.field === field,
      );
    }
  });
});

describe('names and values build-service derives', () => {
  it('the run name is the key itself when it is a short lower-case token, else its fingerprint', () => {
    assert.equal(renovatePipelineRunName('0a1b2c3d4e5f6071'), NAME);
    const other = renovatePipelineRunName('Tenant/Build:X');
    assert.match(other, /^renovate-pipeline-[0-9a-f]{16}$/);
    assert.equal(renovatePipelineRunName('Tenant/Build:X'), other);
    assert.ok(renovatePipelineRunName('a'.repeat(40)).length <= 63);
  });

  it('nudging-commit is the last path segment holding 40 hex, else empty', () => {
    assert.equal(nudgingCommit(LINK), `operand-a?rev=${SHA}`);
    assert.equal(nudgingCommit(`https://gitlab.com/acme/operand-a/-/tree/${SHA}`), SHA);
    assert.equal(nudgingCommit('https://github.com/acme/operand-a'), '');
    assert.equal(nudgingCommit(''), '');
  });

  it('the command names the token by its variable, never by value', () => {
    assert.match(renovateCommand('operator-bundle'), /RENOVATE_TOKEN=\$TOKEN_token_0 /);
  });
});

describe('the ConfigMap and the Secret', () => {
  it('the ConfigMap is named like the run, owned by it, and holds the config as compact JSON', () => {
    const map = renovateNudgeConfigMap('tenant', 'operator-bundle', config, OWNER);
    assert.deepEqual(map, {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: {
        name: NAME,
        namespace: 'tenant',
        ownerReferences: [
          { apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', name: NAME, uid: OWNER.uid, controller: false },
        ],
      },
      data: { 'operator-bundle-0.json': JSON.stringify(config) },
    });
    assert.deepEqual(JSON.parse(map.data['operator-bundle-0.json']), config);
  });

  it('the Secret holds the token under the key the step reads, owned by the run', () => {
    const secret = renovateNudgeTokenSecret('tenant', OWNER, TOKEN);
    assert.deepEqual(secret, {
      apiVersion: 'v1',
      kind: 'Secret',
      metadata: {
        name: NAME,
        namespace: 'tenant',
        ownerReferences: [
          { apiVersion: 'tekton.dev/v1', kind: 'PipelineRun', name: NAME, uid: OWNER.uid, controller: false },
        ],
      },
      type: 'Opaque',
      stringData: { token_0: TOKEN },
    });
  });

  it("no owner reference blocks the owner's deletion, as controllerutil.SetOwnerReference writes it", () => {
    const [reference] =
      renovateNudgeConfigMap('tenant', 'operator-bundle', config, OWNER).metadata.ownerReferences ?? [];
    assert.equal(reference !== undefined && 'blockOwnerDeletion' in reference, false);
  });

  it('refuses an owner without a uid and an empty token', () => {
    assert.throws(() => renovateNudgeConfigMap('tenant', 'x', config, { name: NAME, uid: '' }), NudgeInputError);
    assert.throws(() => renovateNudgeTokenSecret('tenant', OWNER, ''), NudgeInputError);
  });
});

describe('one run for several targets: build-service and integration-service', () => {
  const configs = [
    { nudged: 'operator-bundle', configKey: 'operator-bundle-0.json', tokenKey: 'token_0' },
    { nudged: 'docs', configKey: 'docs-1.json', tokenKey: 'token_1' },
  ];

  it('runs one Renovate per config, in order, in one bash -c, and names every target', () => {
    const run = renovateNudgePipelineRun(input({ name: 'renovate-pipeline-0123456789ab', configs }));
    assert.equal(run.metadata.name, 'renovate-pipeline-0123456789ab');
    assert.equal(run.metadata.annotations?.['build.appstudio.redhat.com/nudged-components'], 'operator-bundle docs');
    const text = JSON.stringify(run.spec);
    assert.ok(
      text.includes(
        `${renovateCommand('operator-bundle', 'operator-bundle-0.json', 'token_0')}; ${renovateCommand('docs', 'docs-1.json', 'token_1')}`,
      ),
    );
    assert.match(
      renovateCommand('docs', 'docs-1.json', 'token_1'),
      /RENOVATE_TOKEN=\$TOKEN_token_1 RENOVATE_CONFIG_FILE=\/configs\/docs-1\.json renovate$/,
    );
  });

  it('refuses a config whose target is not a component name', () => {
    assert.throws(
      () =>
        renovateNudgePipelineRun(
          input({ configs: [{ nudged: 'Not_A_Name', configKey: 'x-0.json', tokenKey: 'token_0' }] }),
        ),
      NudgeInputError,
    );
  });

  it('its ConfigMap holds one config per key, its Secret one token per key, never an empty one', () => {
    const metadata = { name: 'renovate-pipeline-0123456789ab', namespace: 'tenant' };
    const map = renovateConfigsMap(
      metadata,
      new Map([
        ['operator-bundle-0.json', config],
        ['docs-1.json', config],
      ]),
    );
    assert.deepEqual(Object.keys(map.data), ['operator-bundle-0.json', 'docs-1.json']);
    assert.deepEqual(JSON.parse(map.data['docs-1.json'] ?? ''), config);
    assert.deepEqual(renovateTokensSecret(metadata, { token_0: TOKEN, token_1: TOKEN }).stringData, {
      token_0: TOKEN,
      token_1: TOKEN,
    });
    assert.throws(() => renovateTokensSecret(metadata, { token_0: TOKEN, token_1: '' }), NudgeInputError);
  });
});
