// `nudger manager --controllers` and the korifi flags (docs/decisions.md N39), in process: each
// mistake is a UsageError naming the flag and the value; the korifi flags count only when the
// korifi group runs. manager-startup.test.ts-style runs of the real CLI check the exit code.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  controllerGroupsFlag,
  controllerGroupsOf,
  korifiSettingsOf,
  type ControllerFlags,
} from '../../src/cli/commands/manager-controllers.ts';
import { UsageError } from '../../src/cli/errors.ts';
import { runCli } from './run-cli.ts';

function usage(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error));
    return error.message;
  }
  assert.fail('accepted');
}

const KORIFI: ControllerFlags = { controllers: ['korifi'], korifiImageRepository: 'registry.example.com/cf/' };

describe('--controllers', () => {
  it('parses groups, and refuses an unknown one naming the flag and the value', () => {
    assert.deepEqual(controllerGroupsFlag('all'), ['konflux', 'korifi']);
    assert.equal(
      usage(() => controllerGroupsFlag('konflux,kpack')),
      '--controllers "konflux,kpack": "kpack" is not a controller group (one or more of konflux, korifi, comma-separated, or all)',
    );
  });

  it('defaults to konflux when the flag is absent', () => {
    assert.deepEqual(controllerGroupsOf({}), ['konflux']);
  });

  it('the real CLI exits 2 with the one-line refusal, before connecting anywhere', async () => {
    const result = await runCli(['manager', '--controllers', 'korifi,bogus', '--kubeconfig', '/nonexistent']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--controllers "korifi,bogus": "bogus" is not a controller group/);
  });
});

describe('korifi settings', () => {
  it('are ignored while the korifi group does not run, even when wrong', () => {
    assert.equal(korifiSettingsOf({ korifiClusterBuilder: 'Not A Name' }), undefined);
    assert.equal(korifiSettingsOf({ controllers: ['konflux'], builderReadinessTimeout: 0 }), undefined);
  });

  it('take the defaults: builder nudger-kpack, ClusterBuilder cf-kpack-cluster-builder, 5 minutes', () => {
    assert.deepEqual(korifiSettingsOf(KORIFI), {
      builderName: 'nudger-kpack',
      clusterBuilderName: 'cf-kpack-cluster-builder',
      repositoryPrefix: 'registry.example.com/cf/',
      readinessTimeoutMs: 300_000,
    });
    assert.deepEqual(
      korifiSettingsOf({
        controllers: ['konflux', 'korifi'],
        korifiBuilderName: 'other',
        korifiClusterBuilder: 'my.builder',
        korifiImageRepository: '127.0.0.1:5000/droplets/',
        builderReadinessTimeout: 1500,
      }),
      {
        builderName: 'other',
        clusterBuilderName: 'my.builder',
        repositoryPrefix: '127.0.0.1:5000/droplets/',
        readinessTimeoutMs: 1500,
      },
    );
  });

  it('refuse each bad flag, naming it and its value', () => {
    assert.match(
      usage(() => korifiSettingsOf({ controllers: ['korifi'] })),
      /^--korifi-image-repository: required when --controllers runs korifi/,
    );
    assert.match(
      usage(() => korifiSettingsOf({ ...KORIFI, korifiImageRepository: 'registry.example.com/cf@sha256:x' })),
      /^--korifi-image-repository "registry\.example\.com\/cf@sha256:x": not an image repository prefix/,
    );
    assert.match(
      usage(() => korifiSettingsOf({ ...KORIFI, korifiClusterBuilder: 'Cf_Builder' })),
      /^--korifi-cluster-builder "Cf_Builder": not a valid ClusterBuilder name/,
    );
    assert.match(
      usage(() => korifiSettingsOf({ ...KORIFI, korifiBuilderName: 'a b' })),
      /^--korifi-builder-name "a b": must be a non-empty name without spaces$/,
    );
    assert.match(
      usage(() => korifiSettingsOf({ ...KORIFI, builderReadinessTimeout: 0 })),
      /^--builder-readiness-timeout 0ms: must be greater than 0$/,
    );
  });

  it('the real CLI exits 2 when korifi runs without --korifi-image-repository', async () => {
    const result = await runCli(['manager', '--controllers=all', '--kubeconfig', '/nonexistent']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /--korifi-image-repository: required/);
  });
});
