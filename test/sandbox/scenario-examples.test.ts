// Every scenario shipped in examples/sandbox/ is accepted: the documentation points people at them.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadScenarioFile } from '../../src/sandbox/scenario/load.ts';
import { ScenarioError } from '../../src/sandbox/scenario/errors.ts';

const dir = fileURLToPath(new URL('../../examples/sandbox/', import.meta.url));
const examples = readdirSync(dir).filter((name) => name.endsWith('.yaml'));

describe('examples/sandbox', () => {
  it('holds at least three scenarios', () => {
    assert.ok(examples.length >= 3, examples.join(', '));
  });
  for (const name of examples) {
    it(`${name} parses`, async () => {
      const scenario = await loadScenarioFile(join(dir, name));
      assert.ok(scenario.steps.length > 0);
      assert.ok(scenario.changeGroups.length > 0);
    });
  }

  it('reports an unreadable scenario file as a ScenarioError', async () => {
    await assert.rejects(
      loadScenarioFile(join(dir, 'does-not-exist.yaml')),
      (error: unknown) => error instanceof ScenarioError && error.message.includes('cannot read the file (ENOENT)'),
    );
  });
});
