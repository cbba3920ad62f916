// The Korifi examples played end to end (docs/sandbox.md "Korifi scenarios", docs/decisions.md D13,
// N44): a real control plane with Korifi's and kpack's CRDs, a real local OCI registry, nudger's
// manager running the korifi controllers, the kpack stand-in, and the CF API's and Korifi's part
// played by the sandbox. The JSON result is checked against its schema and read like a user would:
// ADR 6's lifecycle table (default, app lifecycle reused, build lifecycle), and a stack update
// that gives every app a new droplet while a buildpack update and a mixed one change none and are
// told by Events.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../../src/runtime/logger.ts';
import { startKorifiEnvironment, type KorifiEnvironment } from '../../src/sandbox/korifi/environment.ts';
import { playKorifiInEnvironment } from '../../src/sandbox/korifi/play.ts';
import type { KorifiAppResult, KorifiResult } from '../../src/sandbox/scenario/korifi-result.ts';
import { loadScenarioFile } from '../../src/sandbox/scenario/load.ts';
import { renderResultText, sandboxResultProblems } from '../../src/sandbox/scenario/result.ts';

const EXAMPLES = fileURLToPath(new URL('../../examples/sandbox/', import.meta.url));
const APP_GUID = 'korifi.cloudfoundry.org/app-guid';
const BUILD_GUID = 'korifi.cloudfoundry.org/build-guid';

let env: KorifiEnvironment;

before(async () => {
  const lifecycles = await loadScenarioFile(join(EXAMPLES, 'korifi-lifecycles.yaml'));
  assert.ok(lifecycles.korifi !== undefined);
  env = await startKorifiEnvironment({
    logger: createLogger({ level: 'warn', destination: process.stderr }),
    clusterBuilder: lifecycles.korifi.clusterBuilder,
  });
});

after(async () => {
  await env.close();
});

async function play(file: string): Promise<KorifiResult> {
  const scenario = await loadScenarioFile(join(EXAMPLES, file));
  const result = await playKorifiInEnvironment(env, scenario);
  // One environment plays both examples: they must agree on the operator's ClusterBuilder.
  assert.deepEqual(sandboxResultProblems(JSON.parse(JSON.stringify(result))), []);
  assert.ok(result.korifi !== undefined);
  assert.match(renderResultText(result), /^App /);
  return result.korifi;
}

function app(result: KorifiResult, name: string): KorifiAppResult {
  const found = result.apps.find((a) => a.name === name);
  assert.ok(found !== undefined, name);
  return found;
}

describe('Korifi sandbox scenarios', () => {
  it('korifi-lifecycles.yaml: default, app lifecycle reused, build lifecycle', async () => {
    const result = await play('korifi-lifecycles.yaml');
    for (const a of result.apps) {
      assert.ok(a.droplets.length > 0, a.name);
      for (const droplet of a.droplets) {
        assert.equal(droplet.state, 'STAGED', `${a.name}: ${droplet.failure ?? ''}`);
        assert.equal(droplet.origin, 'staged');
        assert.equal(droplet.stack, 'io.buildpacks.stacks.jammy');
        assert.match(droplet.image ?? '', /@sha256:[0-9a-f]{64}$/);
      }
      assert.equal(a.currentDroplet, a.droplets.at(-1)?.guid, a.name);
    }
    const defaultApp = app(result, 'default-app');
    const nodeApp = app(result, 'node-app');
    const goApp = app(result, 'go-app');
    assert.equal(nodeApp.droplets.length, 2);

    // The default ClusterBuilder is there (the operator's), ready, and the only cluster builder.
    const clusterBuilders = result.builders.filter((b) => b.kind === 'ClusterBuilder');
    assert.deepEqual(
      clusterBuilders.map((b) => [b.name, b.ready]),
      [['cf-kpack-cluster-builder', true]],
    );
    const builders = result.builders.filter((b) => b.kind === 'Builder');
    // No Builder for the default app.
    assert.equal(builders.filter((b) => b.labels[APP_GUID] === defaultApp.guid).length, 0);
    // One Builder for the app lifecycle, labelled with the app only, used by both its builds.
    const ofNode = builders.filter((b) => b.labels[APP_GUID] === nodeApp.guid);
    assert.equal(ofNode.length, 1, JSON.stringify(builders));
    assert.equal(ofNode[0]?.labels[BUILD_GUID], undefined);
    assert.equal(ofNode[0]?.namespace, 'cf-lifecycles');
    // A Builder for the build lifecycle, labelled with the app and that build.
    const ofGo = builders.filter((b) => b.labels[APP_GUID] === goApp.guid);
    assert.equal(ofGo.length, 1, JSON.stringify(builders));
    assert.equal(ofGo[0]?.labels[BUILD_GUID], goApp.droplets[0]?.guid);
    assert.ok(builders.every((b) => b.ready));
    assert.equal(builders.length, 2);
    // Nothing was rolled out by the propagator.
    assert.ok(!result.events.some((e) => e.reason === 'StackUpdated'), JSON.stringify(result.events));
  });

  it('korifi-stack-update.yaml: STACK gives new droplets; BUILDPACK and BUILDPACK,STACK none, with Events', async () => {
    const result = await play('korifi-stack-update.yaml');
    assert.deepEqual(
      result.apps.map((a) => a.name),
      ['app-a', 'app-b', 'app-c'],
    );
    for (const a of result.apps) {
      // Staged once, then one new droplet from the stack update, and no other.
      assert.deepEqual(
        a.droplets.map((d) => [d.origin, d.state]),
        [
          ['staged', 'STAGED'],
          ['stackUpdate', 'STAGED'],
        ],
        a.name,
      );
      const [staged, updated] = a.droplets;
      assert.equal(a.currentDroplet, updated?.guid, a.name);
      assert.notEqual(updated?.image, staged?.image, a.name);
      assert.equal(a.stack, 'io.buildpacks.stacks.jammy');
      const about = result.events.filter((e) => e.object === `CFApp/${a.guid}`);
      assert.equal(about.filter((e) => e.reason === 'StackUpdated').length, 1, JSON.stringify(about));
      const ignored = about.filter((e) => e.reason === 'RebuildNotRolledOut').map((e) => e.message);
      // One for the buildpack update, one for the mixed one, each naming its reasons.
      assert.equal(ignored.filter((m) => /its reason is BUILDPACK\b/.test(m)).length, 1, ignored.join('\n'));
      assert.equal(ignored.filter((m) => m.includes('BUILDPACK,STACK')).length, 1, ignored.join('\n'));
    }
  });
});
