// `nudger validate --repository` reports nudge loops offline (docs/cli.md, docs/decisions.md N33).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { repoRoot, runCli } from './run-cli.ts';

const fixture = join(repoRoot, 'test', 'fixtures', 'monorepo-loop');
const gitops = join(fixture, 'gitops');
const repo = join(fixture, 'repo');

interface JsonFinding {
  readonly rule: string;
  readonly severity: string;
  readonly message: string;
}

describe('nudger validate --repository (nudge-loop)', () => {
  it('warns about the loop and the expression it cannot read, not about the safe operand', async () => {
    const result = await runCli(['validate', gitops, '--repository', repo, '--output', 'json']);
    assert.equal(result.code, 0, result.stderr);
    const { valid, findings } = JSON.parse(result.stdout) as { valid: boolean; findings: JsonFinding[] };
    assert.equal(valid, true);
    const loops = findings.filter((f) => f.rule === 'nudge-loop');
    assert.deepEqual(
      loops.map((f) => [f.severity, f.message.split(' ').slice(0, 3).join(' ')]),
      [
        ['warning', 'op-a nudges bundle'],
        ['warning', 'op-b nudges bundle'],
      ],
    );
    assert.match(
      loops[0]?.message ?? '',
      /config\/manifests\/mono\.clusterserviceversion\.yaml matches "config\/\*\*\*"\.pathChanged\(\) of op-a's push PipelineRun \.tekton\/op-a-push\.yaml/,
    );
    assert.match(loops[1]?.message ?? '', /may start op-b's push PipelineRun \.tekton\/op-b-push\.yaml/);
  });

  it('says nothing about loops without --repository', async () => {
    const result = await runCli(['validate', gitops]);
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stdout, /nudge-loop/);
  });

  it('refuses a directory without .tekton/ (exit 2, naming it)', async () => {
    const result = await runCli(['validate', gitops, '--repository', gitops]);
    assert.equal(result.code, 2);
    assert.match(result.stderr, /gitops: --repository needs a repository checkout with a \.tekton\/ directory/);
  });
});
