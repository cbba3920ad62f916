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
import { planMigration } from '../../src/domain/migrate.ts';
import { parseManifestSet } from '../../src/manifest/parse.ts';
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
  return planMigration(await readManifestFiles([dir])).changes.length * 2;
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
  [
    'apiVersion: appstudio.redhat.com/v1alpha1',
    'kind: Component',
    'metadata:',
    `  name: ${name}`,
    `  namespace: ${namespace}`,
    'spec:',
    `  componentName: ${name}`,
    `  containerImage: quay.io/acme/${name}`,
    ...(nudges.length === 0 ? [] : ['  build-nudges-ref:', ...nudges.map((to) => `    - ${to}`)]),
    '',
  ].join('\n');

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

  it('holds for generated acyclic trees killed at a random step (property)', async () => {
    // Components c0..c(n-1) of one namespace, edges only from lower to higher index (a DAG), spread
    // over files of up to three Components each, some edges already in a v1beta2 NudgeConfig.
    const tree = fc.integer({ min: 3, max: 7 }).chain((n) =>
      fc.record({
        n: fc.constant(n),
        edges: fc.uniqueArray(
          fc.tuple(fc.integer({ min: 0, max: n - 1 }), fc.integer({ min: 0, max: n - 1 })).filter(([a, b]) => a < b),
          { minLength: 1, maxLength: 10, selector: ([a, b]) => `${String(a)}-${String(b)}` },
        ),
        upstream: fc.array(fc.boolean(), { minLength: 10, maxLength: 10 }),
        perFile: fc.integer({ min: 1, max: 3 }),
        k: fc.integer({ min: 1, max: 1000 }),
      }),
    );
    await fc.assert(
      fc.asyncProperty(tree, async ({ n, edges, upstream, perFile, k }) => {
        const name = (i: number) => `svc-${String(i)}`;
        const imported = edges.filter((_, i) => upstream[i] === true);
        const refs = edges.filter((_, i) => upstream[i] !== true);
        const files: Record<string, string> = {};
        for (let first = 0; first < n; first += perFile) {
          const docs = [];
          for (let i = first; i < Math.min(n, first + perFile); i += 1) {
            docs.push(
              component(
                'gen',
                name(i),
                refs.filter(([a]) => a === i).map(([, b]) => name(b)),
              ),
            );
          }
          files[`gen/components-${String(first)}.yaml`] = docs.join('---\n');
        }
        if (imported.length > 0) {
          files['gen/nudges.yaml'] = [
            'apiVersion: appstudio.redhat.com/v1beta2',
            'kind: NudgeConfig',
            'metadata:\n  name: nudge-config\n  namespace: gen',
            'spec:\n  nudges:',
            ...imported.map(([a, b]) => `    - from: ${name(a)}\n      to: ${name(b)}`),
            '',
          ].join('\n');
        }
        files['gen/kustomization.yaml'] = `resources:\n${Object.keys(files)
          .map((path) => `  - ${path.slice('gen/'.length)}\n`)
          .join('')}`;
        const { root, cleanup } = tempTree(files);
        try {
          const reference = copyOf(root);
          assert.equal((await migrate(reference)).code, 0);
          await crashAndRecover(root, 1 + ((k - 1) % (await stepsOf(root))), snapshot(reference));
        } finally {
          cleanup();
        }
      }),
      { numRuns: 10 },
    );
  });
});
