// The `renovate` executor's validated batch (docs/decisions.md D10, N29): one config covering every
// component (its own custom manager, fileMatch and matchStrings each, one group: one branch, one
// commit, one pull request), the run that carries it (named from the batch key, annotated with
// every component, build, Snapshot and the gating group), how a failed one is told (once, on the
// target, naming the components) and that no ChangeGroup holds it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { decideNudgeHold, isNeverHeld } from '../../../src/domain/changegroup/hold-decision.ts';
import { decideSweep } from '../../../src/domain/changegroup/sweep.ts';
import { githubAppGitAuthor } from '../../../src/domain/nudge/git-author.ts';
import { isRenovateExecutorRun, nudgeRunFailure } from '../../../src/domain/nudge/nudge-run-failure.ts';
import {
  nudgeMatchString,
  renovateBatchConfig,
  type RenovateBatchComponent,
  type RenovateBatchInput,
} from '../../../src/domain/nudge/renovate-config.ts';
import {
  batchRunOf,
  carriedBatchComponents,
  renovateBatchPipelineRun,
} from '../../../src/domain/nudge/renovate-pipelinerun.ts';
import { NO_RENOVATE_SETTINGS, readRenovateSettings } from '../../../src/domain/nudge/renovate-settings.ts';
import { validatedBatchKey, validatedBranch, validatedGroupName } from '../../../src/domain/nudge/validated-text.ts';
import type { PipelineRun } from '../../../src/schema/pipelinerun.ts';
import { RenovateNudgeConfig } from '../../../src/schema/renovate-config.ts';
import { renovateBranchName } from '../../../src/sandbox/renovate-emulation.ts';
import { GITHUB_TARGET, throwsField } from './renovate-fixtures.ts';

const DIGEST_A = `sha256:${'a1'.repeat(32)}`;
const DIGEST_B = `sha256:${'b2'.repeat(32)}`;
const TAG = '0123456789abcdef0123456789abcdef01234567';
const AUTHOR = githubAppGitAuthor('red-hat-konflux', 126015336);
const A = 'quay.io/acme/operand-a';
const B = 'quay.io/acme/operand-b';
const B_PROD = 'registry.redhat.io/acme/operand-b-rhel9';

const components: RenovateBatchComponent[] = [
  {
    component: 'operand-a',
    builtRepository: A,
    builtTag: TAG,
    newDigest: DIGEST_A,
    distributionRepositories: [],
    fileMatch: ['.*\\.yaml$'],
    snapshot: 'operators-8x2kq',
    repoAtShaLink: `https://github.com/acme/operand-a?rev=${TAG}`,
  },
  {
    component: 'operand-b',
    builtRepository: B,
    builtTag: 'v2',
    newDigest: DIGEST_B,
    distributionRepositories: [B_PROD],
    fileMatch: ['bundle/.*', 'Dockerfile'],
    snapshot: 'operators-m4n7z',
    repoAtShaLink: '',
  },
];

const input = (overrides: Partial<RenovateBatchInput> = {}): RenovateBatchInput => ({
  target: { ...GITHUB_TARGET, username: 'red-hat-konflux[bot]', gitAuthor: AUTHOR },
  nudged: 'operator-bundle',
  gatingGroup: 'operators',
  settings: NO_RENOVATE_SETTINGS,
  components,
  ...overrides,
});

describe('renovateBatchConfig: one config for every component of the batch', () => {
  it('a custom manager per component, with its own fileMatch, matchStrings, tag and package name', () => {
    const config = renovateBatchConfig(input());
    assert.deepEqual(config.customManagers, [
      {
        fileMatch: ['.*\\.yaml$'],
        customType: 'regex',
        datasourceTemplate: 'docker',
        matchStrings: [nudgeMatchString(A)],
        currentValueTemplate: TAG,
        depNameTemplate: A,
      },
      {
        fileMatch: ['bundle/.*', 'Dockerfile'],
        customType: 'regex',
        datasourceTemplate: 'docker',
        matchStrings: [nudgeMatchString(B), nudgeMatchString(B_PROD)],
        currentValueTemplate: 'v2',
        depNameTemplate: B,
      },
    ]);
    assert.deepEqual(config.registryAliases, { [B_PROD]: B });
    assert.deepEqual(config.repositories, [{ repository: 'acme/operator-bundle', baseBranches: ['main'] }]);
  });

  it('one group rule over every package: its slug puts the batch on validatedBranch, titled "Update <group>"', () => {
    const config = renovateBatchConfig(input());
    const [disableAll, rule] = config.packageRules;
    assert.deepEqual(disableAll, { matchPackagePatterns: ['*'], enabled: false });
    assert.deepEqual(rule.matchPackageNames, [A, B, B_PROD]);
    assert.equal(rule.groupName, validatedGroupName('operators'));
    assert.equal(rule.groupSlug, 'operator-bundle-validated-operators');
    assert.equal(rule.branchTopic, undefined);
    assert.deepEqual([rule.commitMessageTopic, rule.commitMessageExtra], [validatedGroupName('operators'), '']);
    // Renovate's branchName: branchPrefix, additionalBranchPrefix, the group's slug.
    assert.equal(renovateBranchName(config), validatedBranch('operator-bundle', 'operators'));
  });

  it('the header and the commit body name each component, its new digest and its Snapshot', () => {
    const [, rule] = renovateBatchConfig(input()).packageRules;
    assert.equal(
      rule.prHeader,
      [
        'Images validated together by a passing Snapshot of component group `operators`:',
        '',
        '| Component | New digest | Snapshot |',
        '|---|---|---|',
        `| operand-a | \`${DIGEST_A}\` | \`operators-8x2kq\` |`,
        `| operand-b | \`${DIGEST_B}\` | \`operators-m4n7z\` |`,
        '',
        `- operand-a: image created from 'https://github.com/acme/operand-a?rev=${TAG}'`,
      ].join('\n'),
    );
    assert.equal(
      rule.commitBody,
      'Images validated together by a passing Snapshot of component group operators:\n' +
        `- operand-a: ${DIGEST_A} (Snapshot operators-8x2kq)\n` +
        `- operand-b: ${DIGEST_B} (Snapshot operators-m4n7z)\n\n` +
        `Signed-off-by: ${AUTHOR}`,
    );
    assert.equal(JSON.stringify(rule).includes('{{'), false, 'nothing Renovate would expand');
  });

  it('the ConfigMap settings reach it as they reach a single nudge', () => {
    const { settings } = readRenovateSettings({
      name: 'operator-bundle-renovate',
      data: { automerge: 'true', commitMessagePrefix: '[bundle]', labels: 'team-a' },
    });
    const config = renovateBatchConfig(input({ settings }));
    assert.deepEqual([config.automerge, config.labels], [true, ['konflux-nudge', 'team-a']]);
    assert.equal(config.packageRules[1].commitMessagePrefix, '[bundle]');
  });

  it('validates against the closed schema', () => {
    const validate = new Ajv({ strict: true, allErrors: true }).compile(RenovateNudgeConfig);
    const [first] = components;
    assert.ok(first !== undefined);
    for (const config of [renovateBatchConfig(input()), renovateBatchConfig(input({ components: [first] }))]) {
      assert.equal(validate(config), true, JSON.stringify(validate.errors));
    }
  });

  it('refuses what would break the branch, the text or the batch, naming the field', () => {
    const [a, b] = components;
    assert.ok(a !== undefined && b !== undefined);
    throwsField(() => renovateBatchConfig(input({ components: [] })), 'components');
    throwsField(() => renovateBatchConfig(input({ gatingGroup: 'Operators' })), 'gatingGroup');
    throwsField(() => renovateBatchConfig(input({ nudged: 'Bundle' })), 'nudged');
    throwsField(() => renovateBatchConfig(input({ components: [a, a] })), 'components[1].component');
    throwsField(
      () => renovateBatchConfig(input({ components: [a, { ...b, snapshot: '{{x}}' }] })),
      'components[1].snapshot',
    );
    throwsField(
      () => renovateBatchConfig(input({ components: [a, { ...b, newDigest: 'sha256:abc' }] })),
      'components[1].newDigest',
    );
    throwsField(
      () => renovateBatchConfig(input({ components: [a, { ...b, fileMatch: [] }] })),
      'components[1].fileMatch',
    );
    // One repository of two components would be two new digests for one reference.
    throwsField(
      () => renovateBatchConfig(input({ components: [a, { ...b, distributionRepositories: [A] }] })),
      'components[1].distributionRepositories',
    );
  });
});

const KEY = validatedBatchKey('tenant', 'operators', 'operator-bundle', [
  { component: 'operand-a', digest: DIGEST_A },
  { component: 'operand-b', digest: DIGEST_B },
]);

function batchRun(condition?: { status: string; reason?: string; message?: string }): PipelineRun {
  const manifest = renovateBatchPipelineRun({
    namespace: 'tenant',
    key: KEY,
    nudged: 'operator-bundle',
    gatingGroup: 'operators',
    entries: [
      {
        component: 'operand-a',
        buildPipelineRun: 'operand-a-on-push-1',
        imageUrl: `${A}:${TAG}`,
        repoAtShaLink: '',
        snapshot: 'operators-8x2kq',
        digest: DIGEST_A,
      },
      {
        component: 'operand-b',
        buildPipelineRun: 'operand-b-on-push-2',
        imageUrl: `${B}:v2`,
        repoAtShaLink: '',
        snapshot: 'operators-m4n7z',
        digest: DIGEST_B,
      },
    ],
    serviceAccountName: 'appstudio-pipeline',
  });
  return {
    ...(manifest as unknown as PipelineRun),
    metadata: { ...manifest.metadata, uid: 'batch-uid-1' },
    ...(condition === undefined ? {} : { status: { conditions: [{ type: 'Succeeded', ...condition }] } }),
  };
}

describe("the batch's nudge PipelineRun", () => {
  it('is named from the batch key and read back as the batch it carries', () => {
    const run = batchRun();
    assert.equal(run.metadata?.name, `renovate-pipeline-${KEY}`);
    assert.equal(isRenovateExecutorRun(run), true);
    assert.deepEqual(batchRunOf(run.metadata.annotations ?? {}), {
      gatingGroup: 'operators',
      components: [
        { component: 'operand-a', build: 'operand-a-on-push-1', snapshot: 'operators-8x2kq', digest: DIGEST_A },
        { component: 'operand-b', build: 'operand-b-on-push-2', snapshot: 'operators-m4n7z', digest: DIGEST_B },
      ],
    });
    assert.equal(batchRunOf({}), undefined);
  });

  it('refuses an empty batch and names nudger cannot annotate', () => {
    const base = {
      namespace: 'tenant',
      key: KEY,
      nudged: 'operator-bundle',
      gatingGroup: 'operators',
      serviceAccountName: 'appstudio-pipeline',
    };
    throwsField(() => renovateBatchPipelineRun({ ...base, entries: [] }), 'entries');
    const entry = {
      component: 'operand-a',
      buildPipelineRun: 'b',
      imageUrl: `${A}:${TAG}`,
      repoAtShaLink: '',
      snapshot: 'a b',
      digest: DIGEST_A,
    };
    throwsField(() => renovateBatchPipelineRun({ ...base, entries: [entry] }), 'entries[0].snapshot');
  });

  it('a failed one is told once, on the target, naming every component, build and Snapshot', () => {
    const failure = nudgeRunFailure(batchRun({ status: 'False', reason: 'Failed', message: 'renovate exited 1' }));
    assert.ok(failure !== undefined);
    assert.equal(failure.component, 'operator-bundle');
    assert.deepEqual(failure.fact, ['nudge-run-failed', 'tenant', 'batch-uid-1']);
    assert.equal(
      failure.message,
      'validated nudge of operator-bundle from operand-a (build operand-a-on-push-1, Snapshot operators-8x2kq), ' +
        'operand-b (build operand-b-on-push-2, Snapshot operators-m4n7z), gated by operators, failed in its ' +
        `Renovate run: PipelineRun renovate-pipeline-${KEY} ended Failed: renovate exited 1. nudger does not run ` +
        'it again; the next validated digest of each of these components nudges operator-bundle anew',
    );
    assert.equal(nudgeRunFailure(batchRun({ status: 'True', reason: 'Succeeded' })), undefined);
  });

  it('is never held by a ChangeGroup: neither at admission nor by the sweeper', () => {
    const run = batchRun();
    assert.equal(isNeverHeld(run.metadata?.annotations ?? {}), true);
    const holding = {
      name: 'bundle-cg',
      namespace: 'tenant',
      nudgedComponent: 'operator-bundle',
      nudgingComponents: ['operand-a'],
      phase: 'Waiting' as const,
    };
    assert.deepEqual(decideSweep(run, [holding]), { action: 'skip', reason: 'not-held' });
    // The same run without its gating group would be held: the exemption is what leaves it.
    const annotations = { ...run.metadata?.annotations };
    delete annotations['nudger.konflux-ci.dev/gating-group'];
    const plain = { ...run, metadata: { ...run.metadata, annotations } };
    assert.equal(decideSweep(plain, [holding]).action, 'cancel');
    const nudge = { namespace: 'tenant', nudgingComponent: 'operand-a', nudgedComponents: ['operator-bundle'] };
    assert.equal(decideNudgeHold(nudge, [holding]).action, 'cancel');
  });
});

describe('a later batch carries what an earlier run of its branch pinned (carriedBatchComponents)', () => {
  const previous = () => {
    const run = batchRun();
    return { annotations: run.metadata?.annotations ?? {}, config: renovateBatchConfig(input()) };
  };

  it('each component the new batch does not bring again, with its manager, digest, Snapshot and build', () => {
    assert.deepEqual(carriedBatchComponents(previous(), new Set(['operand-a'])), [
      {
        ...components[1],
        buildPipelineRun: 'operand-b-on-push-2',
        imageUrl: `${B}:v2`,
      },
    ]);
    assert.deepEqual(carriedBatchComponents(previous(), new Set(['operand-a', 'operand-b'])), []);
  });

  it('nothing is guessed: a config whose managers do not match the annotations carries nothing', () => {
    const [a] = components;
    assert.ok(a !== undefined);
    const mismatched = { ...previous(), config: renovateBatchConfig(input({ components: [a] })) };
    assert.deepEqual(carriedBatchComponents(mismatched, new Set()), []);
    const unannotated = { ...previous(), annotations: {} };
    assert.deepEqual(carriedBatchComponents(unannotated, new Set()), []);
  });
});
