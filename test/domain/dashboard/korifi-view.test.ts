// The Korifi view (issue 14, docs/decisions.md D14, D13): per space, each app's state, droplet,
// latest build and builder with readiness, and stack updates as the propagator's decision sees
// them (N42); Builders and ClusterBuilders; caps; hostile values escaped; and no Secret's name,
// service account or env value ever rendered, though the fixtures carry them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KorifiSnapshot, ViewContext } from '../../../src/domain/dashboard/inputs.ts';
import { MAX_ROWS, MAX_SPACES, korifiView } from '../../../src/domain/dashboard/korifi-view.ts';
import {
  STACK_UPDATE_APPLIED_ANNOTATION,
  STACK_UPDATE_DROPLET_ANNOTATION,
  STACK_UPDATE_FROM_ANNOTATION,
  STACK_UPDATE_LABEL,
  stackUpdateBuildName,
} from '../../../src/domain/korifi/stack-update.ts';
import type { BuildWorkload, CFApp, CFBuild } from '../../../src/schema/korifi.ts';
import type { KpackBuilder, KpackClusterBuilder, KpackImage } from '../../../src/schema/kpack.ts';

const SPACE = 'cf-space-1';
const CONTEXT: ViewContext = { now: Date.parse('2026-01-15T12:00:00Z'), korifi: true };
const SCRIPT = '<script>alert(1)</script>';
const IMG = '"><img src=x onerror=alert(1)>';
const REPO = 'registry.local/droplets';
const JAMMY = 'io.buildpacks.stacks.jammy';

/** Names the view must never show: they are Secrets, service accounts or env of the fixtures. */
const SECRETS = {
  appEnv: 'app-env-secret-zq1',
  pull: 'registry-pull-secret-zq2',
  serviceAccount: 'builder-service-account-zq3',
  envRef: 'env-secret-ref-zq4',
  binding: 'binding-secret-zq5',
  message: 'message-secret-zq6',
  clusterServiceAccount: 'cluster-service-account-zq7',
  envValue: 'env-value-zq8',
  imageServiceAccount: 'image-service-account-zq9',
} as const;

function digest(n: number): string {
  return `sha256:${n.toString(16).padStart(64, '0')}`;
}

function imageRef(app: string, n: number): string {
  return `${REPO}/${app}-droplets@${digest(n)}`;
}

function condition(type: string, status: string, reason: string) {
  return {
    type,
    status: status as 'True' | 'False' | 'Unknown',
    reason,
    message: `${type} ${status}: secret "${SECRETS.message}" was read`,
    lastTransitionTime: '2026-01-15T10:00:00Z',
  };
}

function app(guid: string, fields: { current?: string; switchedTo?: string; displayName?: string } = {}): CFApp {
  return {
    apiVersion: 'korifi.cloudfoundry.org/v1alpha1',
    kind: 'CFApp',
    metadata: {
      name: guid,
      namespace: SPACE,
      creationTimestamp: '2026-01-15T09:00:00Z',
      ...(fields.switchedTo === undefined
        ? {}
        : { annotations: { [STACK_UPDATE_APPLIED_ANNOTATION]: fields.switchedTo } }),
    },
    spec: {
      displayName: fields.displayName ?? `name-of-${guid}`,
      desiredState: 'STARTED',
      lifecycle: { type: 'buildpack', data: { buildpacks: [], stack: 'cflinuxfs4' } },
      envSecretName: SECRETS.appEnv,
      ...(fields.current === undefined ? {} : { currentDropletRef: { name: fields.current } }),
    },
    status: { conditions: [condition('Ready', 'True', 'Ready')], actualState: 'STARTED' },
  };
}

function cfBuild(
  name: string,
  guid: string,
  image: string | undefined,
  extra: { labels?: Record<string, string>; annotations?: Record<string, string>; stack?: string } = {},
): CFBuild {
  return {
    apiVersion: 'korifi.cloudfoundry.org/v1alpha1',
    kind: 'CFBuild',
    metadata: {
      name,
      namespace: SPACE,
      creationTimestamp: '2026-01-15T09:10:00Z',
      labels: { 'korifi.cloudfoundry.org/app-guid': guid, ...extra.labels },
      ...(extra.annotations === undefined ? {} : { annotations: extra.annotations }),
    },
    spec: {
      packageRef: { name: `package-${guid}` },
      appRef: { name: guid },
      stagingMemoryMB: 1024,
      stagingDiskMB: 2048,
      lifecycle: { type: 'buildpack', data: { buildpacks: [], stack: 'cflinuxfs4' } },
    },
    status:
      image === undefined
        ? { state: 'STAGING' }
        : {
            state: 'STAGED',
            conditions: [condition('Succeeded', 'True', 'BuildSucceeded')],
            droplet: {
              registry: { image, imagePullSecrets: [{ name: SECRETS.pull }] },
              stack: extra.stack ?? JAMMY,
              processTypes: [{ type: 'web', command: 'npm start' }],
              ports: [8080],
            },
          },
  };
}

function workload(name: string, guid: string, created: string, succeeded: [string, string]): BuildWorkload {
  // Korifi's EnvVars, open fields the schema does not type: a Secret reference and a plain value.
  const env = [
    { name: 'VCAP_SERVICES', valueFrom: { secretKeyRef: { name: SECRETS.envRef, key: 'k' } } },
    { name: 'PLAIN', value: SECRETS.envValue },
  ];
  return {
    apiVersion: 'korifi.cloudfoundry.org/v1alpha1',
    kind: 'BuildWorkload',
    metadata: {
      name,
      namespace: SPACE,
      creationTimestamp: created,
      labels: { 'korifi.cloudfoundry.org/app-guid': guid, 'korifi.cloudfoundry.org/build-guid': name },
    },
    spec: {
      buildRef: { name },
      builderName: 'nudger-kpack',
      source: { registry: { image: `registry.local/packages/${guid}`, imagePullSecrets: [{ name: SECRETS.pull }] } },
      env,
      services: [{ kind: 'Secret', name: SECRETS.binding, apiVersion: 'v1' }],
    },
    status: {
      conditions: [
        condition('Succeeded', succeeded[0], succeeded[1]),
        condition('BuilderReady', 'True', 'BuilderReady'),
      ],
    },
  };
}

function kpackImage(
  guid: string,
  latestImage: string,
  reason: string,
  builder: { kind: string; name: string } = { kind: 'ClusterBuilder', name: 'cf-kpack-cluster-builder' },
): KpackImage {
  return {
    apiVersion: 'kpack.io/v1alpha2',
    kind: 'Image',
    metadata: { name: guid, namespace: SPACE, generation: 2, labels: { 'korifi.cloudfoundry.org/app-guid': guid } },
    spec: {
      tag: `${REPO}/${guid}-droplets`,
      builder: { ...builder, apiVersion: 'kpack.io/v1alpha2' },
      serviceAccountName: SECRETS.imageServiceAccount,
      source: { registry: { image: `registry.local/packages/${guid}`, imagePullSecrets: [{ name: SECRETS.pull }] } },
    },
    status: {
      observedGeneration: 2,
      conditions: [{ type: 'Ready', status: 'True', reason: 'UpToDate' }],
      latestBuildRef: `${guid}-build-2`,
      latestImage,
      latestStack: JAMMY,
      latestBuildReason: reason,
    },
  };
}

function builderStatus(name: string, ready: [string, string], observedGeneration = 1) {
  return {
    observedGeneration,
    conditions: [{ type: 'Ready', status: ready[0], reason: ready[1], message: `secret ${SECRETS.message} missing` }],
    stack: { id: JAMMY, runImage: 'registry.local/run@sha256:' + 'd'.repeat(64) },
    latestImage: `registry.local/builders/${name}@${digest(7)}`,
  };
}

function builder(name: string, ready: [string, string], generation = 1, observed = 1): KpackBuilder {
  return {
    apiVersion: 'kpack.io/v1alpha2',
    kind: 'Builder',
    metadata: { name, namespace: SPACE, generation },
    spec: {
      tag: `registry.local/builders/${name}`,
      stack: { kind: 'ClusterStack', name: 'cf-default-stack' },
      store: { kind: 'ClusterStore', name: 'cf-default-buildpacks' },
      serviceAccountName: SECRETS.serviceAccount,
      order: [{ group: [{ id: 'paketo-buildpacks/nodejs' }] }],
    },
    status: builderStatus(name, ready, observed),
  };
}

function clusterBuilder(name = 'cf-kpack-cluster-builder'): KpackClusterBuilder {
  return {
    apiVersion: 'kpack.io/v1alpha2',
    kind: 'ClusterBuilder',
    metadata: { name, generation: 1 },
    spec: {
      tag: `registry.local/builders/${name}`,
      stack: { kind: 'ClusterStack', name: 'cf-default-stack' },
      store: { kind: 'ClusterStore', name: 'cf-default-buildpacks' },
      serviceAccountRef: { name: SECRETS.clusterServiceAccount, namespace: 'cf' },
    },
    status: builderStatus(name, ['True', 'Ready']),
  };
}

// The apps of the space, one per situation.
const IN_FLIGHT = 'app-in-flight';
const UPDATED = 'app-updated';
const REVERTED = 'app-reverted';
const BUILDPACK = 'app-buildpack';
const UNSTAGED = 'app-unstaged';
const DANGLING = 'app-dangling';
const OWN_BUILDER = 'app-own-builder';

const ourDroplet = stackUpdateBuildName(SPACE, UPDATED, imageRef(UPDATED, 2));
const revertedTo = stackUpdateBuildName(SPACE, REVERTED, imageRef(REVERTED, 2));

function space(): KorifiSnapshot {
  return {
    namespace: SPACE,
    apps: [
      app(IN_FLIGHT, { current: 'droplet-in-flight-1' }),
      app(UPDATED, { current: ourDroplet, switchedTo: ourDroplet }),
      app(REVERTED, { current: 'droplet-reverted-1', switchedTo: revertedTo }),
      app(BUILDPACK, { current: 'droplet-buildpack-1' }),
      app(UNSTAGED),
      app(DANGLING, { current: 'droplet-gone' }),
      app(OWN_BUILDER, { current: 'droplet-own-1' }),
    ],
    builds: [
      cfBuild('droplet-in-flight-1', IN_FLIGHT, imageRef(IN_FLIGHT, 1)),
      cfBuild('droplet-updated-1', UPDATED, imageRef(UPDATED, 1)),
      cfBuild(ourDroplet, UPDATED, imageRef(UPDATED, 2), {
        stack: 'io.buildpacks.stacks.noble',
        labels: { [STACK_UPDATE_LABEL]: 'true' },
        annotations: { [STACK_UPDATE_FROM_ANNOTATION]: 'droplet-updated-1', [STACK_UPDATE_DROPLET_ANNOTATION]: '{}' },
      }),
      cfBuild('droplet-reverted-1', REVERTED, imageRef(REVERTED, 1)),
      cfBuild('droplet-buildpack-1', BUILDPACK, imageRef(BUILDPACK, 1)),
      cfBuild('droplet-own-1', OWN_BUILDER, imageRef(OWN_BUILDER, 1)),
      cfBuild('droplet-own-2', OWN_BUILDER, undefined),
    ],
    buildWorkloads: [
      workload('droplet-own-1', OWN_BUILDER, '2026-01-15T09:00:00Z', ['True', 'BuildSucceeded']),
      workload('droplet-own-2', OWN_BUILDER, '2026-01-15T11:00:00Z', ['Unknown', 'BuildRunning']),
      workload('droplet-in-flight-1', IN_FLIGHT, '2026-01-15T09:00:00Z', ['False', 'BuildFailed']),
    ],
    images: [
      kpackImage(IN_FLIGHT, imageRef(IN_FLIGHT, 2), 'STACK'),
      kpackImage(UPDATED, imageRef(UPDATED, 2), 'STACK'),
      kpackImage(REVERTED, imageRef(REVERTED, 2), 'STACK'),
      kpackImage(BUILDPACK, imageRef(BUILDPACK, 2), 'BUILDPACK,STACK'),
      kpackImage(OWN_BUILDER, imageRef(OWN_BUILDER, 1), 'CONFIG', { kind: 'Builder', name: `app-${OWN_BUILDER}` }),
    ],
    builders: [
      builder(`app-${OWN_BUILDER}`, ['False', 'ReconcileFailed']),
      builder('app-behind', ['True', 'Ready'], 3, 2),
    ],
    clusterBuilders: [clusterBuilder()],
  };
}

/** Whitespace-free around tags (escaped text holds no raw `<` or `>`, so only markup is touched). */
function tight(page: string): string {
  return page.replace(/\s+/g, ' ').replace(/ ?([<>]) ?/g, '$1');
}

function render(spaces: readonly KorifiSnapshot[] = [space()]): string {
  return tight(korifiView(spaces, CONTEXT).text);
}

/** The (first) `<tr>` holding every one of `needles`. */
function rowWith(page: string, ...needles: readonly string[]): string {
  const row = page
    .split('<tr>')
    .map((part) => part.slice(0, part.indexOf('</tr>')))
    .find((part) => needles.every((needle) => part.includes(needle)));
  assert.ok(row !== undefined, `no row with ${needles.join(' and ')}`);
  return row;
}

describe('korifiView: apps', () => {
  const page = render();

  it('shows name, GUID, desired state and the droplet the app runs', () => {
    const row = rowWith(page, `>${IN_FLIGHT}<`);
    assert.match(row, new RegExp(`name-of-${IN_FLIGHT}<br /><span class="mono muted">${IN_FLIGHT}</span>`));
    assert.match(row, /<td>STARTED<\/td>/);
    assert.match(
      row,
      />droplet-in-flight-1<\/span><br \/><span class="digest" title="registry\.local\/droplets\/app-in-flight-droplets@sha256:0{63}1">registry\.local\/droplets\/app-in-flight-droplets@sha256:0{12}…<\/span>/,
    );
    assert.match(row, /stack io\.buildpacks\.stacks\.jammy/);
  });

  it('shows the latest BuildWorkload, its build reconciler and its conditions with reasons', () => {
    const own = rowWith(page, `>${OWN_BUILDER}<`);
    assert.match(
      own,
      />droplet-own-2<\/span><br \/><span class="muted">by<\/span><span class="mono">nudger-kpack<\/span>/,
    );
    assert.match(own, /badge-warn">Succeeded Unknown \(BuildRunning\)</);
    assert.match(own, /badge-ok">BuilderReady True \(BuilderReady\)</);
    assert.doesNotMatch(own, /droplet-own-1<\/span><br \/><span class="muted">by/);
    assert.match(rowWith(page, `>${IN_FLIGHT}<`), /badge-bad">Succeeded False \(BuildFailed\)</);
    assert.match(
      rowWith(page, `>${UNSTAGED}<`),
      /none \(not staged\)[\s\S]*<td><span class="muted">none<\/span><\/td>[\s\S]*no kpack Image/,
    );
  });

  it('finds a BuildWorkload without the app-guid label through its CFBuild', () => {
    const s = space();
    const unlabelled = workload('droplet-in-flight-1', IN_FLIGHT, '2026-01-15T09:00:00Z', ['True', 'BuildSucceeded']);
    const { labels: _labels, ...metadata } = unlabelled.metadata ?? {};
    const row = rowWith(render([{ ...s, buildWorkloads: [{ ...unlabelled, metadata }] }]), `>${IN_FLIGHT}<`);
    assert.match(
      row,
      />droplet-in-flight-1<\/span><br \/><span class="muted">by<\/span><span class="mono">nudger-kpack</,
    );
    assert.match(row, /Succeeded True \(BuildSucceeded\)/);
  });

  it("shows the builder the app's kpack Image names and its readiness", () => {
    assert.match(
      rowWith(page, `>${IN_FLIGHT}<`),
      /ClusterBuilder<span class="mono">cf-kpack-cluster-builder<\/span><br \/><span class="badge badge-ok">Ready True \(Ready\)</,
    );
    assert.match(
      rowWith(page, `>${OWN_BUILDER}<`),
      /Builder<span class="mono">app-app-own-builder<\/span><br \/><span class="badge badge-bad">Ready False \(ReconcileFailed\)</,
    );
  });

  it('says when the droplet an app names is gone', () => {
    assert.match(
      rowWith(page, `>${DANGLING}<`),
      /droplet-gone<\/span><br \/><span class="badge badge-bad">CFBuild not found/,
    );
  });

  it('tells each stack-update situation as the propagator decides it', () => {
    const inFlight = rowWith(page, `>${IN_FLIGHT}<`);
    const next = stackUpdateBuildName(SPACE, IN_FLIGHT, imageRef(IN_FLIGHT, 2));
    assert.match(
      inFlight,
      new RegExp(
        `in flight</span><br /><span class="mono">droplet-in-flight-1</span>→<span class="mono">${next}</span>`,
      ),
    );
    const updated = rowWith(page, `>${UPDATED}<`);
    assert.match(updated, /badge-ok">stack updated<\/span><span class="muted">to<\/span>io\.buildpacks\.stacks\.noble/);
    assert.match(updated, /from droplet<\/span><span class="mono">droplet-updated-1</);
    const reverted = rowWith(page, `>${REVERTED}<`);
    assert.match(reverted, new RegExp(`reverted by a user</span>[\\s\\S]*<span class="mono">${revertedTo}</span>`));
    assert.match(
      rowWith(page, `>${BUILDPACK}<`),
      /rebuild not rolled out<\/span><br \/><span class="muted">kpack reasons BUILDPACK,STACK: restage the app to use it/,
    );
    assert.match(rowWith(page, `>${OWN_BUILDER}<`), /<td><span class="muted">none<\/span><\/td>\s*$/);
  });
});

describe('korifiView: builders', () => {
  const page = render();

  it("lists the space's Builders with readiness, stack and latest image", () => {
    const own = rowWith(page, '<td class="mono">app-app-own-builder</td>');
    assert.match(
      own,
      /<td>Builder<\/td><td><span class="badge badge-bad">Ready False \(ReconcileFailed\)<\/span><\/td><td>io\.buildpacks\.stacks\.jammy<\/td>/,
    );
    assert.match(own, /registry\.local\/builders\/app-app-own-builder@sha256:0+7/);
    assert.match(rowWith(page, '<td class="mono">app-behind</td>'), /Ready: generation 3 not observed yet/);
  });

  it('lists each ClusterBuilder once, whatever number of spaces carry it', () => {
    const other: KorifiSnapshot = {
      ...space(),
      namespace: 'cf-space-2',
      apps: [],
      builds: [],
      buildWorkloads: [],
      images: [],
      builders: [],
    };
    const both = render([space(), other]);
    const section = both.slice(both.indexOf('<h2>ClusterBuilders</h2>'));
    assert.equal(section.split('<td class="mono">cf-kpack-cluster-builder</td>').length - 1, 1);
    assert.match(section, /<td>ClusterBuilder<\/td><td><span class="badge badge-ok">Ready True \(Ready\)/);
    assert.match(both, /No CFApps in this space\./);
    assert.match(both, /No kpack Builders in this space\./);
  });
});

describe('korifiView: bounds, order and what it never shows', () => {
  it('never renders Secret names, service accounts, env or condition messages', () => {
    const page = korifiView([space()], CONTEXT).text;
    for (const [what, name] of Object.entries(SECRETS)) assert.ok(!page.includes(name), `${what} (${name}) rendered`);
    assert.doesNotMatch(page, /imagePullSecrets|envSecretName|serviceAccount|VCAP_SERVICES/);
  });

  it('caps apps per space and spaces, saying how many were left out', () => {
    const many: KorifiSnapshot = {
      ...space(),
      apps: Array.from({ length: MAX_ROWS + 2 }, (_, i) => app(`bulk-${String(i).padStart(3, '0')}`)),
    };
    const page = render([many]);
    assert.match(page, /2 more apps not shown\./);
    assert.ok(page.includes('>bulk-199<') && !page.includes('>bulk-200<'));
    const spaces = Array.from({ length: MAX_SPACES + 1 }, (_, i): KorifiSnapshot => ({
      namespace: `space-${String(i).padStart(3, '0')}`,
      apps: [],
      builds: [],
      buildWorkloads: [],
      images: [],
      builders: [],
      clusterBuilders: [],
    }));
    const all = render(spaces);
    assert.match(all, /1 more space not shown\./);
    assert.ok(all.includes('>space-099<') && !all.includes('>space-100<'));
  });

  it('renders the same HTML whatever order the caches list objects in', () => {
    const s = space();
    const reversed: KorifiSnapshot = {
      ...s,
      apps: [...s.apps].reverse(),
      builds: [...s.builds].reverse(),
      buildWorkloads: [...s.buildWorkloads].reverse(),
      images: [...s.images].reverse(),
      builders: [...s.builders].reverse(),
    };
    assert.equal(render([s]), render([reversed]));
  });

  it('says so when there is no space', () => {
    assert.match(render([]), /No CF space with apps or builders\./);
  });

  it('escapes hostile names, images, stacks and reasons', () => {
    const guid = IMG;
    const s = space();
    const hostile: KorifiSnapshot = {
      ...s,
      namespace: SCRIPT,
      apps: [app(guid, { current: SCRIPT, displayName: SCRIPT })],
      builds: [cfBuild(SCRIPT, guid, `${IMG}@sha256:x`, { stack: `"a" & 'b' ${SCRIPT}` })],
      buildWorkloads: [workload(SCRIPT, guid, '2026-01-15T09:00:00Z', ['False', `${IMG} & "x"`])],
      images: [kpackImage(guid, `${SCRIPT}@sha256:y`, 'STACK', { kind: 'Builder', name: SCRIPT })],
      builders: [builder(SCRIPT, ['False', `<b>"bad" & 'worse'</b>`])],
    };
    const page = korifiView([hostile], CONTEXT).text;
    // Escaped values hold no raw `<` or `"`: every `<...>` is the view's markup, and with the
    // quoted values taken out only the attribute names the view wrote are left.
    for (const tag of page.match(/<[^>]*>/g) ?? []) {
      const names = tag.replace(/"[^"]*"/g, '""');
      assert.doesNotMatch(names, /^<\/?(script|img)\b/i, tag);
      assert.doesNotMatch(names, /\s(on[a-z]+|style)\s*=/i, tag);
    }
    assert.match(page, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.match(page, /&quot;&gt;&lt;img src=x onerror=alert\(1\)&gt;/);
    assert.match(page, /&quot;a&quot; &amp; &#39;b&#39;/);
    assert.match(page, /&lt;b&gt;&quot;bad&quot; &amp; &#39;worse&#39;&lt;\/b&gt;/);
  });
});
