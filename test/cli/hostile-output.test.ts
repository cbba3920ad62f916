// Every text output path of the file-based commands with names, file names and file contents
// that try to reach the terminal (issue 8, part 2 item 9): an SGR colour, an OSC 8 hyperlink, a
// carriage return that would overwrite its line from column 0, and a newline followed by a GitHub
// Actions annotation. Each must come out as visible escapes, and each command must print exactly
// the lines it writes itself: a name cannot add one.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { applyPatch, parsePatch } from 'diff';
import { reportClusterMigration } from '../../src/cli/commands/migrate-cluster.ts';
import { componentText } from '../support/manifest-text.ts';
import { capture, runCli, tempTree } from './run-cli.ts';

interface Hostile {
  /** As it stands in the manifest. */
  readonly raw: string;
  /** As terminalSafe prints it. */
  readonly shown: string;
  /** As a validation message quotes it (JSON). */
  readonly quoted: string;
}

const HOSTILE: readonly Hostile[] = [
  { raw: 'red\u001b[31mx', shown: String.raw`red\x1b[31mx`, quoted: String.raw`"red\u001b[31mx"` },
  {
    raw: '\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007',
    shown: String.raw`\x1b]8;;https://evil.example/\x07click\x1b]8;;\x07`,
    quoted: String.raw`"\u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007"`,
  },
  { raw: 'ok\rfake', shown: String.raw`ok\rfake`, quoted: String.raw`"ok\rfake"` },
  {
    raw: 'b\n::error file=x::forged',
    shown: String.raw`b\n::error file=x::forged`,
    quoted: String.raw`"b\n::error file=x::forged"`,
  },
];

/** A file name holding an SGR escape and a newline followed by an annotation. */
const HOSTILE_FILE = { raw: 'helm\u001b[31m\n::error::h.yaml', shown: String.raw`helm\x1b[31m\n::error::h.yaml` };
const HOSTILE_DIR = { raw: '.hid\u001b[2J\n::error::x', shown: String.raw`.hid\x1b[2J\n::error::x` };

const INVALID =
  "is not a valid component name: must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";

// eslint-disable-next-line no-control-regex -- asserting their absence is the point
const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

/** Component `name` of namespace ns; each of `nudges` is written as a JSON-quoted YAML scalar. */
const component = (name: string, nudges: readonly string[] = [], containerImage?: string): string =>
  componentText({
    namespace: 'ns',
    name,
    nudges: nudges.map((to) => JSON.stringify(to)),
    ...(containerImage === undefined ? {} : { containerImage }),
  });

/** Runs `test` on a temporary tree of `files`, removed afterwards. */
async function inTree(files: Record<string, string>, test: (root: string) => Promise<void>): Promise<void> {
  const tree = tempTree(files);
  try {
    await test(tree.root);
  } finally {
    tree.cleanup();
  }
}

function linesOf(text: string): string[] {
  assert.ok(text.endsWith('\n'), `output ends with a newline: ${JSON.stringify(text)}`);
  return text.slice(0, -1).split('\n');
}

/** The finding validate, graph and plan print for a's i-th build-nudges-ref entry. */
const finding = (root: string, i: number, h: Hostile): string =>
  `${root}/app/a.yaml:${String(9 + i)}:7: error [invalid-name] Component ns/a spec.build-nudges-ref[${String(i)}]: ${h.quoted} ${INVALID}`;

/** The edge a -> name as migrate names it when it refuses or drops it. */
const offence = (h: Hostile): string =>
  `Component ns/a spec.build-nudges-ref[${String(HOSTILE.indexOf(h))}]: a -> ${h.shown}: to: ${h.quoted} ${INVALID}`;

describe('text output of hostile input', () => {
  // Component a lists every hostile name (from line 9 on) and b; a Helm template with a hostile
  // file name cannot be parsed, and a hidden directory with a hostile name is passed over. No
  // command here writes to it.
  const tree = tempTree({
    'app/a.yaml': component('a', [...HOSTILE.map((h) => h.raw), 'b']),
    'app/b.yaml': component('b'),
    [`app/${HOSTILE_FILE.raw}`]: 'x: [\n',
    [`app/${HOSTILE_DIR.raw}/c.yaml`]: component('c'),
  });
  const root = tree.root;
  after(tree.cleanup);
  // validate, graph and plan all print it: the Helm template holds nothing nudger reads.
  const skippedWarning = `${root}/app/${HOSTILE_FILE.shown}:2:1: warning [unreadable-file] skipped: malformed YAML: Flow sequence in block collection must be sufficiently indented and end with a ] (it holds no Component, NudgeConfig or kustomization, so nudger needs nothing from it)`;

  it('validate: one finding per line, escaped, then the summary', async () => {
    const result = await runCli(['validate', root, '--verbose']);
    assert.equal(result.code, 1, result.stderr);
    assert.deepEqual(linesOf(result.stdout), [
      skippedWarning,
      ...HOSTILE.map((h, i) => finding(root, i, h)),
      'invalid: 4 errors, 1 warning; read 2 Components, 0 NudgeConfigs (0 entries), 5 build-nudges-ref items in 1 namespace',
    ]);
    // --verbose: the hidden directory passed over, named on one line.
    assert.deepEqual(linesOf(result.stderr), [
      `nudger: skipped ${root}/app/${HOSTILE_DIR.shown}/: hidden directory (name it to read it)`,
    ]);
  });

  it('graph and plan: the findings on stderr, warnings too, escaped, one per line', async () => {
    const graph = await runCli(['graph', root]);
    assert.equal(graph.code, 1, graph.stderr);
    assert.doesNotMatch(graph.stdout.replaceAll('\n', ''), RAW_CONTROL);
    assert.deepEqual(linesOf(graph.stderr), [skippedWarning, ...HOSTILE.map((h, i) => finding(root, i, h))]);
    const plan = await runCli(['plan', root, '--changed', 'b']);
    assert.equal(plan.code, 1, plan.stderr);
    assert.equal(plan.stdout, '');
    assert.deepEqual(linesOf(plan.stderr), [
      skippedWarning,
      ...HOSTILE.map((h, i) => finding(root, i, h)),
      'cannot plan: the nudge graph has 4 error(s); run nudger validate',
    ]);
  });

  it('migrate refusing: the heading, one line per offending edge, the advice', async () => {
    const result = await runCli(['migrate', root]);
    assert.equal(result.code, 1, result.stderr);
    assert.equal(result.stdout, '');
    assert.deepEqual(linesOf(result.stderr), [
      'nudger: refusing to migrate; nothing was written:',
      ...HOSTILE.map((h, i) => `  ${root}/app/a.yaml:${String(9 + i)}: invalid-name: ${offence(h)}`),
      'fix the names (or pass every file of the namespace if a Component was left out), or rerun with --drop-invalid to drop these 4 edge(s)',
    ]);
  });

  it('migrate --drop-invalid: one line per dropped edge, the note naming the skipped file, the summary', async () => {
    const result = await runCli(['migrate', root, '--drop-invalid']);
    assert.equal(result.code, 0, result.stderr);
    assert.doesNotMatch(result.stdout.replaceAll('\n', ''), RAW_CONTROL);
    assert.deepEqual(linesOf(result.stderr), [
      ...HOSTILE.map(
        (h, i) =>
          `would drop (--drop-invalid) ns: a -> ${h.shown} [invalid-name] declared at ${root}/app/a.yaml:${String(9 + i)} spec.build-nudges-ref[${String(i)}]: to: ${h.quoted} ${INVALID}`,
      ),
      `note: skipped ${root}/app/${HOSTILE_FILE.shown}:2: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] (it holds no Component, NudgeConfig or kustomization, so nothing to migrate)`,
      `would migrate 1 edge(s) from 1 Component(s) into ${root}/app/nudge-config.yaml (1 entries); run again with --write to apply`,
    ]);
  });
});

describe('migrate --cluster text report', () => {
  // A real API server validates no build-nudges-ref entry, and today's checks quote every name they
  // refuse (test/integration/migrate-cluster.test.ts); the report must keep its lines whatever an
  // outcome holds.
  it('prints each namespace and each problem on one line, escaped', () => {
    const out = capture();
    const err = capture();
    reportClusterMigration(
      [
        {
          namespace: 'ns',
          action: 'create',
          added: HOSTILE.map((h) => ({ from: 'a', to: h.raw })),
          entries: HOSTILE.length,
          problems: HOSTILE.map(
            (h) => `Component ns/${h.raw} lists itself in build-nudges-ref; that entry is left out`,
          ),
          applied: false,
        },
      ],
      { apply: false, output: 'text' },
      { stdout: out.stream, stderr: err.stream },
    );
    assert.deepEqual(linesOf(out.text()), [
      `ns: would create nudge-config: ${HOSTILE.map((h) => `a -> ${h.shown}`).join(', ')}`,
      ...HOSTILE.map((h) => `  Component ns/${h.shown} lists itself in build-nudges-ref; that entry is left out`),
    ]);
    assert.deepEqual(linesOf(err.text()), ['dry run: nothing was written; run again with --apply']);
  });
});

describe('the migrate dry-run diff', () => {
  /** A directory name holding an SGR escape, a forged header line and a right-to-left override. */
  const HOSTILE_DIR_NAME = 'x\u001b[31m\n+++ b\u202eforged';

  it('escapes control characters in the lines, C-quotes hostile paths, and prints only the lines of the patch', async () => {
    const files = {
      [`${HOSTILE_DIR_NAME}/a.yaml`]: component(
        'a',
        ['b'],
        // A bare CR is a line break to kubectl and nudger alike: here it starts a comment line.
        'quay.io/org/a  # \u001b[31mred\u001b[0m \u001b]8;;https://evil.example/\u0007click\u001b]8;;\u0007 ok\r  # fake',
      ),
      [`${HOSTILE_DIR_NAME}/b.yaml`]: component('b'),
    };
    await inTree(files, async (root) => {
      // As git quotes a path: C escapes, and the UTF-8 bytes of U+202E in octal.
      const dir = String.raw`${root.slice(1)}/x\033[31m\n+++ b\342\200\256forged`;
      const result = await runCli(['migrate', root]);
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(linesOf(result.stdout), [
        `--- "a/${dir}/a.yaml"`,
        `+++ "b/${dir}/a.yaml"`,
        '@@ -6,5 +6,3 @@',
        ' spec:',
        '   componentName: a',
        String.raw`   containerImage: quay.io/org/a  # \x1b[31mred\x1b[0m \x1b]8;;https://evil.example/\x07click\x1b]8;;\x07 ok\r  # fake`,
        '-  build-nudges-ref:',
        '-    - "b"',
        '--- /dev/null',
        `+++ "b/${dir}/nudge-config.yaml"`,
        '@@ -0,0 +1,13 @@',
        "+# Generated by `nudger migrate` from the spec.build-nudges-ref lists of this namespace's",
        '+# Components. mode: immediate keeps the behaviour build-nudges-ref had (ADR 67).',
        '+',
        '+apiVersion: konflux-ci.dev/v1alpha1',
        '+kind: NudgeConfig',
        '+metadata:',
        '+  name: nudge-config',
        '+  namespace: ns',
        '+spec:',
        '+  nudges:',
        '+    - from: a',
        '+      to: b',
        '+      mode: immediate',
      ]);
      // The quoted names still name the files, for git apply, patch and jsdiff alike.
      assert.deepEqual(
        parsePatch(result.stdout).map((patch) => patch.newFileName),
        Object.keys(files).map((path) => `b/${root.slice(1)}/${path.replace('b.yaml', 'nudge-config.yaml')}`),
      );
    });
  });

  it('stays a patch that applies for ordinary files, CRLF line ends and tabs included', async () => {
    const crlf = (text: string): string => text.replaceAll('\n', '\r\n');
    await inTree(
      { 'app/a.yaml': crlf(component('a', ['b'], 'quay.io/org/a #\tcomment')), 'app/b.yaml': component('b') },
      async (root) => {
        const before = readFileSync(join(root, 'app/a.yaml'), 'utf8');
        const dryRun = await runCli(['migrate', root]);
        assert.equal(dryRun.code, 0, dryRun.stderr);
        assert.match(dryRun.stdout, /^ {3}containerImage: quay.io\/org\/a #\tcomment\r\n- {2}build-nudges-ref:\r\n/m);
        const [patchOfA, patchOfConfig] = parsePatch(dryRun.stdout);
        assert.ok(patchOfA !== undefined && patchOfConfig !== undefined);
        const written = await runCli(['migrate', root, '--write']);
        assert.equal(written.code, 0, written.stderr);
        assert.equal(applyPatch(before, patchOfA), readFileSync(join(root, 'app/a.yaml'), 'utf8'));
        assert.equal(applyPatch('', patchOfConfig), readFileSync(join(root, 'app/nudge-config.yaml'), 'utf8'));
      },
    );
  });
});
