// The migrate dry run's diff is computed from the migration's edits (src/cli/format/edit-patch.ts),
// because diffing two whole texts of a large file takes hours (issue 8). It must print the patch
// jsdiff's createTwoFilesPatch prints, and in any case one that applies.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { FILE_HEADERS_ONLY, applyPatch, createTwoFilesPatch } from 'diff';
import fc from 'fast-check';
import { editsPatch } from '../../src/cli/format/edit-patch.ts';
import { planMigration, type SourceFile } from '../../src/domain/migrate.ts';
import { applyEdits, type TextEdit } from '../../src/domain/migrate-yaml.ts';
import { componentText } from '../support/manifest-text.ts';

const OPTIONS = { context: 3, headerOptions: FILE_HEADERS_ONLY };

const jsdiff = (before: string, after: string): string =>
  createTwoFilesPatch('a/f', 'b/f', before, after, undefined, undefined, OPTIONS);

function readTree(dir: string): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (at: string): void => {
    for (const name of readdirSync(at).sort()) {
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else files.push({ path: relative(dir, path), text: readFileSync(path, 'utf8') });
    }
  };
  walk(dir);
  return files;
}

/** Every change of a migration, diffed both ways. */
function assertSamePatches(files: readonly SourceFile[]): number {
  let compared = 0;
  for (const change of planMigration(files).changes) {
    if (change.before === undefined || change.edits === undefined) continue;
    assert.equal(
      editsPatch('a/f', 'b/f', change.before, change.edits, OPTIONS),
      jsdiff(change.before, change.after),
      change.path,
    );
    compared++;
  }
  return compared;
}

describe('editsPatch', () => {
  it("prints jsdiff's patch for every file the migration fixtures change", () => {
    const root = join(import.meta.dirname, '..', 'fixtures', 'migrate');
    let compared = 0;
    for (const name of readdirSync(root)) compared += assertSamePatches(readTree(join(root, name, 'before')));
    assert.ok(compared >= 4, `compared ${String(compared)}`);
  });

  it("prints jsdiff's patch for a file of many Components, CRLF and bare-CR line ends included", () => {
    const names = Array.from({ length: 60 }, (_, i) => `c${String(i).padStart(2, '0')}`);
    const docs = names.map((name, i) =>
      componentText({ namespace: 'ns', name, nudges: i % 7 === 6 || i === 59 ? [] : [names[i + 1] ?? ''] }),
    );
    const lf = docs.join('---\n');
    // Also documents closer together than the context, whose hunks merge.
    const dense = names
      .map(
        (name, i) =>
          `kind: Component\napiVersion: appstudio.redhat.com/v1alpha1\nmetadata: {name: ${name}, namespace: ns}\nspec:\n  build-nudges-ref: [${i === 59 ? '' : (names[i + 1] ?? '')}]\n`,
      )
      .join('---\n');
    for (const text of [lf, lf.replaceAll('\n', '\r\n'), lf.replaceAll('\n', '\r'), lf.slice(0, -1), dense]) {
      assert.equal(assertSamePatches([{ path: 'all.yaml', text }]), 1);
    }
  });

  /** Texts of `line`s, with or without a final line end. */
  const texts = (line: fc.Arbitrary<string>): fc.Arbitrary<string> =>
    fc
      .array(line, { maxLength: 40 })
      .chain((lines) => fc.boolean().map((newline) => lines.join('\n') + (newline && lines.length > 0 ? '\n' : '')));
  /** Non-overlapping edits of a text of `length` characters, in order. */
  const edits = (length: number): fc.Arbitrary<TextEdit[]> =>
    fc.uniqueArray(fc.integer({ min: 0, max: length }), { maxLength: 8 }).chain((cuts) => {
      const sorted = [...cuts].sort((x, y) => x - y);
      const pairs: [number, number][] = [];
      for (let i = 0; i + 1 < sorted.length; i += 2) pairs.push([sorted[i] ?? 0, sorted[i + 1] ?? 0]);
      return fc.tuple(
        ...pairs.map(([start, end]) =>
          fc
            .constantFrom('', '\n', 'x', 'new\n', ' {}', 'a\nb\n')
            .chain((inserted) =>
              fc.boolean().map((insertOnly) => ({ start, end: insertOnly ? start : end, text: inserted })),
            ),
        ),
      );
    });

  it('prints a patch that applies, for any edits of any text', () => {
    const text = texts(fc.constantFrom('a', 'b', 'c', '', '  - x', 'spec:', 'spec: {}'));
    fc.assert(
      fc.property(
        text.chain((before) => edits(before.length).map((list) => ({ before, list }))),
        ({ before, list }) => {
          const patch = editsPatch('a/f', 'b/f', before, list, OPTIONS);
          assert.equal(applyPatch(before, patch), applyEdits(before, list));
        },
      ),
      { numRuns: 400 },
    );
  });

  it("prints jsdiff's patch for any edits of a text whose lines differ", () => {
    const text = fc
      .integer({ min: 0, max: 40 })
      .chain((count) =>
        fc
          .boolean()
          .map(
            (newline) =>
              Array.from({ length: count }, (_, i) => `line ${String(i)}`).join('\n') +
              (newline && count > 0 ? '\n' : ''),
          ),
      );
    fc.assert(
      fc.property(
        text.chain((before) => edits(before.length).map((list) => ({ before, list }))),
        ({ before, list }) => {
          const patch = editsPatch('a/f', 'b/f', before, list, OPTIONS);
          assert.equal(patch, jsdiff(before, applyEdits(before, list)));
        },
      ),
      { numRuns: 400 },
    );
  });
});
