// `nudger migrate` and objects of a version nudger does not read (issue 8): before the fix, a
// `konflux-ci.dev/v1` nudge-config holding entries was passed over in silence and migrate wrote a
// second nudge-config.yaml for the same namespace (`notes: []`). Now it refuses (exit 1, nothing
// written) in a namespace it rewrites and notes the object elsewhere, in text and in JSON.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { componentText, nudgeConfigText } from '../support/manifest-text.ts';
import { runCli, tempTree } from './run-cli.ts';

const component = (namespace: string, name: string, nudges: readonly string[] = []): string =>
  componentText({ namespace, name, nudges });

const futureNudgeConfig = (namespace: string, name?: string): string =>
  nudgeConfigText({
    namespace,
    apiVersion: 'konflux-ci.dev/v1',
    entries: [['payments-worker', 'payments-bundle']],
    ...(name === undefined ? {} : { name }),
  });

const trees: { cleanup: () => void }[] = [];
after(() => {
  for (const t of trees) t.cleanup();
});
function tree(extra: Record<string, string>): string {
  const t = tempTree({
    'payments/kustomization.yaml': 'resources:\n  - api.yaml\n  - worker.yaml\n  - bundle.yaml\n',
    'payments/api.yaml': component('payments', 'payments-api', ['payments-bundle']),
    'payments/worker.yaml': component('payments', 'payments-worker'),
    'payments/bundle.yaml': component('payments', 'payments-bundle'),
    ...extra,
  });
  trees.push(t);
  return t.root;
}

describe('nudger migrate and a NudgeConfig of a version nudger does not read', () => {
  it('in a namespace it rewrites: exits 1, names file, line, object and apiVersion, writes nothing', async () => {
    const root = tree({ 'payments/future.yaml': futureNudgeConfig('payments') });
    const api = join(root, 'payments/api.yaml');
    const before = readFileSync(api, 'utf8');
    const text = await runCli(['migrate', root, '--write']);
    assert.equal(text.code, 1, text.stderr);
    assert.match(text.stderr, /^nudger: refusing to migrate; nothing was written:$/m);
    assert.ok(
      text.stderr.includes(
        `  ${join(root, 'payments/future.yaml')}:1: NudgeConfig payments/nudge-config has apiVersion "konflux-ci.dev/v1", not a version nudger reads`,
      ),
      text.stderr,
    );
    assert.equal(readFileSync(api, 'utf8'), before);
    assert.equal(existsSync(join(root, 'payments/nudge-config.yaml')), false, 'no second NudgeConfig');

    const json = await runCli(['migrate', root, '--write', '--output', 'json']);
    assert.equal(json.code, 1);
    const output = JSON.parse(json.stdout) as { refused: { file: string; line?: number; message: string }[] };
    assert.deepEqual(
      output.refused.map(({ file, line }) => ({ file, line })),
      [{ file: join(root, 'payments/future.yaml'), line: 1 }],
    );
    assert.match(
      output.refused[0]?.message ?? '',
      /"konflux-ci\.dev\/v1".*in namespace payments, which this migration rewrites/,
    );
    assert.deepEqual(Object.keys(output).sort(), ['refused', 'written']);
    assert.equal(existsSync(join(root, 'payments/nudge-config.yaml')), false);
  });

  it('elsewhere: migrates, and says so in a note (text on stderr, escaped; JSON notes)', async () => {
    const root = tree({ 'search/future.yaml': futureNudgeConfig('search', '"evil\\e[2J"') });
    const text = await runCli(['migrate', root]);
    assert.equal(text.code, 0, text.stderr);
    const note = text.stderr.split('\n').find((line) => line.startsWith('note: '));
    assert.equal(
      note,
      `note: ${join(root, 'search/future.yaml')}:1: NudgeConfig search/evil\\x1b[2J has apiVersion "konflux-ci.dev/v1", ` +
        'not a version nudger reads (it reads konflux-ci.dev/v1alpha1, konflux-ci.dev/v1beta2, appstudio.redhat.com/v1beta2); ' +
        'left as it is (nothing in namespace search is migrated, so no edge is lost)',
    );
    assert.equal(text.stderr.includes('\u001b'), false, 'no raw escape reaches the terminal');
    const json = await runCli(['migrate', root, '--output', 'json']);
    assert.equal(json.code, 0, json.stderr);
    const { notes } = JSON.parse(json.stdout) as { notes: string[] };
    assert.equal(notes.length, 1);
    assert.ok(notes[0]?.includes('search/evil\u001b[2J has apiVersion "konflux-ci.dev/v1"'), notes[0]);
  });
});
