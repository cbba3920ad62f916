// Names come from the input, and the input may be hostile: no terminal escape may reach the
// terminal through text output, no newline may forge a line, and no name may add statements to a
// Mermaid or DOT graph.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { NamespaceGraph } from '../../src/domain/graph.ts';
import type { NudgeEdge } from '../../src/domain/model.ts';
import { renderDot, renderMermaid } from '../../src/cli/format/graph.ts';
import { terminalSafe, terminalSafeLines } from '../../src/cli/format/terminal-text.ts';
import { runCli } from './run-cli.ts';

// eslint-disable-next-line no-control-regex -- asserting their absence is the point
const TERMINAL_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** An OSC 8 hyperlink around text, a screen clear, a forged finding line and a right-to-left override. */
const HOSTILE = [
  '\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007',
  'a\u001b[2Jb',
  'x\nvalid: 0 errors',
  'evil\u202etxt.yaml',
  '"]; click n0 "https://evil.example/"',
];

describe('terminalSafe', () => {
  it('makes every control character visible and leaves the rest alone', () => {
    assert.equal(terminalSafe('a\u001b[31mb\nc\td\u0007\u009b\u202e'), 'a\\x1b[31mb\\nc\\td\\x07\\x9b\\u202e');
    assert.equal(terminalSafe('tenant/nudge-config.yaml:3: ünïcode ✓'), 'tenant/nudge-config.yaml:3: ünïcode ✓');
  });

  it('for text with lines of its own, keeps newlines, tabs and CRLF line ends, and escapes the rest', () => {
    assert.equal(
      terminalSafeLines('a\tb\r\nc\u001b[2Jd\re\n\u009b31m\u202ef\r'),
      'a\tb\r\nc\\x1b[2Jd\\re\n\\x9b31m\\u202ef\\r',
    );
  });
});

describe('text output of hostile names', () => {
  const components = (names: string[]): string =>
    names
      .map(
        (name) =>
          `apiVersion: appstudio.redhat.com/v1alpha1\nkind: Component\nmetadata:\n  name: ${JSON.stringify(name)}\n` +
          '  namespace: ns\nspec:\n  build-nudges-ref: [a]\n',
      )
      .join('---\n');
  const config = (targets: string[]): string =>
    'apiVersion: konflux-ci.dev/v1alpha1\nkind: NudgeConfig\nmetadata:\n  name: nudge-config\n  namespace: ns\n' +
    `spec:\n  nudges:\n${targets.map((to) => `  - from: a\n    to: ${JSON.stringify(to)}\n`).join('')}`;

  it('validate prints each finding on one line with escapes made visible', async () => {
    const result = await runCli(['validate', '-'], components(HOSTILE));
    assert.equal(result.code, 1);
    assert.doesNotMatch(result.stdout, TERMINAL_CONTROL);
    const lines = result.stdout.trimEnd().split('\n');
    // One finding per hostile Component (its build-nudges-ref names no Component), then the
    // summary: no forged extra line.
    assert.equal(lines.filter((line) => line.includes('[unknown-component]')).length, HOSTILE.length);
    assert.equal(lines.length, HOSTILE.length + 1);
    assert.ok(lines.some((line) => line.includes('Component ns/\\x1b]8;;https://evil.example/\\x07click')));
    assert.ok(lines.some((line) => line.includes('Component ns/x\\nvalid: 0 errors spec')));
  });

  it('graph and plan print their findings on stderr escaped too', async () => {
    for (const args of [
      ['graph', '-'],
      ['plan', '-', '--changed', 'a'],
    ]) {
      const result = await runCli(args, `${components(HOSTILE)}---\n${config(HOSTILE)}`);
      assert.equal(result.code, 1, result.stderr);
      assert.doesNotMatch(result.stderr, TERMINAL_CONTROL);
    }
  });

  it('an error naming a hostile file name stays one escaped line', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'nudger-hostile-'));
    try {
      const path = join(dir, 'a\u001b[2J\nb.yaml');
      writeFileSync(path, 'kind: [Component\n');
      const result = await runCli(['validate', path]);
      assert.equal(result.code, 2);
      assert.doesNotMatch(result.stderr, TERMINAL_CONTROL);
      assert.equal(result.stderr.trimEnd().split('\n').length, 1);
      assert.match(result.stderr, /a\\x1b\[2J\\nb\.yaml:2:1: malformed YAML/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

function graphOf(namespace: string, names: readonly string[], validated: boolean): NamespaceGraph {
  const edges: NudgeEdge[] = names.slice(1).map((to, index) => ({
    namespace,
    from: names[0] ?? '',
    to,
    mode: validated ? 'validated' : 'immediate',
    ...(validated && { gatingGroup: names[index] ?? '' }),
    origin: {
      via: 'NudgeConfig',
      object: { kind: 'NudgeConfig', namespace, name: 'nudge-config' },
      index,
      location: { file: 'x' },
    },
  }));
  return {
    namespace,
    edges,
    nodes: [...new Set(names)].sort(),
    successors: () => [],
    predecessors: () => [],
  };
}

// Every line of a Mermaid flowchart as rendered: generated ids, quoted labels free of anything
// that could end them, and nothing else.
const MERMAID_LABEL = '"[A-Za-z0-9 ._/:@+=,#;-]*"';
const MERMAID_LINES = [
  /^flowchart LR$/,
  new RegExp(`^ {2}subgraph n\\d+\\[${MERMAID_LABEL}\\]$`),
  new RegExp(`^ {2,4}n\\d+\\[${MERMAID_LABEL}\\]$`),
  /^ {2,4}n\d+ --> n\d+$/,
  new RegExp(`^ {2,4}n\\d+ -\\. ${MERMAID_LABEL} \\.-> n\\d+$`),
  /^ {2}end$/,
  /^ {2}linkStyle [\d,]+ stroke:#d00,stroke-width:3px$/,
];

// DOT: every quoted string well formed (escaped quotes and backslashes only), no raw control
// character, and once the strings are set aside, only the statements the renderer writes.
// eslint-disable-next-line no-control-regex -- a raw control character must not count as string text
const DOT_STRING = /"(?:[^"\\\n\u0000-\u001f]|\\["\\])*"/g;
const DOT_LINES = [
  /^digraph nudges \{$/,
  /^ {2}rankdir=LR;$/,
  /^ {2}node \[shape=box, style=rounded\];$/,
  /^ {2}subgraph S \{$/,
  /^ {4}label=S;$/,
  /^ {4}S \[label=S\];$/,
  /^ {4}S -> S( \[(style=dashed, label=S)?(, )?(color=red, penwidth=2)?\])?;$/,
  /^ {2}\}$/,
  /^\}$/,
];

describe('graph labels cannot inject statements', () => {
  const name = fc.oneof(fc.constantFrom(...HOSTILE), fc.string({ unit: 'binary', minLength: 1, maxLength: 12 }));
  const graphs = fc.array(fc.tuple(name, fc.uniqueArray(name, { minLength: 1, maxLength: 5 }), fc.boolean()), {
    minLength: 1,
    maxLength: 3,
  });

  it('Mermaid: only generated ids and quoted, entity-escaped labels', () => {
    fc.assert(
      fc.property(graphs, (specs) => {
        const output = renderMermaid({
          graphs: specs.map(([ns, names, v]) => graphOf(ns, names, v)),
          cycleEdges: new Set(),
        });
        for (const line of output.trimEnd().split('\n')) {
          assert.ok(
            MERMAID_LINES.some((shape) => shape.test(line)),
            `unexpected Mermaid line ${JSON.stringify(line)}`,
          );
        }
      }),
    );
  });

  it('DOT: well-formed quoted strings and the renderer own statements only', () => {
    fc.assert(
      fc.property(graphs, (specs) => {
        const output = renderDot({
          graphs: specs.map(([ns, names, v]) => graphOf(ns, names, v)),
          cycleEdges: new Set(),
        });
        assert.doesNotMatch(output.replaceAll('\n', ''), TERMINAL_CONTROL);
        for (const line of output.trimEnd().split('\n')) {
          const shape = line.replace(DOT_STRING, 'S');
          assert.ok(
            DOT_LINES.some((pattern) => pattern.test(shape)),
            `unexpected DOT line ${JSON.stringify(line)}`,
          );
        }
      }),
    );
  });

  it('keeps names readable and distinct', () => {
    const output = renderMermaid({ graphs: [graphOf('ns', ['a"b', 'a#quot;b'], false)], cycleEdges: new Set() });
    assert.match(output, /\["a#34;b"\]/);
    assert.match(output, /\["a#35;quot#59;b"\]/);
    const dot = renderDot({ graphs: [graphOf('ns', ['a"b\\', 'x\ny'], false)], cycleEdges: new Set() });
    assert.match(dot, /"a\\"b\\\\" \[label="a\\"b\\\\"\];/);
    assert.match(dot, /"x&#10;y"/);
  });
});
