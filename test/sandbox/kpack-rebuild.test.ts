// kpack's rebuild decision as the kpack stand-in plays it (docs/decisions.md N43): reasons in kpack's
// order, joined with ",", and BUILDPACK/STACK only after a successful Build.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildpackOfSource, resolveImage } from '../../src/sandbox/korifi/kpack-builders.ts';
import {
  buildChanges,
  isRebase,
  reasonsOf,
  type BuildConfig,
  type LastBuildFacts,
} from '../../src/sandbox/korifi/kpack-rebuild.ts';
import { nextVersion } from '../../src/sandbox/korifi/kpack.ts';

const RUN_1 = `paketobuildpacks/run@sha256:${'1'.repeat(64)}`;
const RUN_2 = `paketobuildpacks/run@sha256:${'2'.repeat(64)}`;
const config: BuildConfig = {
  env: null,
  resources: null,
  services: null,
  cnbBindings: null,
  source: { registry: { image: 'pkg:1' } },
};
const nodejs = { id: 'paketo-buildpacks/nodejs', version: '1.0.0' };
const last = (overrides: Partial<LastBuildFacts> = {}): LastBuildFacts => ({
  succeeded: true,
  additionalBuildNeeded: undefined,
  config,
  buildpacks: [nodejs],
  runImage: RUN_1,
  ...overrides,
});
const builder = { buildpacks: [nodejs], runImage: RUN_1 };

describe('kpack stand-in rebuild decision', () => {
  it('makes the first Build for CONFIG and none while nothing changed', () => {
    assert.equal(reasonsOf(buildChanges(config, undefined, builder)), 'CONFIG');
    assert.deepEqual(buildChanges(config, last(), builder), []);
    // Key order and empty-versus-absent do not count as a change.
    assert.deepEqual(buildChanges({ ...config, source: { registry: { image: 'pkg:1' } } }, last(), builder), []);
  });

  it('joins the reasons in kpack order: TRIGGER, CONFIG, BUILDPACK, STACK', () => {
    const changed = buildChanges(
      { ...config, source: { registry: { image: 'pkg:2' } } },
      last({ additionalBuildNeeded: 'true' }),
      { buildpacks: [{ ...nodejs, version: '1.0.1' }], runImage: RUN_2 },
    );
    assert.equal(reasonsOf(changed), 'TRIGGER,CONFIG,BUILDPACK,STACK');
    assert.deepEqual(
      changed.find((change) => change.reason === 'STACK'),
      { reason: 'STACK', old: RUN_1.split('@')[1], new: RUN_2.split('@')[1] },
    );
    assert.deepEqual(changed.find((change) => change.reason === 'BUILDPACK')?.new, [{ ...nodejs, version: '1.0.1' }]);
  });

  it('rebuilds for BUILDPACK only when a buildpack the Build used changed, and for STACK on a new run image digest', () => {
    const java = { id: 'paketo-buildpacks/java', version: '1.0.1' };
    assert.deepEqual(buildChanges(config, last(), { buildpacks: [nodejs, java], runImage: RUN_1 }), []);
    assert.equal(reasonsOf(buildChanges(config, last(), { buildpacks: [nodejs], runImage: RUN_2 })), 'STACK');
    assert.equal(
      reasonsOf(buildChanges(config, last(), { buildpacks: [{ ...nodejs, version: '2.0.0' }], runImage: RUN_2 })),
      'BUILDPACK,STACK',
    );
  });

  it('does not count BUILDPACK or STACK after a failed or running Build', () => {
    const moved = { buildpacks: [{ ...nodejs, version: '2.0.0' }], runImage: RUN_2 };
    assert.deepEqual(buildChanges(config, last({ succeeded: false }), moved), []);
    assert.deepEqual(buildChanges(config, last({ succeeded: undefined }), moved), []);
  });

  it('rebases only for exactly STACK on the same stack id', () => {
    assert.equal(isRebase('STACK', 'jammy', 'jammy'), true);
    assert.equal(isRebase('STACK', 'jammy', 'noble'), false);
    assert.equal(isRebase('BUILDPACK,STACK', 'jammy', 'jammy'), false);
  });

  it('reads a ClusterStore source as [host/]<id>[:<version>], and resolves tags to digests', () => {
    assert.deepEqual(buildpackOfSource('gcr.io/paketo-buildpacks/java:2.1.0'), {
      id: 'paketo-buildpacks/java',
      version: '2.1.0',
    });
    assert.deepEqual(buildpackOfSource('paketobuildpacks/nodejs'), {
      id: 'paketo-buildpacks/nodejs',
      version: '1.0.0',
    });
    assert.deepEqual(buildpackOfSource('127.0.0.1:5000/acme/bp:3'), { id: 'acme/bp', version: '3' });
    assert.equal(resolveImage(RUN_1), RUN_1);
    assert.match(
      resolveImage('paketobuildpacks/run-jammy-full'),
      /^paketobuildpacks\/run-jammy-full@sha256:[0-9a-f]{64}$/,
    );
    assert.equal(nextVersion('1.2.9'), '1.2.10');
    assert.equal(nextVersion('latest'), 'latest.1');
  });
});
