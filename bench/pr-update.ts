// One ChangeGroup PR update on a 5,000-file repository (issue 4 target: <= 1 s): incremental
// shallow fetch of a base that moved since the last update, read every `.yaml` of the base, rewrite
// 30 digest references, build the single commit on the base, force-push it with a lease. The remote
// is a local bare repository (the local forge), so the figure is git and nudger's own work without
// network latency.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LocalForge } from '../src/adapters/forges/local/local-forge.ts';
import { GitWorkspaces } from '../src/adapters/git/workspace.ts';
import { ms, summarizeMs, verdict } from './stats.ts';

const FILES = 5000;
const REFERENCES = 30;
const RUNS = 10;
const BRANCH = 'konflux/change-groups/bench';
const BOT = { name: 'nudger[bot]', email: 'nudger@example.com' };

function digest(seed: number): string {
  return `sha256:${seed.toString(16).padStart(8, '0').repeat(8)}`;
}

function repositoryFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  for (let i = 0; i < FILES; i += 1) {
    const operand = i < REFERENCES ? `quay.io/org/operand-${String(i)}@${digest(0)}` : 'registry.example.com/other:1.0';
    files[`manifests/dir-${String(i % 50)}/file-${String(i)}.yaml`] =
      `kind: ConfigMap\nname: file-${String(i)}\nimage: ${operand}\n`;
  }
  return files;
}

export async function benchPrUpdate(): Promise<string> {
  const root = mkdtempSync(join(tmpdir(), 'nudger-bench-pr-'));
  try {
    const forge = new LocalForge({ root: join(root, 'forge') });
    const repo = await forge.createRepository('acme', 'bundle', repositoryFiles());
    const url = forge.cloneUrl(repo);
    const workspaces = new GitWorkspaces({ cacheDir: join(root, 'cache') });
    const firstStart = performance.now();
    const first = await workspaces.prepareBase(url, 'main');
    const firstFetch = performance.now() - firstStart;
    let pushed = await first.commitOnBase({ files: [], message: 'start [skip ci]', author: BOT });
    await first.pushWithLease(BRANCH, undefined);

    const total: number[] = [];
    const phases = { fetch: [] as number[], read: [] as number[], commit: [] as number[], push: [] as number[] };
    const operandPattern = /(quay\.io\/org\/operand-\d+)@sha256:[0-9a-f]{64}/g;
    for (let run = 1; run <= RUNS; run += 1) {
      // Someone merged something on the base since the last update: the fetch has new objects.
      moveBase(new URL(url).pathname, run);
      const t0 = performance.now();
      const base = await workspaces.prepareBase(url, 'main');
      const t1 = performance.now();
      const texts = await base.readFiles((path) => path.endsWith('.yaml'));
      const changed = texts
        .filter((file) => file.text.includes('quay.io/org/operand-'))
        .map((file) => ({ path: file.path, text: file.text.replace(operandPattern, `$1@${digest(run)}`) }));
      const t2 = performance.now();
      if (changed.length !== REFERENCES)
        throw new Error(`expected ${String(REFERENCES)} rewrites, got ${String(changed.length)}`);
      const commit = await base.commitOnBase({
        files: changed,
        message: `Update ${String(REFERENCES)} digests [skip ci]`,
        author: BOT,
      });
      const t3 = performance.now();
      await base.pushWithLease(BRANCH, pushed);
      const t4 = performance.now();
      pushed = commit;
      phases.fetch.push(t1 - t0);
      phases.read.push(t2 - t1);
      phases.commit.push(t3 - t2);
      phases.push.push(t4 - t3);
      total.push(t4 - t0);
    }
    const stats = summarizeMs(total);
    const p50 = (samples: number[]): string => ms(summarizeMs(samples).p50);
    return (
      `PR update, ${String(FILES)}-file repo, ${String(REFERENCES)} references (fetch + read .yaml + rewrite + commit + push with lease, local bare remote): ` +
      `p50 ${ms(stats.p50)}, max ${ms(stats.max)} (n=${String(stats.n)}) — ${verdict(stats.p50, 1000)}; ` +
      `phases p50: fetch ${p50(phases.fetch)}, read ${p50(phases.read)}, commit ${p50(phases.commit)}, push ${p50(phases.push)}; first clone ${ms(firstFetch)}`
    );
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** A commit on the remote's main touching one unrelated file, made with plain git plumbing. */
function moveBase(gitDir: string, run: number): void {
  const env = {
    PATH: process.env.PATH ?? '',
    GIT_DIR: gitDir,
    GIT_AUTHOR_NAME: 'h',
    GIT_AUTHOR_EMAIL: 'h@x',
    GIT_COMMITTER_NAME: 'h',
    GIT_COMMITTER_EMAIL: 'h@x',
  };
  const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
    env,
    input: `run ${String(run)}\n`,
    encoding: 'utf8',
  }).trim();
  const index = join(gitDir, `bench-index-${String(run)}`);
  const withIndex = { ...env, GIT_INDEX_FILE: index };
  execFileSync('git', ['read-tree', 'main'], { env: withIndex });
  execFileSync('git', ['update-index', '--add', '--cacheinfo', `100644,${blob},NOTES.md`], { env: withIndex });
  const tree = execFileSync('git', ['write-tree'], { env: withIndex, encoding: 'utf8' }).trim();
  const commit = execFileSync('git', ['commit-tree', tree, '-p', 'main', '-m', `base ${String(run)}`], {
    env,
    encoding: 'utf8',
  }).trim();
  execFileSync('git', ['update-ref', 'refs/heads/main', commit], { env });
  rmSync(index, { force: true });
}

if (import.meta.main) console.log(await benchPrUpdate());
