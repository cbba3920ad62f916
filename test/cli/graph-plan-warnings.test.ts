// graph and plan print warnings, not only errors (issue 8 hardening, defect E): a Helm template
// skipped as unreadable, a NudgeConfig of a version nudger does not read and build-nudges-ref set by
// a kustomize patch are input the graph and the plan leave out. Before the fix only `validate`
// said so; graph and plan dropped these warnings in silence. They go to stderr, escaped as
// validate escapes them, and stdout stays the graph or plan alone, in every format.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { componentText, nudgeConfigText } from '../support/manifest-text.ts';
import { runCli, tempTree } from './run-cli.ts';

const trees: { cleanup: () => void }[] = [];
after(() => {
  for (const t of trees) t.cleanup();
});

/** The shop tenant, placed by its kustomization, and everything the graph cannot read beside it. */
function shop(): string {
  const t = tempTree({
    'shop/kustomization.yaml':
      'namespace: shop-tenant\nresources: [api.yaml, worker.yaml, bundle.yaml, nudges.yaml]\n' +
      'patches:\n  - path: patch.yaml\n    target:\n      kind: Component\n      name: worker\n',
    'shop/api.yaml': componentText({ namespace: '', name: 'api', nudges: ['bundle'] }),
    'shop/worker.yaml': componentText({ namespace: '', name: 'worker' }),
    'shop/bundle.yaml': componentText({ namespace: '', name: 'bundle' }),
    'shop/patch.yaml': '- op: add\n  path: /spec/build-nudges-ref\n  value:\n    - bundle\n',
    // Written by a newer integration-service; the name carries a terminal escape.
    'shop/nudges.yaml': nudgeConfigText({
      namespace: 'shop-tenant',
      name: '"nudge\\e[2Jconfig"',
      apiVersion: 'konflux-ci.dev/v1',
      entries: [['worker', 'bundle']],
    }),
    'chart/templates/deployment.yaml': readFileSync(
      new URL('../fixtures/hardening/helm-deployment.yaml', import.meta.url),
      'utf8',
    ),
    // Another tenant's: not shown by --namespace shop-tenant.
    'other/nudges.yaml': nudgeConfigText({
      namespace: 'other-tenant',
      apiVersion: 'konflux-ci.dev/v1',
      entries: [['a', 'b']],
    }),
    'other/a.yaml': componentText({ namespace: 'other-tenant', name: 'a' }),
  });
  trees.push(t);
  return t.root;
}

function warnings(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => /warning \[([\w-]+)\]/.exec(line)?.[1] ?? `not a warning: ${line}`);
}

function assertShopWarnings(stderr: string, root: string): void {
  assert.deepEqual(warnings(stderr).sort(), ['patched-nudges-ref', 'unknown-api-version', 'unreadable-file'], stderr);
  assert.equal(stderr.includes('\u001b'), false, 'no raw escape reaches the terminal');
  assert.ok(
    stderr.includes(
      `${join(root, 'shop/nudges.yaml')}:1:1: warning [unknown-api-version] NudgeConfig shop-tenant/nudge\\x1b[2Jconfig apiVersion "konflux-ci.dev/v1"`,
    ),
    stderr,
  );
  assert.match(stderr, /chart\/templates\/deployment\.yaml:5:\d+: warning \[unreadable-file\]/);
  assert.match(stderr, /shop\/kustomization\.yaml:\d+:\d+: warning \[patched-nudges-ref\]/);
}

describe('nudger graph prints warnings on stderr', () => {
  it('in every format, stdout staying the graph alone (exit 0: warnings only)', async () => {
    const root = shop();
    for (const format of ['mermaid', 'dot', 'json']) {
      const result = await runCli(['graph', root, '--namespace', 'shop-tenant', '--format', format]);
      assert.equal(result.code, 0, result.stderr);
      assertShopWarnings(result.stderr, root);
      assert.doesNotMatch(result.stdout, /warning|unknown-api-version/);
    }
    const json = await runCli(['graph', root, '--namespace', 'shop-tenant', '--format', 'json']);
    assert.deepEqual(Object.keys(JSON.parse(json.stdout) as object), ['namespaces']);
  });

  it('of every namespace shown (without --namespace, the other tenant’s too)', async () => {
    const result = await runCli(['graph', shop()]);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(warnings(result.stderr).filter((rule) => rule === 'unknown-api-version').length, 2);
  });
});

describe('nudger plan prints warnings on stderr', () => {
  it('in text and JSON, stdout staying the plan alone', async () => {
    const root = shop();
    const text = await runCli(['plan', root, '--changed', 'api']);
    assert.equal(text.code, 0, text.stderr);
    assertShopWarnings(text.stderr, root);
    assert.doesNotMatch(text.stdout, /warning/);
    const json = await runCli(['plan', root, '--changed', 'api', '--output', 'json']);
    assert.equal(json.code, 0, json.stderr);
    assertShopWarnings(json.stderr, root);
    assert.deepEqual(Object.keys(JSON.parse(json.stdout) as object).sort(), [
      'builds',
      'changed',
      'namespace',
      'totals',
      'waves',
    ]);
  });

  it('beside the errors when it refuses to plan', async () => {
    const cyclic = tempTree({
      'k/kustomization.yaml': 'resources: [a.yaml, b.yaml]\n',
      'k/a.yaml': componentText({ namespace: 't', name: 'a', nudges: ['b'] }),
      'k/b.yaml': componentText({ namespace: 't', name: 'b', nudges: ['a'] }),
      'k/future.yaml': nudgeConfigText({ namespace: 't', apiVersion: 'konflux-ci.dev/v1', entries: [] }),
    });
    trees.push(cyclic);
    const refused = await runCli(['plan', cyclic.root, '--changed', 'a']);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /error \[cycle\]/);
    assert.match(refused.stderr, /warning \[unknown-api-version\]/);
    assert.match(refused.stderr, /cannot plan: the nudge graph has 1 error\(s\)/);
  });
});
