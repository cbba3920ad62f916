// The stack-update decision (docs/decisions.md D13, N42): which rebuilds are rolled out, what the
// new droplet holds, and how a decision repeated after each step finds that step done.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  STACK_UPDATE_DROPLET_ANNOTATION,
  STACK_UPDATE_FROM_ANNOTATION,
  STACK_UPDATE_LABEL,
  appOfImage,
  decideStackUpdate,
  describeIgnoredRebuild,
  isStackOnly,
  rebuildReasons,
  sameImage,
  stackUpdateBuildName,
  type StackUpdateDecision,
  type StackUpdateIntent,
} from '../../../src/domain/korifi/stack-update.ts';
import { APP, NOW, SPACE, app, asStored, cfBuild, droplet, image, imageRef } from './stack-update-fixtures.ts';

const OLD = cfBuild('droplet-1', imageRef(1));

function kinds(decision: StackUpdateDecision): string[] {
  return decision.intents.map((i) => i.kind);
}

function intent<K extends StackUpdateIntent['kind']>(
  decision: StackUpdateDecision,
  kind: K,
): Extract<StackUpdateIntent, { kind: K }> {
  const found = decision.intents.find((i): i is Extract<StackUpdateIntent, { kind: K }> => i.kind === kind);
  assert.ok(found, `no ${kind} intent in ${JSON.stringify(kinds(decision))}`);
  return found;
}

describe('stack update: which rebuilds roll out', () => {
  it('a Ready Image rebuilt for STACK alone, with a new image, gets a new droplet and the switch', () => {
    const decision = decideStackUpdate({
      image: image({ latestImage: imageRef(2), latestStack: 'io.buildpacks.stacks.noble' }),
      app: app('droplet-1'),
      builds: [OLD],
      now: NOW,
    });
    assert.deepEqual(kinds(decision), ['createBuild', 'writeBuildStatus', 'switchDroplet']);
    const name = stackUpdateBuildName(SPACE, APP, imageRef(2));
    assert.deepEqual(decision.outcome, { kind: 'propagate', droplet: name, from: 'droplet-1' });
    const created = intent(decision, 'createBuild').build;
    assert.equal(created.metadata.name, name);
    assert.equal(created.metadata.namespace, SPACE);
    assert.deepEqual(created.spec, OLD.spec, 'the current droplet spec, copied');
    assert.deepEqual(created.metadata.ownerReferences, OLD.ownerReferences);
    assert.equal(created.metadata.labels[STACK_UPDATE_LABEL], 'true');
    assert.equal(created.metadata.labels['korifi.cloudfoundry.org/app-guid'], APP);
    assert.equal(created.metadata.labels['korifi.cloudfoundry.org/droplet-guid'], name);
    assert.equal(created.metadata.annotations[STACK_UPDATE_FROM_ANNOTATION], 'droplet-1');
    const status = intent(decision, 'writeBuildStatus');
    assert.equal(status.name, name);
    assert.equal(status.status.state, 'STAGED');
    assert.deepEqual(status.status.droplet, {
      ...droplet(imageRef(2)),
      stack: 'io.buildpacks.stacks.noble',
    });
    assert.deepEqual(
      JSON.parse(created.metadata.annotations[STACK_UPDATE_DROPLET_ANNOTATION] ?? ''),
      status.status.droplet,
    );
    const succeeded = status.status.conditions.find((c) => c.type === 'Succeeded');
    assert.equal(succeeded?.status, 'True');
    assert.equal(succeeded.reason, 'BuildSucceeded');
    assert.deepEqual(intent(decision, 'switchDroplet'), {
      kind: 'switchDroplet',
      app: APP,
      from: 'droplet-1',
      to: name,
    });
    assert.equal(decision.event, undefined);
  });

  for (const [reason, why] of [
    ['BUILDPACK', 'buildpack updates'],
    ['BUILDPACK,STACK', 'mixed rebuild'],
    ['STACK,BUILDPACK', 'mixed rebuild'],
    ['CONFIG', 'CONFIG, not STACK'],
    ['COMMIT', 'COMMIT, not STACK'],
    ['LIFECYCLE', 'LIFECYCLE, not STACK'],
    ['TRIGGER', 'TRIGGER, not STACK'],
    ['CONFIG,STACK', 'mixed rebuild'],
    ['STACK,LIFECYCLE', 'mixed rebuild'],
  ] as const) {
    it(`${reason}: nothing done, an Event naming the reason, once per Build`, () => {
      const decision = decideStackUpdate({
        image: image({ latestImage: imageRef(2), latestBuildReason: reason }),
        app: app('droplet-1'),
        builds: [OLD],
        now: NOW,
      });
      assert.deepEqual(decision.intents, []);
      assert.deepEqual(decision.outcome, { kind: 'ignore', why: 'not-stack-only', reasons: reason.split(',') });
      assert.equal(decision.event?.reason, 'RebuildNotRolledOut');
      assert.match(decision.event.message, new RegExp(reason));
      assert.match(decision.event.message, new RegExp(why));
      assert.match(decision.event.message, new RegExp(`${APP}-build-2`));
      assert.deepEqual(decision.event.fact, ['stack-update-ignored', APP, `${APP}-build-2`, reason]);
    });
  }

  it('the reasons come from the latest Build when the cache has it, else from the Image', () => {
    const img = image({ latestImage: imageRef(2), latestBuildReason: 'STACK' });
    assert.deepEqual(rebuildReasons(img, { name: `${APP}-build-2`, reason: 'BUILDPACK,STACK' }), [
      'BUILDPACK',
      'STACK',
    ]);
    assert.deepEqual(rebuildReasons(img, { name: `${APP}-build-1`, reason: 'CONFIG' }), ['STACK'], 'another Build');
    assert.deepEqual(rebuildReasons(img, undefined), ['STACK']);
    const decision = decideStackUpdate({
      image: img,
      latestBuild: { name: `${APP}-build-2`, reason: 'BUILDPACK' },
      app: app('droplet-1'),
      builds: [OLD],
      now: NOW,
    });
    assert.equal(decision.outcome.kind, 'ignore');
  });

  it('stack-only means every reason is STACK, and at least one', () => {
    assert.equal(isStackOnly(['STACK']), true);
    assert.equal(isStackOnly([]), false);
    assert.equal(isStackOnly(['STACK', 'BUILDPACK']), false);
    assert.match(describeIgnoredRebuild([]), /no reason/);
  });

  for (const [label, fields] of [
    ['Ready Unknown (a build running)', { ready: 'Unknown' }],
    ['Ready False', { ready: 'False' }],
    ['no Ready condition', { ready: undefined }],
    ['a generation not observed yet', { generation: 3, observedGeneration: 2 }],
    ['no latestImage', { latestImage: '' }],
  ] as const) {
    it(`${label}: nothing, no Event`, () => {
      const decision = decideStackUpdate({
        image: image({ latestImage: imageRef(2), ...fields }),
        app: app('droplet-1'),
        builds: [OLD],
        now: NOW,
      });
      assert.deepEqual(decision.outcome, { kind: 'ignore', why: 'not-ready', reasons: ['STACK'] });
      assert.deepEqual(decision.intents, []);
      assert.equal(decision.event, undefined);
    });
  }

  it('the same image as the current droplet (first build, restage, done): nothing, no Event, whatever the reason', () => {
    for (const reason of ['CONFIG', 'STACK', 'BUILDPACK']) {
      const decision = decideStackUpdate({
        image: image({ latestImage: imageRef(1), latestBuildReason: reason }),
        app: app('droplet-1'),
        builds: [OLD],
        now: NOW,
      });
      assert.deepEqual(decision.outcome, { kind: 'ignore', why: 'same-image', reasons: [reason] });
      assert.equal(decision.event, undefined);
    }
  });

  it('the same digest under another repository is the same image', () => {
    assert.equal(sameImage(imageRef(1), `other.registry/x@${imageRef(1).split('@')[1] ?? ''}`), true);
    assert.equal(sameImage('a:latest', 'a:latest'), true);
    assert.equal(sameImage('a:latest', 'b:latest'), false);
    assert.equal(sameImage(imageRef(1), imageRef(2)), false);
  });

  it('no current droplet, or one not staged: nothing', () => {
    for (const [current, builds] of [
      [undefined, [OLD]],
      ['droplet-9', [OLD]],
      ['droplet-2', [cfBuild('droplet-2', undefined)]],
    ] as const) {
      const decision = decideStackUpdate({
        image: image({ latestImage: imageRef(2) }),
        app: app(current),
        builds,
        now: NOW,
      });
      assert.equal(decision.outcome.kind === 'ignore' && decision.outcome.why, 'no-droplet');
      assert.deepEqual(decision.intents, []);
    }
  });
});

describe('stack update: exactly once, step by step', () => {
  const input = { image: image({ latestImage: imageRef(2) }), now: NOW };
  const first = decideStackUpdate({ ...input, app: app('droplet-1'), builds: [OLD] });
  const created = intent(first, 'createBuild').build;
  const status = intent(first, 'writeBuildStatus').status;
  const name = created.metadata.name;

  it('the name is a GUID, the same for the same (space, app, image digest), another for any other', () => {
    assert.match(name, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(stackUpdateBuildName(SPACE, APP, imageRef(2)), name);
    assert.equal(stackUpdateBuildName(SPACE, APP, `mirror.local/x@${imageRef(2).split('@')[1] ?? ''}`), name);
    assert.notEqual(stackUpdateBuildName(SPACE, APP, imageRef(3)), name);
    assert.notEqual(stackUpdateBuildName(SPACE, 'other-app', imageRef(2)), name);
    assert.notEqual(stackUpdateBuildName('space-b', APP, imageRef(2)), name);
  });

  it('killed before the switch, then the app moved to another droplet: switched from that one', () => {
    const other = cfBuild('droplet-0', imageRef(9));
    const again = decideStackUpdate({
      ...input,
      app: app('droplet-0'),
      builds: [OLD, other, asStored(created, status)],
    });
    assert.deepEqual(again.intents, [{ kind: 'switchDroplet', app: APP, from: 'droplet-0', to: name }]);
  });

  it('killed after the create: the status from the annotation, then the switch; no second create', () => {
    const again = decideStackUpdate({ ...input, app: app('droplet-1'), builds: [OLD, asStored(created)] });
    assert.deepEqual(kinds(again), ['writeBuildStatus', 'switchDroplet']);
    assert.deepEqual(intent(again, 'writeBuildStatus').status.droplet, status.droplet);
  });

  it('killed after the status write: the switch only', () => {
    const again = decideStackUpdate({ ...input, app: app('droplet-1'), builds: [OLD, asStored(created, status)] });
    assert.deepEqual(kinds(again), ['switchDroplet']);
  });

  it('the reasons changed meanwhile (a later rebuild made the same image): still finished', () => {
    const again = decideStackUpdate({
      ...input,
      image: image({ latestImage: imageRef(2), latestBuildReason: 'BUILDPACK', build: 3 }),
      app: app('droplet-1'),
      builds: [OLD, asStored(created, status)],
    });
    assert.deepEqual(kinds(again), ['switchDroplet']);
  });

  it('after the switch: same image, nothing', () => {
    const again = decideStackUpdate({ ...input, app: app(name, name), builds: [OLD, asStored(created, status)] });
    assert.deepEqual(again.outcome, { kind: 'ignore', why: 'same-image', reasons: ['STACK'] });
    assert.deepEqual(again.intents, []);
  });

  it('switched back by a human: not switched again, told once', () => {
    const again = decideStackUpdate({
      ...input,
      app: app('droplet-1', name),
      builds: [OLD, asStored(created, status)],
    });
    assert.equal(again.outcome.kind === 'ignore' && again.outcome.why, 'reverted');
    assert.deepEqual(again.intents, []);
    assert.equal(again.event?.reason, 'StackUpdateReverted');
  });

  it("switched back by a human, then the droplet deleted by Korifi's build cleanup: still not rolled out again", () => {
    const again = decideStackUpdate({ ...input, app: app('droplet-1', name), builds: [OLD] });
    assert.equal(again.outcome.kind === 'ignore' && again.outcome.why, 'reverted');
    assert.deepEqual(again.intents, []);
  });

  it('a later stack update of our droplet chains: a new droplet from ours', () => {
    const next = decideStackUpdate({
      image: image({ latestImage: imageRef(3), build: 3 }),
      app: app(name, name),
      builds: [OLD, asStored(created, status)],
      now: NOW,
    });
    assert.deepEqual(kinds(next), ['createBuild', 'writeBuildStatus', 'switchDroplet']);
    assert.equal(intent(next, 'createBuild').build.metadata.annotations[STACK_UPDATE_FROM_ANNOTATION], name);
  });

  it('our CFBuild left without status by an update that moved on gets its status anyway', () => {
    const again = decideStackUpdate({
      image: image({ latestImage: imageRef(3), latestBuildReason: 'BUILDPACK', build: 3 }),
      app: app('droplet-1'),
      builds: [OLD, asStored(created)],
      now: NOW,
    });
    assert.deepEqual(kinds(again), ['writeBuildStatus']);
    assert.equal(again.outcome.kind === 'ignore' && again.outcome.why, 'not-stack-only');
  });

  it('the name taken by a CFBuild not ours: nothing, a Warning', () => {
    const squatter = { ...cfBuild(name, imageRef(7)) };
    const again = decideStackUpdate({ ...input, app: app('droplet-1'), builds: [OLD, squatter] });
    assert.equal(again.outcome.kind === 'ignore' && again.outcome.why, 'name-taken');
    assert.deepEqual(again.intents, []);
    assert.equal(again.event?.type, 'Warning');
  });

  it('our droplet annotation edited into nonsense: nothing, a Warning naming the annotation', () => {
    const stored = asStored(created);
    const broken = {
      ...stored,
      annotations: { ...stored.annotations, [STACK_UPDATE_DROPLET_ANNOTATION]: '{"registry":1}' },
    };
    const again = decideStackUpdate({ ...input, app: app('droplet-1'), builds: [OLD, broken] });
    assert.equal(again.outcome.kind === 'ignore' && again.outcome.why, 'unreadable');
    assert.deepEqual(again.intents, []);
    assert.match(again.event?.message ?? '', new RegExp(STACK_UPDATE_DROPLET_ANNOTATION));
  });
});

describe('stack update: which app an Image builds', () => {
  const apps = new Set(['app-1', 'app-2']);
  const exists = (name: string) => apps.has(name);
  const appOfBuild = (build: string) => (build === 'build-of-app-2' ? 'app-2' : undefined);

  it("nudger's build reconciler: the app-guid label", () => {
    assert.equal(
      appOfImage({ name: 'other', labels: { 'korifi.cloudfoundry.org/app-guid': 'app-1' } }, exists, appOfBuild),
      'app-1',
    );
  });

  it("Korifi's kpack-image-builder: the Image is named after the app GUID", () => {
    assert.equal(
      appOfImage({ name: 'app-2', labels: { 'korifi.cloudfoundry.org/build-workload-name': 'b' } }, exists, appOfBuild),
      'app-2',
    );
  });

  it('else a BuildWorkload owner, named after the CFBuild whose appRef names the app', () => {
    assert.equal(
      appOfImage(
        {
          name: 'renamed',
          ownerReferences: [
            { kind: 'ConfigMap', name: 'x' },
            { kind: 'BuildWorkload', name: 'build-of-app-2' },
          ],
        },
        exists,
        appOfBuild,
      ),
      'app-2',
    );
  });

  it('an Image of no existing app is no CF app Image', () => {
    assert.equal(
      appOfImage({ name: 'plain-image', labels: { 'korifi.cloudfoundry.org/app-guid': 'gone' } }, exists, appOfBuild),
      undefined,
    );
  });
});
