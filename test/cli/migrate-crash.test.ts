// `migrate --write` killed with SIGKILL at any point of its write (after any file staged or any
// rename) must lose no edge, leave nothing a rerun cannot finish, and leave no temporary file
// after that rerun. The real CLI runs as a child process; the write adapter's test hook
// (NUDGER_TEST_CRASH_AFTER_STEPS, src/adapters/fs/write-files.ts) kills it at step k.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { readManifestFiles } from '../../src/adapters/fs/read-inputs.ts';
import { buildNudgeGraphs } from '../../src/domain/graph.ts';
import { commitOrder, planMigration } from '../../src/domain/migrate.ts';
import { parseManifestSet } from '../../src/manifest/parse.ts';
import { componentText, mixedTenantFiles, nudgeConfigText } from '../support/manifest-text.ts';
import { repoRoot, runCli, tempTree } from './run-cli.ts';

const CLI = join(repoRoot, 'src', 'cli', 'main.ts');
const scratch = mkdtempSync(join(tmpdir(), 'nudger-crash-'));
after(() => {
  rmSync(scratch, { recursive: true, force: true });
});

let copies = 0;
function copyOf(root: string): string {
  const dir = join(scratch, `run-${String((copies += 1))}`);
  cpSync(root, dir, { recursive: true });
  return dir;
}

/** `migrate --write` as a child process killed by the write adapter's hook after `k` steps. */
function migrateKilled(dir: string, k: number): { signal: string | null; stderr: string } {
  const env = { ...process.env, NUDGER_TEST_CRASH_AFTER_STEPS: String(k) };
  const result = spawnSync(process.execPath, [CLI, 'migrate', dir, '--write'], { encoding: 'utf8', env });
  return { signal: result.signal, stderr: result.stderr };
}

/** An uninterrupted `migrate --write`, in process (the hook is off: this process never sets it). */
async function migrate(dir: string): Promise<{ code: number; stderr: string }> {
  assert.equal(process.env.NUDGER_TEST_CRASH_AFTER_STEPS, undefined);
  return runCli(['migrate', dir, '--write']);
}

/** Every file under `dir` (hidden ones included) by relative path. */
function snapshot(dir: string): Map<string, string> {
  const files = new Map<string, string>();
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.set(relative(dir, path), readFileSync(path, 'utf8'));
    }
  };
  walk(dir);
  return files;
}

const tempFiles = (dir: string): string[] => [...snapshot(dir).keys()].filter((path) => /\.nudger-.*\.tmp$/.test(path));

/** Every edge the tree declares anywhere: NudgeConfig entries (any version) and build-nudges-ref. */
async function edgesOf(dir: string): Promise<Set<string>> {
  const set = parseManifestSet(await readManifestFiles([dir]));
  const edges = new Set<string>();
  for (const graph of buildNudgeGraphs(set).values()) {
    for (const edge of graph.edges) edges.add(`${edge.namespace}/${edge.from}->${edge.to}`);
  }
  return edges;
}

/** How many steps (files staged + files renamed) an uninterrupted `--write` of `dir` takes. */
async function stepsOf(dir: string): Promise<number> {
  return commitOrder(planMigration(await readManifestFiles([dir])).changes).length * 2;
}

/**
 * Kills a copy of `root` after `k` steps, then checks: no edge lost, a rerun finishes with the
 * same tree as `expected` (an uninterrupted run), and no temporary file is left.
 */
async function crashAndRecover(root: string, k: number, expected: ReadonlyMap<string, string>): Promise<void> {
  const original = await edgesOf(root);
  const dir = copyOf(root);
  const killed = migrateKilled(dir, k);
  assert.equal(killed.signal, 'SIGKILL', `step ${String(k)}: the hook must kill the run (${killed.stderr})`);
  const survived = await edgesOf(dir);
  for (const edge of original) assert.ok(survived.has(edge), `step ${String(k)}: ${edge} lost by the crash`);
  const rerun = await migrate(dir);
  assert.equal(rerun.code, 0, `step ${String(k)}: rerun failed: ${rerun.stderr}`);
  assert.deepEqual(tempFiles(dir), [], `step ${String(k)}: temporary files left after the rerun`);
  assert.deepEqual(snapshot(dir), expected, `step ${String(k)}: the rerun ends where an uninterrupted run does`);
}

const component = (namespace: string, name: string, nudges: readonly string[]): string =>
  componentText({ namespace, name, nudges, containerImage: `quay.io/acme/${name}` });

/** Two tenants: build-nudges-ref across several files with a kustomization, and a v1beta2 import. */
const TENANTS = {
  'tenants/payments/kustomization.yaml':
    'apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n  - api.yaml\n  - worker.yaml\n  - operator.yaml\n  - bundle.yaml\n',
  'tenants/payments/api.yaml': component('payments', 'payments-api', ['payments-bundle', 'payments-operator']),
  'tenants/payments/worker.yaml': component('payments', 'payments-worker', ['payments-bundle']),
  'tenants/payments/operator.yaml': component('payments', 'payments-operator', ['payments-bundle']),
  'tenants/payments/bundle.yaml': component('payments', 'payments-bundle', []),
  'tenants/search/components.yaml': [
    component('search', 'indexer', ['search-bundle']),
    component('search', 'search-ui', []),
    component('search', 'search-bundle', []),
  ].join('---\n'),
  'tenants/search/nudges.yaml': [
    '# integration-service NudgeConfig, before nudger',
    'apiVersion: appstudio.redhat.com/v1beta2',
    'kind: NudgeConfig',
    'metadata:',
    '  name: nudge-config',
    '  namespace: search',
    'spec:',
    '  nudges:',
    '    - from: search-ui',
    '      to: search-bundle',
    '',
  ].join('\n'),
};

describe('migrate --write killed at every step', () => {
  it('loses no edge, and a rerun completes the migration and removes the temporary files', async () => {
    const { root, cleanup } = tempTree(TENANTS);
    try {
      const steps = await stepsOf(root);
      assert.ok(steps >= 10, `the fixture writes several files (${String(steps)} steps)`);
      const reference = copyOf(root);
      assert.equal((await migrate(reference)).code, 0);
      const expected = snapshot(reference);
      // A crash while staging leaves temporary files: the check below must be able to fail.
      const staged = copyOf(root);
      migrateKilled(staged, 1);
      assert.ok(tempFiles(staged).length > 0, 'a run killed while staging leaves temporary files');
      for (let k = 1; k <= steps; k += 1) await crashAndRecover(root, k, expected);
    } finally {
      cleanup();
    }
  });

  it('holds for files that each gain one tenant’s edges and lose another’s, at every step', async () => {
    const { root, cleanup } = tempTree(mixedTenantFiles('mixed/'));
    try {
      const steps = await stepsOf(root);
      assert.equal(steps, 8, 'two files, each staged and renamed twice');
      const reference = copyOf(root);
      assert.equal((await migrate(reference)).code, 0);
      const expected = snapshot(reference);
      for (let k = 1; k <= steps; k += 1) await crashAndRecover(root, k, expected);
    } finally {
      cleanup();
    }
  });

  it('holds for generated acyclic trees, mixed files included, killed at a random step (property)', async () => {
    // One or two namespaces, each with Components <ns>-0..<ns>-(n-1), edges only from lower to
    // higher index (a DAG), some already in the namespace's NudgeConfig (upstream v1beta2, either
    // group, or nudger's own; or none). Every document goes to one of four files, so a file may
    // hold several namespaces' Components and NudgeConfigs: files that gain and lose edges.
    const namespaceTree = fc.integer({ min: 2, max: 5 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        edges: fc.uniqueArray(
          fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 0, max: n - 1 })).filter(([a, b]) => a < b),
          { minLength: 1, maxLength: 6, selector: ([a, b]) => `${String(a)}-${String(b)}` },
        ),
        inConfig: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
        config: fc.constantFrom(
          undefined,
          'appstudio.redhat.com/v1beta2',
          'konflux-ci.dev/v1beta2',
          'konflux-ci.dev/v1alpha1',
        ),
      }),
    );
    const tree = fc.record({
      namespaces: fc.array(namespaceTree, { minLength: 1, maxLength: 2 }),
      fileOf: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 12, maxLength: 12 }),
      k: fc.integer({ min: 1, max: 1000 }),
    });
    await fc.assert(
      fc.asyncProperty(tree, async ({ namespaces, fileOf, k }) => {
        const docs: string[] = [];
        namespaces.forEach(({ n, edges, inConfig, config }, index) => {
          const ns = index === 0 ? 'alpha' : 'beta';
          const name = (i: number): string => `${ns}-${String(i)}`;
          const configured = config === undefined ? [] : edges.filter((_, i) => inConfig[i] === true);
          const refs = edges.filter((edge) => !configured.includes(edge));
          for (let i = 0; i < n; i += 1) {
            docs.push(
              component(
                ns,
                name(i),
                refs.filter(([a]) => a === i).map(([, b]) => name(b)),
              ),
            );
          }
          if (config !== undefined) {
            const entries = configured.map(([a, b]): [string, string] => [name(a), name(b)]);
            docs.push(nudgeConfigText({ namespace: ns, apiVersion: config, entries }));
          }
        });
        const files: Record<string, string[]> = {};
        docs.forEach((doc, i) => {
          const path = `gen/f${String(fileOf[i] ?? 0)}.yaml`;
          (files[path] ??= []).push(doc);
        });
        const { root, cleanup } = tempTree({
          ...Object.fromEntries(Object.entries(files).map(([path, texts]) => [path, texts.join('---\n')])),
          'gen/kustomization.yaml': `resources:\n${Object.keys(files)
            .sort()
            .map((path) => `  - ${path.slice('gen/'.length)}\n`)
            .join('')}`,
        });
        try {
          const steps = await stepsOf(root);
          // Every edge may already be in nudger's own NudgeConfig: nothing to write, nothing to kill.
          fc.pre(steps > 0);
          const reference = copyOf(root);
          assert.equal((await migrate(reference)).code, 0);
          await crashAndRecover(root, 1 + ((k - 1) % steps), snapshot(reference));
        } finally {
          cleanup();
        }
      }),
      { numRuns: 12 },
    );
  });
});
