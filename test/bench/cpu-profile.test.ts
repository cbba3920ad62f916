// The scale benchmark's profile summary (bench/cpu-profile.ts, docs/decisions.md N50): self time is
// charged to the sample's own frame, idle time is kept apart, and a window keeps only its samples,
// so the top cost printed for a missed target is the window's and not the whole run's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { shortFile, summarise, type CpuProfile } from '../../bench/cpu-profile.ts';

const frame = (functionName: string, url: string) => ({ functionName, url, lineNumber: 9 });

// Samples every 1 ms (deltas in µs): 0–3 ms in parse, 3–5 ms idle, 5–8 ms in a dependency, 8–9 ms GC.
const PROFILE: CpuProfile = {
  nodes: [
    { id: 1, callFrame: frame('(root)', '') },
    { id: 2, callFrame: frame('parse', 'file:///work/main/src/webhooks/pipelinerun.ts') },
    { id: 3, callFrame: frame('(idle)', '') },
    { id: 4, callFrame: frame('load', 'file:///work/main/node_modules/js-yaml/dist/js-yaml.mjs') },
    { id: 5, callFrame: frame('(garbage collector)', '') },
  ],
  startTime: 0,
  endTime: 9000,
  samples: [2, 2, 2, 3, 3, 4, 4, 4, 5],
  timeDeltas: [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
};

describe('CPU profile summary', () => {
  it('charges self time per function, file and kind, idle apart', () => {
    const summary = summarise(PROFILE);
    assert.equal(summary.totalMs, 9);
    assert.equal(summary.idleMs, 2);
    assert.deepEqual(summary.byFunction[0], { name: 'parse src/webhooks/pipelinerun.ts:10', ms: 3 });
    assert.deepEqual(
      summary.byKind.map((k) => [k.name, k.ms]),
      [
        ['nudger src/', 3],
        ['dependencies', 3],
        ['GC', 1],
      ],
    );
  });

  it('keeps only the samples of a window', () => {
    // Sample times (end of each delta): 1..9 ms; [5.5 ms, 8.5 ms) holds the samples at 6, 7 and 8 ms.
    const summary = summarise(PROFILE, { fromS: 0.0055, toS: 0.0085 });
    assert.equal(summary.totalMs, 3);
    assert.deepEqual(
      summary.byFile.map((f) => [f.name, f.ms]),
      [['js-yaml/dist/js-yaml.mjs', 3]],
    );
  });

  it('names files by repository path, package path or node: module', () => {
    assert.equal(shortFile('file:///work/main/src/a/b.ts'), 'src/a/b.ts');
    assert.equal(shortFile('node:internal/streams/readable'), 'node:internal/streams/readable');
    assert.equal(shortFile(''), '(native)');
  });
});
