import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { runCli, spawnCli, tempTree, builtCli } from './run-cli.ts';

const component = (name: string, nudges: string[] = [], ns = 'tenant'): string =>
  [
    'apiVersion: appstudio.redhat.com/v1alpha1',
    'kind: Component',
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${ns}`,
    'spec:',
    `  componentName: ${name}`,
    `  containerImage: quay.io/org/${name}`,
    ...(nudges.length > 0 ? ['  build-nudges-ref:', ...nudges.map((n) => `    - ${n}`)] : []),
    '',
  ].join('\n');

const nudgeConfig = (entries: [string, string][], ns = 'tenant', name = 'nudge-config'): string =>
  [
    'apiVersion: konflux-ci.dev/v1alpha1',
    'kind: NudgeConfig',
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${ns}`,
    'spec:',
    '  nudges:',
    ...entries.flatMap(([from, to]) => [`    - from: ${from}`, `      to: ${to}`]),
    '',
  ].join('\n');

/** A NudgeConfig whose entries may be validated: `[from, to, group]` is gated by ComponentGroup `group`. */
const modalNudgeConfig = (entries: (readonly [string, string, string?])[], ns = 'tenant'): string =>
  [
    'apiVersion: konflux-ci.dev/v1alpha1',
    'kind: NudgeConfig',
    'metadata:',
    '  name: nudge-config',
    `  namespace: ${ns}`,
    'spec:',
    '  nudges:',
    ...entries.flatMap(([from, to, group]) => [
      `    - from: ${from}`,
      `      to: ${to}`,
      ...(group === undefined ? [] : ['      mode: validated', `      gatingGroup: ${group}`]),
    ]),
    '',
  ].join('\n');

const trees: { cleanup: () => void }[] = [];
function tree(files: Record<string, string>): string {
  const t = tempTree(files);
  trees.push(t);
  return t.root;
}
after(() => {
  for (const t of trees) t.cleanup();
});

describe('nudger validate', () => {
  it('accepts a valid tree and exits 0', async () => {
    const root = tree({
      'a.yaml': component('op-a'),
      'b.yaml': component('bundle'),
      'nc.yaml': nudgeConfig([['op-a', 'bundle']]),
    });
    const result = await runCli(['validate', root]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^valid: 0 errors, 0 warnings; read 2 Components, 1 NudgeConfig \(1 entry\)/m);
  });

  it('reports a cycle with its path in JSON and exits 1', async () => {
    const root = tree({
      'cs.yaml': [component('a'), component('b'), component('c')].join('---\n'),
      'nc.yaml': nudgeConfig([
        ['a', 'b'],
        ['b', 'c'],
        ['c', 'a'],
      ]),
    });
    const result = await runCli(['validate', root, '--output', 'json']);
    assert.equal(result.code, 1);
    const json = JSON.parse(result.stdout) as {
      valid: boolean;
      findings: { rule: string; cycle?: string[]; file?: string; line?: number }[];
    };
    assert.equal(json.valid, false);
    const cycle = json.findings.find((f) => f.rule === 'cycle');
    assert.deepEqual(cycle?.cycle, ['a', 'b', 'c', 'a']);
    assert.ok(cycle.file?.endsWith('nc.yaml'));
    assert.equal(typeof cycle.line, 'number');
  });

  it('reads stdin when the path is -', async () => {
    const result = await runCli(['validate', '-', '--output', 'json'], [component('x', ['x'])].join(''));
    assert.equal(result.code, 1);
    const json = JSON.parse(result.stdout) as { findings: { rule: string; file?: string }[] };
    assert.deepEqual(
      json.findings.map((f) => f.rule),
      ['self-nudge'],
    );
    assert.equal(json.findings[0]?.file, '-');
  });

  it('treats warnings as valid (exit 0)', async () => {
    const root = tree({ 'nc.yaml': nudgeConfig([['a', 'b']]).replace('      to: b', '      to: b\n      form: x') });
    const result = await runCli(['validate', root, '--output', 'json']);
    assert.equal(result.code, 0, result.stdout);
    const json = JSON.parse(result.stdout) as { valid: boolean; findings: { rule: string; severity: string }[] };
    assert.equal(json.valid, true);
    assert.deepEqual(
      json.findings.map((f) => [f.rule, f.severity]),
      [['unknown-field', 'warning']],
    );
  });

  it('warns that an immediate NudgeConfig entry also in build-nudges-ref is nudged twice (D9), naming both', async () => {
    const root = tree({
      'a.yaml': component('op-a', ['bundle', 'docs']),
      'b.yaml': component('bundle'),
      'd.yaml': component('docs'),
      'nc.yaml': nudgeConfig([['op-a', 'bundle']]).replace(
        '      to: bundle',
        '      to: bundle\n    - from: op-a\n      to: docs\n      mode: validated\n      gatingGroup: g',
      ),
    });
    const result = await runCli(['validate', root, '--output', 'json']);
    assert.equal(result.code, 0, result.stdout);
    const json = JSON.parse(result.stdout) as {
      findings: { rule: string; severity: string; message: string; file: string; line: number }[];
    };
    const found = json.findings.map((f) => [f.rule, f.severity, f.file, f.line, f.message]);
    assert.deepEqual(found, [
      [
        'duplicate-edge',
        'warning',
        join(root, 'a.yaml'),
        10,
        `Component tenant/op-a spec.build-nudges-ref[0]: op-a -> bundle is also an immediate entry of NudgeConfig tenant/nudge-config spec.nudges[0] (${join(root, 'nc.yaml')}:8:7), which nudger fires, while build-service still nudges what build-nudges-ref declares: bundle would be nudged twice for each build of op-a; remove the build-nudges-ref item (the migration does)`,
      ],
      // A validated entry is not fired by the build: only the migration's note.
      [
        'duplicate-edge',
        'warning',
        join(root, 'a.yaml'),
        11,
        `Component tenant/op-a spec.build-nudges-ref[1]: op-a -> docs is also declared by NudgeConfig tenant/nudge-config spec.nudges[1] (${join(root, 'nc.yaml')}:10:7); the migration merges them into one edge, so remove the redundant declaration`,
      ],
    ]);
    const text = await runCli(['validate', root]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /a\.yaml:10:7: warning \[duplicate-edge\] .*op-a -> bundle is also an immediate entry/);
  });

  it('gives one line naming file and position for malformed YAML, exit 2', async () => {
    const root = tree({ 'bad.yaml': 'kind: Component\nmetadata:\n  name: [unclosed\n' });
    const result = await runCli(['validate', root]);
    assert.equal(result.code, 2);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, /bad\.yaml:\d+:\d+/);
    assert.doesNotMatch(result.stderr, /\bat .*\.ts:\d+/);
  });

  it('exits 2 for a missing file and for an unknown option', async () => {
    const missing = await runCli(['validate', '/nonexistent/nudger/x.yaml']);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /\/nonexistent\/nudger\/x\.yaml/);
    const usage = await runCli(['validate', '--output', 'xml']);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /xml/);
  });

  it('refuses a file over --max-file-size by name, exit 2', async () => {
    const root = tree({ 'big.yaml': component('a').repeat(200) });
    const result = await runCli(['validate', root, '--max-file-size', '1Ki']);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /big\.yaml/);
  });
});

describe('nudger plan', () => {
  it('prints the ADR 29 and ChangeGroup build counts for operands nudging a bundle', async () => {
    const operands = Array.from({ length: 30 }, (_, i) => `operand-${String(i + 1).padStart(2, '0')}`);
    const root = tree({
      'components.yaml': [...operands.map((o) => component(o)), component('bundle')].join('---\n'),
      'nc.yaml': nudgeConfig(operands.map((o) => [o, 'bundle'])),
    });
    const result = await runCli(['plan', root, '--changed', 'operand-*', '--output', 'json']);
    assert.equal(result.code, 0, result.stderr);
    const plan = JSON.parse(result.stdout) as {
      changed: string[];
      waves: string[][];
      builds: Record<string, Record<string, number>>;
      totals: Record<string, number>;
    };
    assert.equal(plan.changed.length, 30);
    assert.deepEqual(plan.waves[1], ['bundle']);
    assert.equal(plan.builds.adr29?.bundle, 30);
    assert.equal(plan.builds.changegroup?.bundle, 1);
    assert.deepEqual(plan.totals, { adr29: 60, changegroup: 31 });
    const text = await runCli(['plan', root, '--changed', 'operand-01,operand-02']);
    assert.match(text.stdout, /Total builds: 4 with one nudge per build \(ADR 29\), 3 with ChangeGroups \(1 saved\)/);
  });

  it('expands globs and removes !exclusions in --changed', async () => {
    const root = tree({
      'nc.yaml': nudgeConfig([
        ['op-a', 'bundle'],
        ['op-b', 'bundle'],
      ]),
    });
    const result = await runCli(['plan', root, '--changed', '*,!bundle', '--output', 'json']);
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual((JSON.parse(result.stdout) as { changed: string[] }).changed, ['op-a', 'op-b']);
    const none = await runCli(['plan', root, '--changed', 'op-*,!op-*']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /selects no component/);
  });

  it('refuses to plan a graph with a cycle (exit 1) and an unknown name (exit 2)', async () => {
    const root = tree({
      'nc.yaml': nudgeConfig([
        ['a', 'b'],
        ['b', 'a'],
      ]),
    });
    const cyclic = await runCli(['plan', root, '--changed', 'a']);
    assert.equal(cyclic.code, 1);
    assert.match(cyclic.stderr, /a -> b -> a/);
    const unknown = await runCli(['plan', tree({ 'nc.yaml': nudgeConfig([['a', 'b']]) }), '--changed', 'zzz']);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /"zzz"/);
  });

  describe('--policy (validated nudges, ADR 67, D10, N31)', () => {
    const operands = ['op-1', 'op-2', 'op-3', 'op-4', 'op-5'];
    const validatedBundle = (): string =>
      tree({
        'components.yaml': [...operands.map((o) => component(o)), component('bundle')].join('---\n'),
        'nc.yaml': modalNudgeConfig(operands.map((o) => [o, 'bundle', 'operands'] as const)),
      });

    it('shows validated beside adr29 and changegroup by default when an affected edge is validated', async () => {
      const root = validatedBundle();
      const json = await runCli(['plan', root, '--changed', 'op-*', '--output', 'json']);
      assert.equal(json.code, 0, json.stderr);
      const plan = JSON.parse(json.stdout) as {
        builds: Record<string, Record<string, number>>;
        totals: Record<string, number>;
        passes: Record<string, number[]>;
      };
      assert.deepEqual(Object.keys(plan.builds), ['adr29', 'changegroup', 'validated']);
      assert.equal(plan.builds.validated?.bundle, 1);
      assert.equal(plan.builds.adr29?.bundle, 5);
      assert.deepEqual(plan.totals, { adr29: 10, changegroup: 6, validated: 6 });
      assert.deepEqual(plan.passes, { operands: [0] });
      const text = await runCli(['plan', root, '--changed', 'op-*']);
      const lines = text.stdout.split('\n');
      assert.ok(lines.includes('wave  component  builds (ADR 29)  builds (ChangeGroup)  builds (validated)'));
      assert.ok(lines.includes('1     bundle                   5                     1                   1'));
      assert.match(
        text.stdout,
        /^Total builds: 10 with one nudge per build \(ADR 29\), 6 with ChangeGroups \(4 saved\), 6 with validated nudges \(4 saved\)$/m,
      );
      assert.match(text.stdout, /^Gating groups pass: operands once \(after wave 0\)$/m);
    });

    it('--policy validated shows that policy alone; a mixed target counts immediate nudges per build', async () => {
      const root = tree({
        'nc.yaml': modalNudgeConfig([
          ['a', 'x'],
          ['b', 'x'],
          ['c', 'x', 'g1'],
          ['d', 'x', 'g1'],
          ['x', 'index', 'g2'],
        ]),
      });
      const json = await runCli(['plan', root, '--changed', 'a,b,c,d', '--policy', 'validated', '--output', 'json']);
      assert.equal(json.code, 0, json.stderr);
      assert.deepEqual(JSON.parse(json.stdout), {
        namespace: 'tenant',
        changed: ['a', 'b', 'c', 'd'],
        waves: [['a', 'b', 'c', 'd'], ['x'], ['index']],
        builds: { validated: { a: 1, b: 1, c: 1, d: 1, index: 1, x: 3 } },
        totals: { validated: 8 },
        passes: { g1: [0], g2: [1] },
      });
      const text = await runCli(['plan', root, '--changed', 'a,b,c,d', '--policy', 'validated,adr29']);
      assert.equal(text.code, 0, text.stderr);
      assert.ok(text.stdout.split('\n').includes('wave  component  builds (ADR 29)  builds (validated)'));
      assert.match(
        text.stdout,
        /^Total builds: 12 with one nudge per build \(ADR 29\), 8 with validated nudges \(4 saved\)$/m,
      );
      assert.match(text.stdout, /^Gating groups pass: g1 once \(after wave 0\); g2 once \(after wave 1\)$/m);
    });

    it('keeps the output of a graph without validated edges as it was; --policy still selects', async () => {
      const root = tree({ 'nc.yaml': nudgeConfig([['a', 'b']]) });
      const json = await runCli(['plan', root, '--changed', 'a', '--output', 'json']);
      assert.deepEqual(Object.keys((JSON.parse(json.stdout) as { builds: object }).builds), ['adr29', 'changegroup']);
      assert.equal((JSON.parse(json.stdout) as { passes?: unknown }).passes, undefined);
      const asked = await runCli([
        'plan',
        root,
        '--changed',
        'a',
        '-p',
        'changegroup',
        '-p',
        'validated',
        '-o',
        'json',
      ]);
      assert.deepEqual(JSON.parse(asked.stdout), {
        namespace: 'tenant',
        changed: ['a'],
        waves: [['a'], ['b']],
        builds: { changegroup: { a: 1, b: 1 }, validated: { a: 1, b: 1 } },
        totals: { changegroup: 2, validated: 2 },
        passes: {},
      });
      const text = await runCli(['plan', root, '--changed', 'a', '--policy', 'validated']);
      assert.match(text.stdout, /^Total builds: 2 with validated nudges$/m);
      assert.match(text.stdout, /^No gating group passes: no validated entry fires\.$/m);
    });

    it('refuses an unknown --policy value with exit 2 before reading any file', async () => {
      const result = await runCli(['plan', '/nonexistent-nudger-input', '--changed', 'a', '--policy', 'adr29,adr67']);
      assert.equal(result.code, 2);
      assert.equal(result.stdout, '');
      assert.equal(
        result.stderr,
        'nudger: --policy: "adr67" is not a policy; use adr29, changegroup, validated (comma-separated or repeated)\n',
      );
      const empty = await runCli(['plan', '/nonexistent-nudger-input', '--changed', 'a', '--policy', ',']);
      assert.equal(empty.code, 2);
      assert.match(empty.stderr, /--policy: name at least one of adr29, changegroup, validated/);
    });
  });

  it('asks for --namespace when a name exists in two namespaces', async () => {
    const root = tree({ 'one.yaml': nudgeConfig([['a', 'b']], 'one'), 'two.yaml': nudgeConfig([['a', 'c']], 'two') });
    const ambiguous = await runCli(['plan', root, '--changed', 'a']);
    assert.equal(ambiguous.code, 2);
    assert.match(ambiguous.stderr, /--namespace/);
    const chosen = await runCli(['plan', root, '--changed', 'a', '--namespace', 'two', '--output', 'json']);
    assert.equal(chosen.code, 0, chosen.stderr);
    assert.deepEqual((JSON.parse(chosen.stdout) as { waves: string[][] }).waves, [['a'], ['c']]);
  });
});

describe('nudger graph', () => {
  const root = (): string =>
    tree({
      'nc.yaml': nudgeConfig([
        ['parent', 'child'],
        ['child', 'bundle'],
      ]).replace('      to: bundle', '      to: bundle\n      mode: validated\n      gatingGroup: g1'),
    });

  it('renders mermaid, dot and json', async () => {
    const dir = root();
    const mermaid = await runCli(['graph', dir]);
    assert.equal(mermaid.code, 0, mermaid.stderr);
    assert.match(mermaid.stdout, /^flowchart LR/);
    assert.match(mermaid.stdout, /-\. "validated: g1" \.->/);
    const dot = await runCli(['graph', dir, '--format', 'dot']);
    assert.match(dot.stdout, /"parent" -> "child";/);
    assert.match(dot.stdout, /"child" -> "bundle" \[style=dashed/);
    const json = JSON.parse((await runCli(['graph', dir, '--format', 'json'])).stdout) as {
      namespaces: { nodes: string[]; edges: { from: string; declaredBy: unknown[] }[] }[];
    };
    const [namespace] = json.namespaces;
    assert.ok(namespace);
    assert.deepEqual(namespace.nodes, ['bundle', 'child', 'parent']);
    assert.equal(namespace.edges.length, 2);
  });

  it('gives every node its role and every validated edge its gating group, in JSON, Mermaid and DOT', async () => {
    const dir = tree({
      'components.yaml': ['parent', 'child', 'bundle', 'sidecar', 'lonely'].map((c) => component(c)).join('---\n'),
      'nc.yaml': modalNudgeConfig([
        ['parent', 'child'],
        ['child', 'bundle', 'operands'],
        ['sidecar', 'bundle', 'operands'],
        ['parent', 'sidecar', 'base-images'],
      ]),
    });
    const json = await runCli(['graph', dir, '--format', 'json']);
    assert.equal(json.code, 0, json.stderr);
    const [ns] = (
      JSON.parse(json.stdout) as {
        namespaces: { nodes: string[]; roles: Record<string, unknown>; edges: Record<string, unknown>[] }[];
      }
    ).namespaces;
    assert.ok(ns);
    assert.deepEqual(ns.nodes, ['bundle', 'child', 'lonely', 'parent', 'sidecar']);
    assert.deepEqual(ns.roles, {
      bundle: { role: 'nudged', nudgesVia: [], nudgedVia: ['validated'] },
      child: { role: 'both', nudgesVia: ['validated'], nudgedVia: ['immediate'] },
      lonely: { role: 'none', nudgesVia: [], nudgedVia: [] },
      parent: { role: 'nudging', nudgesVia: ['immediate', 'validated'], nudgedVia: [] },
      sidecar: { role: 'both', nudgesVia: ['validated'], nudgedVia: ['validated'] },
    });
    assert.deepEqual(
      ns.edges.map(({ from, to, mode, gatingGroup }) => ({ from, to, mode, gatingGroup })),
      [
        { from: 'child', to: 'bundle', mode: 'validated', gatingGroup: 'operands' },
        { from: 'parent', to: 'child', mode: 'immediate', gatingGroup: undefined },
        { from: 'parent', to: 'sidecar', mode: 'validated', gatingGroup: 'base-images' },
        { from: 'sidecar', to: 'bundle', mode: 'validated', gatingGroup: 'operands' },
      ],
    );
    assert.equal('gatingGroup' in (ns.edges[1] ?? {}), false);

    const mermaid = (await runCli(['graph', dir])).stdout.split('\n');
    const id = (name: string): string =>
      mermaid
        .find((l) => l.endsWith(`["${name}"]`))
        ?.trim()
        .split('[')[0] ?? '?';
    assert.ok(mermaid.includes(`  ${id('child')} -. "validated: operands" .-> ${id('bundle')}`));
    assert.ok(mermaid.includes(`  ${id('sidecar')} -. "validated: operands" .-> ${id('bundle')}`));
    assert.ok(mermaid.includes(`  ${id('parent')} -. "validated: base-images" .-> ${id('sidecar')}`));
    assert.ok(mermaid.includes(`  ${id('parent')} --> ${id('child')}`));

    const dot = (await runCli(['graph', dir, '--format', 'dot'])).stdout.split('\n');
    assert.ok(dot.includes('    "child" -> "bundle" [style=dashed, label="validated: operands"];'));
    assert.ok(dot.includes('    "sidecar" -> "bundle" [style=dashed, label="validated: operands"];'));
    assert.ok(dot.includes('    "parent" -> "sidecar" [style=dashed, label="validated: base-images"];'));
    assert.ok(dot.includes('    "parent" -> "child";'));
  });

  it('writes gatingGroup: null for a validated entry that names no group (it never fires)', async () => {
    const dir = tree({
      'nc.yaml': nudgeConfig([['a', 'b']])
        .replace('konflux-ci.dev/v1alpha1', 'konflux-ci.dev/v1beta2')
        .replace('      to: b', '      to: b\n      mode: validated'),
    });
    const result = await runCli(['graph', dir, '--format', 'json']);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stderr, /missing-gating-group/);
    const [ns] = (JSON.parse(result.stdout) as { namespaces: { edges: Record<string, unknown>[] }[] }).namespaces;
    assert.deepEqual(ns?.edges[0]?.gatingGroup, null);
    assert.match(
      (await runCli(['graph', dir, '--format', 'dot'])).stdout,
      /"a" -> "b" \[style=dashed, label="validated: \?"\];/,
    );
  });

  it('draws cycle edges in red and exits 1', async () => {
    const dir = tree({
      'nc.yaml': nudgeConfig([
        ['a', 'b'],
        ['b', 'a'],
        ['b', 'c'],
      ]),
    });
    const dot = await runCli(['graph', dir, '--format', 'dot']);
    assert.equal(dot.code, 1);
    assert.match(dot.stdout, /"a" -> "b" \[color=red/);
    assert.match(dot.stdout, /"b" -> "c";/);
    assert.match(dot.stderr, /cycle/);
  });
});

describe('nudger migrate', () => {
  const legacy = (): string =>
    tree({
      'components/a.yaml': `# operand a\n${component('op-a', ['bundle'])}`,
      'components/b.yaml': component('bundle'),
    });

  it('prints a diff and changes nothing without --write', async () => {
    const dir = legacy();
    const before = readFileSync(join(dir, 'components/a.yaml'), 'utf8');
    const result = await runCli(['migrate', dir]);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^-\s+build-nudges-ref:/m);
    assert.match(result.stdout, /^\+kind: NudgeConfig/m);
    assert.equal(readFileSync(join(dir, 'components/a.yaml'), 'utf8'), before);
    assert.equal(existsSync(join(dir, 'components/nudge-config.yaml')), false);
  });

  it('writes, keeps comments, and a second run changes nothing; the graph is unchanged', async () => {
    const dir = legacy();
    const graphBefore = JSON.parse((await runCli(['graph', dir, '--format', 'json'])).stdout) as {
      namespaces: { edges: { from: string; to: string }[] }[];
    };
    const first = await runCli(['migrate', dir, '--write', '--output', 'json']);
    assert.equal(first.code, 0, first.stderr);
    const summary = JSON.parse(first.stdout) as { edges: number; componentsUpdated: string[] };
    assert.equal(summary.edges, 1);
    assert.deepEqual(summary.componentsUpdated, ['tenant/op-a']);
    const a = readFileSync(join(dir, 'components/a.yaml'), 'utf8');
    assert.match(a, /^# operand a/);
    assert.doesNotMatch(a, /build-nudges-ref/);
    const second = await runCli(['migrate', dir, '--output', 'json']);
    assert.deepEqual((JSON.parse(second.stdout) as { componentsUpdated: string[] }).componentsUpdated, []);
    const graphAfter = JSON.parse((await runCli(['graph', dir, '--format', 'json'])).stdout) as typeof graphBefore;
    const edges = (g: typeof graphBefore) => g.namespaces.flatMap((n) => n.edges.map((e) => `${e.from}->${e.to}`));
    assert.deepEqual(edges(graphAfter), edges(graphBefore));
    assert.equal((await runCli(['validate', dir])).code, 0);
    assert.deepEqual(
      readdirSync(join(dir, 'components')).filter((f) => f.includes('.tmp')),
      [],
    );
  });

  it('refuses stdin', async () => {
    const result = await runCli(['migrate', '-']);
    assert.equal(result.code, 2);
  });
});

describe('the built binary', () => {
  it('exists after the build', () => {
    assert.ok(existsSync(builtCli), 'run npm run build first');
  });

  it('validates from stdin and maps exit codes like the in-process CLI', () => {
    const ok = spawnCli(['validate', '-'], { stdin: component('a') });
    assert.equal(ok.code, 0, ok.stderr);
    // Malformed and naming a kind nudger reads: an error (other malformed files are skipped with a warning).
    const bad = spawnCli(['validate', '-'], { stdin: 'kind: [Component' });
    assert.equal(bad.code, 2);
    assert.equal(bad.stderr.trim().split('\n').length, 1);
    const help = spawnCli(['--help']);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /validate/);
  });
});
