// The Korifi and kpack decoders (src/domain/korifi/objects.ts): objects as the API server serves
// them decode, whatever fields nudger does not read they carry; a field nudger reads with the wrong
// type is refused with its path, never its value, and decodeOrThrow names the kind and the object.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  decodeBuildWorkload,
  decodeCFApp,
  decodeCFBuild,
  decodeKpackClusterBuilder,
  decodeKpackImage,
  decodeOrThrow,
  KORIFI_DECODERS,
  KorifiDecodeError,
  type KorifiKind,
} from '../../../src/domain/korifi/objects.ts';
import { KPACK_BUILD_REASONS, splitBuildReasons } from '../../../src/domain/korifi/labels.ts';
import type { DecodeResult } from '../../../src/domain/schema-validation.ts';
import { buildWorkload, cfApp, cfBuild, kpackClusterBuilder, kpackImage, SAMPLES, SPACE } from './korifi-objects.ts';

function problemsOf(result: DecodeResult<unknown>): string[] {
  return result.ok ? [] : result.problems.map((problem) => `${problem.path}: ${problem.message}`);
}

describe('Korifi and kpack decoders', () => {
  for (const kind of Object.keys(SAMPLES) as KorifiKind[]) {
    it(`decode a ${kind} as served, and one with only metadata (no spec, no status)`, () => {
      const decode = KORIFI_DECODERS[kind] as (value: unknown) => DecodeResult<unknown>;
      const object = SAMPLES[kind]();
      const result = decode(object);
      assert.deepEqual(problemsOf(result), []);
      assert.ok(result.ok);
      assert.equal(result.object, object, 'returned as given, not copied');
      assert.deepEqual(problemsOf(decode({ metadata: { name: 'bare', namespace: SPACE } })), []);
    });
  }

  it('keep the fields they do not type: a Korifi field added upstream reaches the reader', () => {
    const app = cfApp();
    (app.spec as Record<string, unknown>).futureField = { x: 1 };
    const result = decodeCFApp(app);
    assert.ok(result.ok);
    assert.deepEqual((result.object.spec as Record<string, unknown>).futureField, { x: 1 });
  });

  it('refuse Korifi objects breaking what the CRD requires, naming each field', () => {
    const app = cfApp();
    const spec = app.spec as Record<string, unknown>;
    spec.lifecycle = { type: 'python', data: {} };
    delete spec.desiredState;
    assert.deepEqual(problemsOf(decodeCFApp(app)).sort(), [
      'spec.desiredState: required field is missing',
      'spec.lifecycle.data.stack: required field is missing',
      'spec.lifecycle.type: must be one of buildpack, docker',
    ]);

    const workload = buildWorkload();
    delete (workload.spec as Record<string, unknown>).builderName;
    ((workload.status as Record<string, unknown>).conditions as Record<string, unknown>[])[0]!.status = 'Maybe';
    assert.deepEqual(problemsOf(decodeBuildWorkload(workload)).sort(), [
      'spec.builderName: required field is missing',
      'status.conditions[0].status: must be one of True, False, Unknown',
    ]);

    const build = cfBuild();
    const droplet = (build.status as Record<string, unknown>).droplet as Record<string, unknown>;
    droplet.ports = ['8080'];
    droplet.processTypes = [{ type: 'web' }];
    assert.deepEqual(problemsOf(decodeCFBuild(build)).sort(), [
      'status.droplet.ports[0]: must be an integer',
      'status.droplet.processTypes[0].command: required field is missing',
    ]);
  });

  it('refuse kpack objects only for a read field of the wrong type (the CRDs have no schema)', () => {
    const image = kpackImage();
    const status = image.status as Record<string, unknown>;
    status.latestBuildReason = ['STACK'];
    status.conditions = [{ status: 'True' }];
    assert.deepEqual(problemsOf(decodeKpackImage(image)).sort(), [
      'status.conditions[0].type: required field is missing',
      'status.latestBuildReason: must be a string',
    ]);
    const builder = kpackClusterBuilder();
    (builder.status as Record<string, unknown>).observedGeneration = '1';
    assert.deepEqual(problemsOf(decodeKpackClusterBuilder(builder)), ['status.observedGeneration: must be an integer']);
    // Nothing is required on a kpack object: kpack's own webhook validates, not the API server.
    assert.deepEqual(problemsOf(decodeKpackImage({ spec: {}, status: {} })), []);
  });

  it('decodeOrThrow returns the typed object, or a KorifiDecodeError naming kind, object and field but no value', () => {
    const image = decodeOrThrow('Image', kpackImage());
    assert.equal(image.status?.latestBuildReason, 'STACK');

    const secretish = 'ghp_' + 'x'.repeat(36);
    const build = cfBuild();
    ((build.status as Record<string, unknown>).droplet as Record<string, unknown>).stack = { token: secretish };
    assert.throws(
      () => decodeOrThrow('CFBuild', build),
      (error: unknown) => {
        assert.ok(error instanceof KorifiDecodeError);
        assert.equal(error.kind, 'CFBuild');
        assert.equal(error.object, `${SPACE}/build-guid-1`);
        assert.deepEqual(error.problems, [{ path: 'status.droplet.stack', message: 'must be a string' }]);
        assert.equal(
          error.message,
          `CFBuild ${SPACE}/build-guid-1 does not decode: status.droplet.stack: must be a string`,
        );
        assert.ok(!error.message.includes(secretish));
        return true;
      },
    );
    assert.throws(
      () => decodeOrThrow('ClusterBuilder', { metadata: {}, status: { latestImage: 3 } }),
      /^KorifiDecodeError: ClusterBuilder \(unnamed\) does not decode: status\.latestImage: must be a string$/,
    );
  });
});

describe('splitBuildReasons', () => {
  it('reads kpack comma-joined reasons as written, in order', () => {
    assert.deepEqual(splitBuildReasons('STACK'), ['STACK']);
    assert.deepEqual(splitBuildReasons('BUILDPACK,STACK'), ['BUILDPACK', 'STACK']);
    assert.deepEqual(splitBuildReasons(' CONFIG , ,COMMIT'), ['CONFIG', 'COMMIT']);
    assert.deepEqual(splitBuildReasons(''), []);
    assert.deepEqual(splitBuildReasons(undefined), []);
    assert.deepEqual([...KPACK_BUILD_REASONS], ['TRIGGER', 'COMMIT', 'CONFIG', 'BUILDPACK', 'STACK', 'LIFECYCLE']);
  });
});
