// Every scenario shipped in examples/sandbox/ is accepted: the documentation points people at them,
// and the ones docs/sandbox.md shows (a yaml block headed `# examples/sandbox/<file>`) are shown
// as they are on disk.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadScenarioFile } from '../../src/sandbox/scenario/load.ts';
import { ScenarioError } from '../../src/sandbox/scenario/errors.ts';

const dir = fileURLToPath(new URL('../../examples/sandbox/', import.meta.url));
const examples = readdirSync(dir).filter((name) => name.endsWith('.yaml'));
const docs = readFileSync(fileURLToPath(new URL('../../docs/sandbox.md', import.meta.url)), 'utf8');

/** The file without its leading comment lines: what the documentation shows under its name. */
function body(name: string): string {
  const lines = readFileSync(join(dir, name), 'utf8').split('\n');
  const first = lines.findIndex((line) => !line.startsWith('#'));
  return lines.slice(first).join('\n').trimEnd();
}

describe('examples/sandbox', () => {
  it('holds scenarios with ChangeGroups and scenarios of nudger dispatching alone', async () => {
    const scenarios = await Promise.all(examples.map((name) => loadScenarioFile(join(dir, name))));
    assert.ok(scenarios.filter((s) => s.changeGroups.length > 0).length >= 3, examples.join(', '));
    assert.ok(scenarios.some((s) => s.changeGroups.length === 0 && s.nudgedBy === 'nudger'));
    assert.ok(scenarios.some((s) => s.nudgedBy === 'build-service'));
    assert.ok(scenarios.some((s) => s.executor === 'renovate'));
  });
  for (const name of examples) {
    it(`${name} parses`, async () => {
      const scenario = await loadScenarioFile(join(dir, name));
      // A Korifi scenario's steps are its own (scenario/korifi.ts).
      assert.ok(scenario.steps.length > 0 || (scenario.korifi?.steps.length ?? 0) > 0);
    });
  }

  it('shows each example docs/sandbox.md names in a yaml block as it is on disk', () => {
    const shown = [...docs.matchAll(/```yaml\n# examples\/sandbox\/(\S+)\n([\s\S]*?)\n```/g)];
    assert.ok(shown.length >= 3);
    for (const [, name = '', text = ''] of shown) {
      assert.ok(examples.includes(name), `${name} is in examples/sandbox/`);
      assert.equal(text, body(name), name);
    }
  });

  it('reports an unreadable scenario file as a ScenarioError', async () => {
    await assert.rejects(
      loadScenarioFile(join(dir, 'does-not-exist.yaml')),
      (error: unknown) => error instanceof ScenarioError && error.message.includes('cannot read the file (ENOENT)'),
    );
  });
});
