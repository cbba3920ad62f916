// ADR 67's cluster migration against a real kube-apiserver: dry run, apply, merge, idempotency.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { isNotFound } from '../../src/adapters/kubernetes/errors.ts';
import { COMPONENTS, NAMESPACES, NUDGE_CONFIGS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import type { ClusterNudgeConfig } from '../../src/schema/nudgeconfig.ts';
import { runCli } from '../cli/run-cli.ts';
import { NUDGER_CRDS, UPSTREAM_CRDS, startControlPlane, type ControlPlane } from './harness/control-plane.ts';

let plane: ControlPlane;
let client: KubeClient;

const component = (namespace: string, name: string, nudges: string[] = []): KubeObject =>
  ({
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { name, namespace },
    spec: {
      componentName: name,
      application: 'app',
      source: { git: { url: `https://example.com/${name}` } },
      ...(nudges.length > 0 ? { 'build-nudges-ref': nudges } : {}),
    },
  }) as KubeObject;

const migrate = (...args: string[]) =>
  runCli(['migrate', '--cluster', '--kubeconfig', plane.kubeconfigPath, '--output', 'json', ...args]);

async function entriesOf(namespace: string): Promise<unknown[] | undefined> {
  try {
    const config = await client.get<ClusterNudgeConfig>(NUDGE_CONFIGS, namespace, 'nudge-config');
    return config.spec?.nudges;
  } catch (error) {
    if (isNotFound(error)) return undefined;
    throw error;
  }
}

before(async () => {
  plane = await startControlPlane({ crds: [UPSTREAM_CRDS.components, ...NUDGER_CRDS] });
  client = new KubeClient(plane.kubeConfig);
  for (const ns of ['ops', 'shop', 'loop'])
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  for (const c of [
    component('ops', 'op-a', ['bundle']),
    component('ops', 'op-b', ['bundle']),
    component('ops', 'bundle'),
    component('shop', 'base', ['api', 'worker']),
    component('shop', 'api'),
    component('shop', 'worker'),
    component('loop', 'x', ['y']),
    component('loop', 'y', ['x']),
  ]) {
    await client.create(COMPONENTS, c);
  }
  // shop already has a NudgeConfig with an edge switched to validated: the migration must keep it.
  await client.create(NUDGE_CONFIGS, {
    apiVersion: 'konflux-ci.dev/v1alpha1',
    kind: 'NudgeConfig',
    metadata: { name: 'nudge-config', namespace: 'shop' },
    spec: { nudges: [{ from: 'base', to: 'api', mode: 'validated', gatingGroup: 'shop-group' }] },
  } as KubeObject);
});

after(async () => {
  client.close();
  await plane.close();
});

describe('nudger migrate --cluster', () => {
  it('reports what it would do without writing anything, and refuses a graph with a cycle', async () => {
    const result = await migrate();
    assert.equal(result.code, 1, result.stderr); // the `loop` namespace has a cycle
    const report = JSON.parse(result.stdout) as {
      applied: boolean;
      namespaces: { namespace: string; action: string; added: unknown[]; problems: string[] }[];
    };
    assert.equal(report.applied, false);
    assert.deepEqual(
      report.namespaces.map((n) => [n.namespace, n.action, n.added.length]),
      [
        ['loop', 'invalid', 2],
        ['ops', 'create', 2],
        ['shop', 'merge', 1],
      ],
    );
    assert.match(report.namespaces[0]?.problems.join('\n') ?? '', /cycle: x -> y -> x/);
    assert.equal(await entriesOf('ops'), undefined);
  });

  it('applies: creates and merges nudge-config, keeping existing entries, and a second run changes nothing', async () => {
    const applied = await migrate('--apply');
    assert.equal(applied.code, 1, applied.stderr);
    assert.deepEqual(await entriesOf('ops'), [
      { from: 'op-a', to: 'bundle', mode: 'immediate' },
      { from: 'op-b', to: 'bundle', mode: 'immediate' },
    ]);
    assert.deepEqual(await entriesOf('shop'), [
      { from: 'base', to: 'api', mode: 'validated', gatingGroup: 'shop-group' },
      { from: 'base', to: 'worker', mode: 'immediate' },
    ]);
    assert.equal(await entriesOf('loop'), undefined);

    const again = await migrate('--apply', '--namespace', 'ops');
    assert.equal(again.code, 0, again.stderr);
    const report = JSON.parse(again.stdout) as { edges: number; namespaces: { action: string }[] };
    assert.equal(report.edges, 0);
    assert.deepEqual(
      report.namespaces.map((n) => n.action),
      ['unchanged'],
    );
  });

  it('rejects --cluster with paths or --write as a usage error', async () => {
    assert.equal((await runCli(['migrate', '--cluster', 'some/dir'])).code, 2);
    assert.equal((await runCli(['migrate', '--apply', 'some/dir'])).code, 2);
  });
});

describe('nudger migrate --cluster text output', () => {
  it('prints hostile build-nudges-ref entries escaped, one problem per line', async () => {
    await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'hostile' } });
    // The CRD lets build-nudges-ref hold any string: an SGR colour, an OSC 8 link, a carriage
    // return, and a newline followed by a GitHub Actions annotation.
    const colour = { raw: 'red\u001b[31mx', quoted: String.raw`"red\u001b[31mx"` };
    const link = {
      raw: '\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007',
      quoted: String.raw`"\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007"`,
    };
    const carriageReturn = { raw: 'ok\rfake', quoted: String.raw`"ok\rfake"` };
    const annotation = { raw: 'b\n::error file=x::forged', quoted: String.raw`"b\n::error file=x::forged"` };
    const hostile = [colour, link, carriageReturn, annotation];
    await client.create(COMPONENTS, component('hostile', 'a', [...hostile.map((h) => h.raw), 'a', 'b']));
    await client.create(COMPONENTS, component('hostile', 'b'));
    const result = await runCli([
      'migrate',
      '--cluster',
      '--kubeconfig',
      plane.kubeconfigPath,
      '--namespace',
      'hostile',
    ]);
    assert.equal(result.code, 1, result.stderr);
    const rule =
      "must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
    // The planned NudgeConfig's entries, sorted by target; entry 1 is b.
    const entries = [
      { index: 0, h: link },
      { index: 2, h: annotation },
      { index: 3, h: carriageReturn },
      { index: 4, h: colour },
    ].map(({ index, h }) => ({
      at: `NudgeConfig hostile/nudge-config spec.nudges[${String(index)}].to`,
      quoted: h.quoted,
    }));
    assert.deepEqual(result.stdout.split('\n'), [
      'hostile: NOT migrated, the resulting nudge-config would be refused:',
      '  Component hostile/a lists itself in build-nudges-ref; that entry is left out',
      ...hostile.map(
        (h, i) =>
          `  [invalid-name] Component hostile/a spec.build-nudges-ref[${String(i)}]: ${h.quoted} is not a valid component name: ${rule}`,
      ),
      ...entries.flatMap(({ at, quoted }) => [
        `  [invalid-name] ${at} ${quoted}: ${rule}`,
        `  [invalid-name] ${at}: ${quoted} is not a valid component name: ${rule}`,
      ]),
      '  [self-nudge] Component hostile/a spec.build-nudges-ref[4]: the component lists itself; a component cannot nudge itself',
      '',
    ]);
  });
});
