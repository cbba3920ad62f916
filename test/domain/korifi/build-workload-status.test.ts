// The BuildWorkload's status and the build reconciler's intents (docs/decisions.md D13, N41).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { chooseBuilder, type BuilderChoice, type KpackBuilderView } from '../../../src/domain/korifi/builder-choice.ts';
import {
  builderNotReadyReason,
  decideBuildWorkload,
  formatDuration,
  type BuildWorkloadInput,
  type BuildWorkloadView,
  type KpackImageView,
} from '../../../src/domain/korifi/build-workload-status.ts';
import { APP, BUILD, CLUSTER_BUILDER, NAMESPACE, PREFIX, clusterBuilder, kpackBuild, workload } from './fixtures.ts';

const CREATED = Date.parse('2026-01-01T00:00:00.000Z');
const TIMEOUT = 5 * 60_000;
const GEN_LABEL = 'korifi.cloudfoundry.org/kpack-image-generation';

const defaultChoice: BuilderChoice = {
  kind: 'default',
  source: 'default',
  ref: { kind: 'ClusterBuilder', name: CLUSTER_BUILDER, apiVersion: 'kpack.io/v1alpha2' },
};

function input(overrides: Partial<BuildWorkloadInput> = {}): BuildWorkloadInput {
  return {
    workload: workload(),
    now: new Date(CREATED + 1000),
    readinessTimeoutMs: TIMEOUT,
    appGuid: APP,
    choice: defaultChoice,
    builder: clusterBuilder(),
    image: undefined,
    builds: [],
    repositoryPrefix: PREFIX,
    ...overrides,
  };
}

function labelled(generation: number): BuildWorkloadView {
  const w = workload();
  return { ...w, metadata: { ...w.metadata, labels: { ...w.metadata.labels, [GEN_LABEL]: String(generation) } } };
}

function image(generation: number, ready?: 'True' | 'False' | 'Unknown', observed = generation): KpackImageView {
  return {
    metadata: { name: APP, namespace: NAMESPACE, generation },
    spec: { tag: `${PREFIX}${APP}-droplets` },
    status: { observedGeneration: observed, conditions: ready === undefined ? [] : [{ type: 'Ready', status: ready }] },
  };
}

const succeeded = (decision: ReturnType<typeof decideBuildWorkload>) =>
  decision.status?.conditions?.find((c) => c.type === 'Succeeded');
const builderReady = (decision: ReturnType<typeof decideBuildWorkload>) =>
  decision.status?.conditions?.find((c) => c.type === 'BuilderReady');

describe('builder readiness', () => {
  const notReady: KpackBuilderView = {
    metadata: { name: CLUSTER_BUILDER, generation: 2 },
    status: {
      observedGeneration: 2,
      conditions: [{ type: 'Ready', status: 'False', reason: 'NoLatestImage', message: 'Builder has no latestImage' }],
    },
  };

  it('is the Ready condition True with observedGeneration caught up', () => {
    assert.equal(builderNotReadyReason(clusterBuilder()), undefined);
    assert.equal(builderNotReadyReason(undefined), 'not found');
    assert.equal(builderNotReadyReason({ metadata: { generation: 1 } }), 'no Ready condition yet');
    assert.equal(builderNotReadyReason(notReady), 'Ready is False (NoLatestImage: Builder has no latestImage)');
    const stale = { ...clusterBuilder(), metadata: { name: CLUSTER_BUILDER, generation: 2 } };
    assert.equal(builderNotReadyReason(stale), 'status.observedGeneration 1 is behind metadata.generation 2');
  });

  it('not ready within the timeout: running, reported, requeued for the deadline, no Image yet', () => {
    const decision = decideBuildWorkload(input({ builder: notReady, now: new Date(CREATED + 60_000) }));
    assert.equal(succeeded(decision)?.status, 'Unknown');
    assert.equal(succeeded(decision)?.reason, 'BuildRunning');
    assert.equal(builderReady(decision)?.status, 'False');
    assert.match(
      builderReady(decision)?.message ?? '',
      /ClusterBuilder cf-kpack-cluster-builder: Ready is False \(NoLatestImage/,
    );
    assert.equal(decision.requeueAfterMs, TIMEOUT - 60_000);
    assert.deepEqual(decision.intents, []);
  });

  it('not ready at the timeout: BuilderNotReady naming the builder and why', () => {
    const decision = decideBuildWorkload(input({ builder: notReady, now: new Date(CREATED + TIMEOUT) }));
    assert.equal(succeeded(decision)?.status, 'False');
    assert.equal(succeeded(decision)?.reason, 'BuilderNotReady');
    assert.equal(
      succeeded(decision)?.message,
      'ClusterBuilder cf-kpack-cluster-builder not ready within 5m: Ready is False (NoLatestImage: Builder has no latestImage)',
    );
    assert.equal(decision.requeueAfterMs, undefined);
  });

  it('a missing default ClusterBuilder is a builder not ready, as Korifi reports it', () => {
    const decision = decideBuildWorkload(input({ builder: undefined, now: new Date(CREATED + TIMEOUT + 1) }));
    assert.equal(
      succeeded(decision)?.message,
      'ClusterBuilder cf-kpack-cluster-builder not ready within 5m: not found',
    );
  });

  it('a Builder still to copy an unresolved ClusterBuilder waits, then fails saying so', () => {
    const choice: BuilderChoice = {
      kind: 'waitingForClusterBuilder',
      source: 'app',
      why: 'ClusterBuilder x not found',
    };
    const early = decideBuildWorkload(input({ choice, builder: undefined }));
    assert.equal(succeeded(early)?.status, 'Unknown');
    const late = decideBuildWorkload(input({ choice, builder: undefined, now: new Date(CREATED + TIMEOUT) }));
    assert.equal(succeeded(late)?.reason, 'BuilderNotReady');
    assert.match(
      succeeded(late)?.message ?? '',
      /app lifecycle's Builder not ready within 5m: ClusterBuilder x not found/,
    );
  });

  it('formats durations as Go does for whole seconds', () => {
    assert.equal(formatDuration(30_000), '30s');
    assert.equal(formatDuration(330_000), '5m30s');
    assert.equal(formatDuration(3_600_000), '1h');
    assert.equal(formatDuration(0), '0s');
  });
});

describe('app and build lifecycle Builders', () => {
  const lifecycle = { type: 'buildpack', data: { buildpacks: ['paketo-buildpacks/go'], stack: 'cflinuxfs3' } };
  const choice = chooseBuilder({
    namespace: NAMESPACE,
    appGuid: APP,
    buildGuid: BUILD,
    buildLifecycle: lifecycle,
    appLifecycle: undefined,
    workloadBuildpacks: undefined,
    builders: [],
    clusterBuilderName: CLUSTER_BUILDER,
    clusterBuilder: clusterBuilder(),
    repositoryPrefix: PREFIX,
  });

  it('a missing Builder is created and waited for', () => {
    const decision = decideBuildWorkload(input({ choice, builder: undefined }));
    assert.equal(decision.intents.length, 1);
    assert.equal(decision.intents[0]?.kind, 'ensureBuilder');
    assert.match(builderReady(decision)?.message ?? '', new RegExp(`Builder ${NAMESPACE}/build-${BUILD}: not found`));
  });

  it('a ready Builder as desired gets the Image', () => {
    if (choice.kind !== 'builder') throw new Error('expected a Builder');
    const ready: KpackBuilderView = {
      metadata: { ...choice.desired.metadata, generation: 1 },
      spec: choice.desired.spec,
      status: { observedGeneration: 1, conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const decision = decideBuildWorkload(input({ choice, builder: ready }));
    assert.deepEqual(
      decision.intents.map((i) => i.kind),
      ['ensureImage'],
    );
    assert.equal(builderReady(decision)?.status, 'True');
  });

  it('a ready Builder that must change is not taken for ready', () => {
    if (choice.kind !== 'builder') throw new Error('expected a Builder');
    const outdated: KpackBuilderView = {
      metadata: { ...choice.desired.metadata, generation: 1 },
      spec: { ...choice.desired.spec, order: [] },
      status: { observedGeneration: 1, conditions: [{ type: 'Ready', status: 'True' }] },
    };
    const decision = decideBuildWorkload(input({ choice, builder: outdated }));
    assert.deepEqual(
      decision.intents.map((i) => i.kind),
      ['ensureBuilder'],
    );
    assert.equal(succeeded(decision)?.status, 'Unknown');
  });

  it('InvalidBuildpacks fails at once', () => {
    const decision = decideBuildWorkload(
      input({
        choice: {
          kind: 'invalidBuildpacks',
          source: 'build',
          missing: ['x'],
          message: 'buildpack "x" not in the store',
        },
      }),
    );
    assert.equal(succeeded(decision)?.status, 'False');
    assert.equal(succeeded(decision)?.reason, 'InvalidBuildpacks');
    assert.match(succeeded(decision)?.message ?? '', /"x"/);
  });
});

describe('the kpack Image', () => {
  it('one per app, named by its GUID, tagged under the prefix, as the workload asks', () => {
    const decision = decideBuildWorkload(input());
    assert.equal(decision.intents.length, 1);
    const intent = decision.intents[0];
    assert.equal(intent?.kind, 'ensureImage');
    assert.deepEqual(intent.desired, {
      apiVersion: 'kpack.io/v1alpha2',
      kind: 'Image',
      metadata: {
        name: APP,
        namespace: NAMESPACE,
        labels: { 'korifi.cloudfoundry.org/build-workload-name': BUILD, 'korifi.cloudfoundry.org/app-guid': APP },
        ownerReferences: [
          { apiVersion: 'korifi.cloudfoundry.org/v1alpha1', kind: 'BuildWorkload', name: BUILD, uid: `uid-${BUILD}` },
        ],
      },
      spec: {
        tag: `${PREFIX}${APP}-droplets`,
        builder: defaultChoice.ref,
        serviceAccountName: 'kpack-service-account',
        source: { registry: { image: 'registry.local/cf/packages/pkg-1', imagePullSecrets: [{ name: 'pull' }] } },
        build: { env: [], services: [] },
      },
    });
  });

  it('an existing Image keeps its tag and its other owners', () => {
    const existing: KpackImageView = {
      metadata: {
        name: APP,
        generation: 1,
        ownerReferences: [
          { apiVersion: 'korifi.cloudfoundry.org/v1alpha2', uid: 'u0', kind: 'BuildWorkload', name: 'older' },
        ],
      },
      spec: { tag: 'elsewhere/app' },
    };
    const intent = decideBuildWorkload(input({ image: existing })).intents[0];
    if (intent?.kind !== 'ensureImage') throw new Error('expected ensureImage');
    assert.equal(intent.desired.spec.tag, 'elsewhere/app');
    assert.equal(intent.desired.metadata.ownerReferences[0]?.apiVersion, 'korifi.cloudfoundry.org/v1alpha2');
    assert.deepEqual(
      intent.desired.metadata.ownerReferences.map((o) => o.name),
      ['older', BUILD],
    );
  });
});

describe("after the Image: the workload's kpack Build", () => {
  it('waits for kpack to build its generation', () => {
    const decision = decideBuildWorkload(
      input({ workload: labelled(2), image: image(2, 'Unknown', 1), builds: [kpackBuild(1, 1, 'True')] }),
    );
    assert.equal(succeeded(decision)?.status, 'Unknown');
    assert.deepEqual(decision.intents, []);
  });

  it('kpack settled on the generation without a Build: asks once for an additional build', () => {
    const decision = decideBuildWorkload(
      input({ workload: labelled(2), image: image(2, 'True'), builds: [kpackBuild(1, 1, 'True')] }),
    );
    assert.deepEqual(decision.intents, [{ kind: 'requestAdditionalBuild', build: `${APP}-build-1` }]);
    const asked = kpackBuild(1, 1, 'True');
    const annotated = {
      ...asked,
      metadata: { ...asked.metadata, annotations: { 'image.kpack.io/additionalBuildNeeded': 'true' } },
    };
    assert.deepEqual(
      decideBuildWorkload(input({ workload: labelled(2), image: image(2, 'True'), builds: [annotated] })).intents,
      [],
    );
  });

  it('a newer workload moved the Image before kpack built ours: KpackMissedBuild', () => {
    const decision = decideBuildWorkload(input({ workload: labelled(2), image: image(3, 'Unknown', 2), builds: [] }));
    assert.equal(succeeded(decision)?.status, 'False');
    assert.equal(succeeded(decision)?.reason, 'KpackMissedBuild');
  });

  it('takes the highest-numbered Build of its generation', () => {
    const builds = [kpackBuild(1, 2, 'False'), kpackBuild(3, 2), kpackBuild(2, 2, 'True'), kpackBuild(4, 3, 'True')];
    const decision = decideBuildWorkload(input({ workload: labelled(2), image: image(3), builds }));
    assert.match(succeeded(decision)?.message ?? '', new RegExp(`${APP}-build-3 is running`));
  });

  it("a failed Build: BuildFailed with kpack's reason", () => {
    const decision = decideBuildWorkload(
      input({ workload: labelled(1), image: image(1), builds: [kpackBuild(1, 1, 'False')] }),
    );
    assert.equal(succeeded(decision)?.reason, 'BuildFailed');
    assert.match(succeeded(decision)?.message ?? '', /X: y/);
  });

  it('a succeeded Build: its image config is read, then the droplet', () => {
    const build = kpackBuild(1, 1, 'True');
    const latestImage = build.status?.latestImage ?? '';
    const first = decideBuildWorkload(input({ workload: labelled(1), image: image(1, 'True'), builds: [build] }));
    assert.deepEqual(first.intents, [{ kind: 'readImageConfig', image: latestImage }]);
    assert.equal(succeeded(first)?.status, 'Unknown');
    const dropletConfig = {
      image: latestImage,
      processTypes: [{ type: 'web', command: 'node server.js' }],
      ports: [8080],
    };
    const done = decideBuildWorkload(
      input({
        workload: labelled(1),
        image: image(1, 'True'),
        builds: [build],
        dropletConfig,
        imagePullSecrets: [{ name: 'sa-secret' }],
      }),
    );
    assert.equal(succeeded(done)?.status, 'True');
    assert.equal(succeeded(done)?.reason, 'BuildSucceeded');
    assert.deepEqual(done.status?.droplet, {
      registry: { image: latestImage, imagePullSecrets: [{ name: 'sa-secret' }] },
      stack: 'io.buildpacks.stacks.jammy',
      processTypes: [{ type: 'web', command: 'node server.js' }],
      ports: [8080],
    });
    assert.deepEqual(done.intents, []);
  });
});

describe('level-triggered', () => {
  it('a finished workload is left alone', () => {
    const w = labelled(1);
    const finished = {
      ...w,
      status: { conditions: [{ type: 'Succeeded', status: 'False' as const, reason: 'BuildFailed', message: 'm' }] },
    };
    assert.deepEqual(
      decideBuildWorkload(input({ workload: finished, image: image(1), builds: [kpackBuild(1, 1, 'True')] })),
      {
        status: undefined,
        intents: [],
      },
    );
  });

  it('the same observation twice writes nothing the second time', () => {
    const first = decideBuildWorkload(input({ workload: labelled(1), image: image(1), builds: [kpackBuild(1, 1)] }));
    assert.notEqual(first.status, undefined);
    const again = decideBuildWorkload(
      input({
        workload: { ...labelled(1), status: first.status ?? {} },
        image: image(1),
        builds: [kpackBuild(1, 1)],
        now: new Date(CREATED + 99_000),
      }),
    );
    assert.equal(again.status, undefined);
  });
});
