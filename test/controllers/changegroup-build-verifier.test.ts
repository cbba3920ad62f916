// docs/decisions.md D3 against the API: the build PipelineRun a held nudge names is read live and verified;
// verified builds are remembered per claim, rejections are not.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ObjectClient } from '../../src/adapters/kubernetes/client.ts';
import { errorFromResponse } from '../../src/adapters/kubernetes/errors.ts';
import { PIPELINE_RUNS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../../src/adapters/kubernetes/types.ts';
import { BuildVerifier } from '../../src/controllers/changegroup/build-verifier.ts';
import type { NudgingComponentFacts } from '../../src/domain/changegroup/verify-build.ts';
import { readNudgePipelineRun, type NudgePipelineRun } from '../../src/domain/nudge-pipelinerun.ts';
import { buildRun, DIGEST, nudgeRun } from '../domain/changegroup/fixtures.ts';

const NS = 'my-tenant';
/** What the Component operand-a of the fixtures says: its image repository and branch. */
const OPERAND_A: NudgingComponentFacts = { containerImage: 'quay.io/org/operand-a', branch: 'main' };
const operandA = (): NudgingComponentFacts => OPERAND_A;
const signal = new AbortController().signal;

function nudge(overrides: Parameters<typeof nudgeRun>[0] = {}): NudgePipelineRun {
  const reading = readNudgePipelineRun(nudgeRun(overrides));
  assert.ok(reading.ok);
  return reading.nudge;
}

/** GETs of PipelineRuns from a map; anything missing is a 404; `failWith` makes every GET fail. */
class BuildApi implements ObjectClient {
  readonly builds = new Map<string, KubeObject>();
  readonly gets: { ref: ResourceRef; namespace: string; name: string }[] = [];
  failWith: number | undefined;

  /** As the API returns it: the GET response, here without kind/apiVersion, which the verifier adds. */
  put(object: Record<string, unknown>, strip = false): void {
    const copy = structuredClone(object) as KubeObject;
    if (strip) {
      delete copy.apiVersion;
      delete copy.kind;
    }
    this.builds.set(copy.metadata?.name ?? '', copy);
  }

  get<T extends KubeObject>(ref: ResourceRef, namespace: string, name: string): Promise<T> {
    this.gets.push({ ref, namespace, name });
    const target = { verb: 'get', resource: 'pipelineruns', namespace, name };
    if (this.failWith !== undefined) return Promise.reject(errorFromResponse(target, this.failWith, undefined));
    const found = this.builds.get(name);
    if (found === undefined) return Promise.reject(errorFromResponse(target, 404, undefined));
    return Promise.resolve(structuredClone(found) as T);
  }

  list = (): Promise<never> => Promise.reject(new Error('unused'));
  create = (): Promise<never> => Promise.reject(new Error('unused'));
  replace = (): Promise<never> => Promise.reject(new Error('unused'));
  replaceStatus = (): Promise<never> => Promise.reject(new Error('unused'));
  patch = (): Promise<never> => Promise.reject(new Error('unused'));
  patchStatus = (): Promise<never> => Promise.reject(new Error('unused'));
  delete = (): Promise<never> => Promise.reject(new Error('unused'));
}

describe('BuildVerifier', () => {
  it('reads the named build with a GET and returns the verified build', async () => {
    const api = new BuildApi();
    api.put(buildRun({ digest: DIGEST('3') }));
    const result = await new BuildVerifier(api).verify(nudge(), OPERAND_A, signal);
    assert.deepEqual(result, {
      ok: true,
      build: {
        component: 'operand-a',
        digest: DIGEST('3'),
        pullSpec: `quay.io/org/operand-a@${DIGEST('3')}`,
        imageUrl: 'quay.io/org/operand-a:abc123',
        pipelineRun: 'operand-a-on-push-x7k2p',
        createdAt: '2025-01-15T10:20:00Z',
      },
    });
    assert.deepEqual(api.gets, [{ ref: PIPELINE_RUNS, namespace: NS, name: 'operand-a-on-push-x7k2p' }]);
  });

  it('verifies a GET response that carries no kind or apiVersion', async () => {
    const api = new BuildApi();
    api.put(buildRun(), true);
    const result = await new BuildVerifier(api).verify(nudge(), OPERAND_A, signal);
    assert.equal(result.ok, true);
  });

  it('rejects with build-not-found when the GET is a 404', async () => {
    const api = new BuildApi();
    const result = await new BuildVerifier(api).verify(nudge(), OPERAND_A, signal);
    assert.equal(result.ok, false);
    assert.ok(!result.ok);
    assert.equal(result.reason, 'build-not-found');
    assert.match(result.message, /operand-a-on-push-x7k2p/);
  });

  it('rejects a nudge naming no build without any GET', async () => {
    const api = new BuildApi();
    const result = await new BuildVerifier(api).verify(nudge({ pipeline: null }), OPERAND_A, signal);
    assert.ok(!result.ok);
    assert.equal(result.reason, 'no-nudging-pipeline');
    assert.equal(api.gets.length, 0);
  });

  it('propagates failures of the API server itself (5xx, throttling, no answer): the reconcile retries', async () => {
    const api = new BuildApi();
    for (const status of [500, 503, 429]) {
      api.failWith = status;
      await assert.rejects(new BuildVerifier(api).verifyAll([nudge()], operandA, signal), new RegExp(String(status)));
    }
  });

  it('rejects the one nudge whose lookup the API server refuses (403, 422), and keeps the others', async () => {
    for (const status of [403, 422]) {
      const api = new BuildApi();
      api.failWith = status;
      const result = await new BuildVerifier(api).verify(nudge(), OPERAND_A, signal);
      assert.ok(!result.ok);
      assert.equal(result.reason, 'build-lookup-refused');
      assert.match(result.message, new RegExp(`${String(status)} `));
    }
  });

  it('rejects a forged nudging-pipeline name without asking the API server, and verifies the genuine nudge', async () => {
    const api = new BuildApi();
    api.put(buildRun());
    // What the API server answers 400 to: a GET of such a name made every reconcile fail before.
    const forged = [
      'operand-a-on-push-%2e%2e',
      '../secrets/x',
      'Operand-A-On-Push',
      'a'.repeat(254),
      'operand-a-on-push-',
    ];
    const result = await new BuildVerifier(api).verifyAll(
      [nudge({ name: 'genuine' }), ...forged.map((pipeline, i) => nudge({ name: `forged-${String(i)}`, pipeline }))],
      operandA,
      signal,
    );
    assert.deepEqual(
      result.builds.map((b) => b.nudgePipelineRun),
      ['genuine'],
    );
    assert.deepEqual(
      result.rejected.map((r) => [r.pipelineRun, r.reason]),
      forged.map((_, i) => [`forged-${String(i)}`, 'invalid-build-name']),
    );
    assert.deepEqual(
      api.gets.map((g) => g.name),
      ['operand-a-on-push-x7k2p'],
    );
    for (const rejection of result.rejected) assert.ok(rejection.message.length < 400, rejection.message);
  });

  it('rejects a build object that is not a PipelineRun at all', async () => {
    const api = new BuildApi();
    api.builds.set('operand-a-on-push-x7k2p', { metadata: { name: 'operand-a-on-push-x7k2p' }, kind: 'ConfigMap' });
    const result = await new BuildVerifier(api).verify(nudge(), OPERAND_A, signal);
    assert.ok(!result.ok);
    assert.equal(result.reason, 'not-a-pipelinerun');
  });

  it("verifies afresh when the Component's image or branch changed since a build was remembered", async () => {
    const api = new BuildApi();
    api.put(buildRun());
    const verifier = new BuildVerifier(api);
    assert.equal((await verifier.verify(nudge(), OPERAND_A, signal)).ok, true);
    const moved = await verifier.verify(nudge(), { ...OPERAND_A, containerImage: 'quay.io/org/operand-a-v2' }, signal);
    assert.ok(!moved.ok);
    assert.equal(moved.reason, 'foreign-image');
    const branched = await verifier.verify(nudge(), { ...OPERAND_A, branch: 'release-1.2' }, signal);
    assert.ok(!branched.ok);
    assert.equal(branched.reason, 'branch-mismatch');
  });

  it('remembers a verified build: a second call for the same claim does not GET', async () => {
    const api = new BuildApi();
    api.put(buildRun());
    const verifier = new BuildVerifier(api);
    const first = await verifier.verify(nudge(), OPERAND_A, signal);
    // The build vanishing (pruned) no longer matters: a succeeded build never changes.
    api.builds.clear();
    const second = await verifier.verify(nudge({ name: 'another-nudge-run' }), OPERAND_A, signal);
    assert.deepEqual(second, first);
    assert.equal(api.gets.length, 1);
  });

  it('verifies afresh when another component claims an already verified build', async () => {
    const api = new BuildApi();
    api.put(buildRun());
    const verifier = new BuildVerifier(api);
    assert.equal((await verifier.verify(nudge(), OPERAND_A, signal)).ok, true);
    const forged = await verifier.verify(
      nudge({ source: 'operand-b', image: 'quay.io/org/operand-a:abc123' }),
      OPERAND_A,
      signal,
    );
    assert.ok(!forged.ok);
    assert.equal(forged.reason, 'component-mismatch');
    assert.equal(api.gets.length, 2);
    // And the genuine claim is still answered (fresh or remembered), never poisoned by the forgery.
    assert.equal((await verifier.verify(nudge(), OPERAND_A, signal)).ok, true);
  });

  it('does not remember rejections: a build that finishes later verifies', async () => {
    const api = new BuildApi();
    api.put(buildRun({ succeeded: 'Unknown' }));
    const verifier = new BuildVerifier(api);
    const running = await verifier.verify(nudge(), OPERAND_A, signal);
    assert.ok(!running.ok);
    assert.equal(running.reason, 'not-succeeded');
    api.put(buildRun({ succeeded: 'True' }));
    assert.equal((await verifier.verify(nudge(), OPERAND_A, signal)).ok, true);
    assert.equal(api.gets.length, 2);

    const missing = new BuildApi();
    const later = new BuildVerifier(missing);
    assert.equal((await later.verify(nudge(), OPERAND_A, signal)).ok, false);
    missing.put(buildRun());
    assert.equal((await later.verify(nudge(), OPERAND_A, signal)).ok, true);
    assert.equal(missing.gets.length, 2);
  });

  it('keys the memory by namespace and build name', async () => {
    const api = new BuildApi();
    api.put(buildRun());
    const verifier = new BuildVerifier(api);
    await verifier.verify(nudge(), OPERAND_A, signal);
    const elsewhere = await verifier.verify(nudge({ namespace: 'other-ns' }), OPERAND_A, signal);
    assert.equal(api.gets.length, 2);
    assert.equal(api.gets[1]?.namespace, 'other-ns');
    assert.ok(!elsewhere.ok);
  });

  it('forgets the least recently used build beyond its capacity', async () => {
    const api = new BuildApi();
    for (const name of ['b1', 'b2', 'b3']) api.put(buildRun({ name }));
    const verifier = new BuildVerifier(api, 2);
    const claim = (name: string) => nudge({ name: `nudge-${name}`, pipeline: name });
    await verifier.verify(claim('b1'), OPERAND_A, signal);
    await verifier.verify(claim('b2'), OPERAND_A, signal);
    await verifier.verify(claim('b1'), OPERAND_A, signal); // b1 is now the most recent
    await verifier.verify(claim('b3'), OPERAND_A, signal); // evicts b2
    assert.equal(api.gets.length, 3);
    await verifier.verify(claim('b1'), OPERAND_A, signal);
    assert.equal(api.gets.length, 3, 'b1 was kept');
    await verifier.verify(claim('b2'), OPERAND_A, signal);
    assert.equal(api.gets.length, 4, 'b2 was evicted');
  });

  it('verifyAll splits builds and rejections, naming the nudge PipelineRun and component', async () => {
    const api = new BuildApi();
    api.put(buildRun());
    const result = await new BuildVerifier(api).verifyAll(
      [nudge({ name: 'good' }), nudge({ name: 'forged', pipeline: 'does-not-exist', source: 'operand-b' })],
      operandA,
      signal,
    );
    assert.deepEqual(
      result.builds.map((b) => [b.component, b.pipelineRun, b.digest]),
      [['operand-a', 'operand-a-on-push-x7k2p', DIGEST('1')]],
    );
    assert.equal(result.rejected.length, 1);
    assert.deepEqual(
      { ...result.rejected[0], message: undefined },
      { component: 'operand-b', pipelineRun: 'forged', reason: 'build-not-found', message: undefined },
    );
  });
});
