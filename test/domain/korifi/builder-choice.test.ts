// Builder choice as Korifi ADR 6 tabulates it (docs/decisions.md D13, N41).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  builderNeedsUpdate,
  chooseBuilder,
  lifecycleSource,
  type BuilderChoiceInput,
  type KpackBuilderView,
} from '../../../src/domain/korifi/builder-choice.ts';
import { APP, BUILD, CLUSTER_BUILDER, NAMESPACE, PREFIX, clusterBuilder } from './fixtures.ts';

const APP_LABEL = 'korifi.cloudfoundry.org/app-guid';
const BUILD_LABEL = 'korifi.cloudfoundry.org/build-guid';

function input(overrides: Partial<BuilderChoiceInput> = {}): BuilderChoiceInput {
  return {
    namespace: NAMESPACE,
    appGuid: APP,
    buildGuid: BUILD,
    buildLifecycle: { type: 'buildpack', data: { stack: 'cflinuxfs3' } },
    appLifecycle: { type: 'buildpack', data: { stack: 'cflinuxfs3' } },
    workloadBuildpacks: [],
    builders: [],
    clusterBuilderName: CLUSTER_BUILDER,
    clusterBuilder: clusterBuilder(),
    repositoryPrefix: PREFIX,
    ...overrides,
  };
}

const lifecycle = (...buildpacks: string[]) => ({ type: 'buildpack', data: { buildpacks, stack: 'cflinuxfs3' } });

describe('chooseBuilder: the ADR lifecycle table', () => {
  it('app and build without lifecycle data: the default ClusterBuilder, used as it is', () => {
    const choice = chooseBuilder(input());
    assert.deepEqual(choice, {
      kind: 'default',
      source: 'default',
      ref: { kind: 'ClusterBuilder', name: CLUSTER_BUILDER, apiVersion: 'kpack.io/v1alpha2' },
    });
  });

  it('the default needs no ClusterBuilder to exist: nudger never creates it', () => {
    const choice = chooseBuilder(input({ clusterBuilder: undefined, clusterBuilderName: 'ops-builder' }));
    assert.equal(choice.kind, 'default');
    assert.equal(choice.ref.name, 'ops-builder');
  });

  it('app lifecycle, no Builder labelled for the app: a new one labelled with the app only', () => {
    const app = lifecycle('paketo-buildpacks/nodejs');
    const choice = chooseBuilder(input({ appLifecycle: app, buildLifecycle: app }));
    assert.equal(choice.kind, 'builder');
    assert.equal(choice.source, 'app');
    assert.equal(choice.existing, undefined);
    assert.deepEqual(choice.desired.metadata, {
      name: `app-${APP}`,
      namespace: NAMESPACE,
      labels: { [APP_LABEL]: APP },
    });
    assert.deepEqual(choice.desired.spec, {
      tag: `${PREFIX}builders-app-${APP}`,
      stack: { kind: 'ClusterStack', name: 'cf-default-stack' },
      store: { kind: 'ClusterStore', name: 'cf-default-buildpacks' },
      serviceAccountName: 'kpack-service-account',
      order: [{ group: [{ id: 'paketo-buildpacks/nodejs' }] }],
    });
    assert.deepEqual(choice.ref, {
      kind: 'Builder',
      name: `app-${APP}`,
      namespace: NAMESPACE,
      apiVersion: 'kpack.io/v1alpha2',
    });
  });

  it('app lifecycle: the Builder labelled with the app only is reused, whatever its name', () => {
    const app = lifecycle('paketo-buildpacks/nodejs');
    const mine: KpackBuilderView = {
      metadata: { name: 'handmade', namespace: NAMESPACE, labels: { [APP_LABEL]: APP } },
      spec: { tag: 'old-tag' },
    };
    const buildOnes: KpackBuilderView[] = [
      { metadata: { name: 'b1', namespace: NAMESPACE, labels: { [APP_LABEL]: APP, [BUILD_LABEL]: 'other' } } },
      { metadata: { name: 'b2', namespace: NAMESPACE, labels: { [APP_LABEL]: 'other-app' } } },
    ];
    const choice = chooseBuilder(input({ appLifecycle: app, buildLifecycle: app, builders: [...buildOnes, mine] }));
    assert.equal(choice.kind === 'builder' && choice.existing, mine);
    assert.equal(choice.kind === 'builder' && choice.desired.metadata.name, 'handmade');
    assert.equal(choice.kind === 'builder' && choice.desired.spec.tag, 'old-tag');
  });

  it('build lifecycle: a new Builder labelled with the app and the build', () => {
    const choice = chooseBuilder(
      input({
        appLifecycle: lifecycle('paketo-buildpacks/nodejs'),
        buildLifecycle: lifecycle('paketo-buildpacks/go'),
        builders: [{ metadata: { name: `app-${APP}`, namespace: NAMESPACE, labels: { [APP_LABEL]: APP } } }],
      }),
    );
    assert.equal(choice.kind, 'builder');
    assert.equal(choice.source, 'build');
    assert.equal(choice.existing, undefined);
    assert.deepEqual(choice.desired.metadata.labels, { [APP_LABEL]: APP, [BUILD_LABEL]: BUILD });
    assert.equal(choice.desired.metadata.name, `build-${BUILD}`);
  });

  it('build lifecycle over an app without one', () => {
    const choice = chooseBuilder(input({ buildLifecycle: lifecycle('paketo-buildpacks/go') }));
    assert.equal(choice.kind === 'builder' && choice.source, 'build');
  });

  it("an explicitly empty build lifecycle wins over the app's: auto-detection, the default", () => {
    const choice = chooseBuilder(
      input({ appLifecycle: lifecycle('paketo-buildpacks/go'), buildLifecycle: lifecycle() }),
    );
    assert.equal(choice.kind, 'default');
  });

  it("without the CFBuild, the BuildWorkload's buildpacks stand for its lifecycle", () => {
    assert.equal(
      lifecycleSource({ buildLifecycle: undefined, appLifecycle: lifecycle('a'), workloadBuildpacks: ['a'] }).source,
      'app',
    );
    assert.equal(
      lifecycleSource({ buildLifecycle: undefined, appLifecycle: lifecycle('a'), workloadBuildpacks: ['b'] }).source,
      'build',
    );
    assert.equal(
      lifecycleSource({ buildLifecycle: undefined, appLifecycle: undefined, workloadBuildpacks: undefined }).source,
      'default',
    );
  });

  it('a buildpack the store lacks fails with InvalidBuildpacks naming it', () => {
    const choice = chooseBuilder(
      input({ buildLifecycle: lifecycle('paketo-buildpacks/go', 'acme/cobol', 'acme/cobol') }),
    );
    assert.equal(choice.kind, 'invalidBuildpacks');
    assert.deepEqual(choice.missing, ['acme/cobol']);
    assert.match(choice.message, /"acme\/cobol"/);
    assert.match(choice.message, new RegExp(CLUSTER_BUILDER));
  });

  it('a buildpack the store holds inside a composite counts as present', () => {
    assert.equal(chooseBuilder(input({ buildLifecycle: lifecycle('paketo-buildpacks/node-engine') })).kind, 'builder');
  });

  it('a Builder waits for the ClusterBuilder it copies: missing, or not resolved yet', () => {
    const missing = chooseBuilder(input({ buildLifecycle: lifecycle('x'), clusterBuilder: undefined }));
    assert.deepEqual(missing, {
      kind: 'waitingForClusterBuilder',
      source: 'build',
      why: `ClusterBuilder ${CLUSTER_BUILDER} not found`,
    });
    const unresolved = chooseBuilder(
      input({ buildLifecycle: lifecycle('x'), clusterBuilder: { ...clusterBuilder(), status: {} } }),
    );
    assert.equal(unresolved.kind, 'waitingForClusterBuilder');
  });
});

describe('builderNeedsUpdate', () => {
  const app = lifecycle('paketo-buildpacks/nodejs');
  const choice = chooseBuilder(input({ appLifecycle: app, buildLifecycle: app }));
  if (choice.kind !== 'builder') throw new Error('expected a Builder');

  it('a Builder as desired (plus other labels and fields) needs nothing', () => {
    const existing: KpackBuilderView = {
      metadata: { ...choice.desired.metadata, labels: { ...choice.desired.metadata.labels, team: 'x' }, generation: 3 },
      spec: { ...choice.desired.spec },
    };
    assert.equal(builderNeedsUpdate(existing, choice.desired), false);
  });

  it('another order, stack, store, service account or a missing label needs an update', () => {
    const base = { metadata: choice.desired.metadata, spec: choice.desired.spec };
    assert.equal(builderNeedsUpdate({ ...base, spec: { ...base.spec, order: [] } }, choice.desired), true);
    assert.equal(
      builderNeedsUpdate(
        { ...base, spec: { ...base.spec, stack: { kind: 'ClusterStack', name: 'old' } } },
        choice.desired,
      ),
      true,
    );
    assert.equal(
      builderNeedsUpdate(
        { ...base, spec: { ...base.spec, store: { kind: 'ClusterStore', name: 'old' } } },
        choice.desired,
      ),
      true,
    );
    assert.equal(
      builderNeedsUpdate({ ...base, spec: { ...base.spec, serviceAccountName: 'x' } }, choice.desired),
      true,
    );
    assert.equal(builderNeedsUpdate({ ...base, metadata: { ...base.metadata, labels: {} } }, choice.desired), true);
  });
});

describe('chooseBuilder properties', () => {
  const ids = fc.constantFrom('a', 'b', 'c', 'z');
  const maybeList = fc.option(fc.array(ids, { maxLength: 3 }), { nil: undefined });
  it('precedence build > app > default, labels per the ADR, deterministic', () => {
    fc.assert(
      fc.property(maybeList, maybeList, fc.boolean(), (build, app, withExisting) => {
        const existing: KpackBuilderView = {
          metadata: { name: 'found', namespace: NAMESPACE, labels: { [APP_LABEL]: APP } },
        };
        const i = input({
          clusterBuilder: clusterBuilder(['a', 'b', 'c']),
          buildLifecycle: build === undefined ? undefined : lifecycle(...build),
          appLifecycle: app === undefined ? undefined : lifecycle(...app),
          workloadBuildpacks: build ?? [],
          builders: withExisting ? [existing] : [],
        });
        const choice = chooseBuilder(i);
        assert.deepEqual(chooseBuilder(i), choice);
        const requested = build ?? [];
        if (requested.length === 0) {
          assert.equal(choice.kind, 'default');
          return;
        }
        const expectedSource = JSON.stringify(requested) === JSON.stringify(app ?? []) ? 'app' : 'build';
        if (requested.includes('z')) {
          assert.equal(choice.kind, 'invalidBuildpacks');
          assert.match(choice.message, /"z"/);
          return;
        }
        assert.equal(choice.kind, 'builder');
        assert.equal(choice.source, expectedSource);
        assert.deepEqual(
          choice.desired.spec.order.map((e) => e.group[0]?.id),
          requested,
        );
        assert.equal(choice.desired.metadata.labels[APP_LABEL], APP);
        assert.equal(choice.desired.metadata.labels[BUILD_LABEL], expectedSource === 'build' ? BUILD : undefined);
        // Only the app lifecycle reuses the Builder labelled with the app alone.
        assert.equal(choice.existing === existing, expectedSource === 'app' && withExisting);
      }),
    );
  });
});
