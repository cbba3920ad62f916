// Every design reference in the repository resolves inside it: no file points outside the
// repository (`../shared/...`), and every decision cited as D<n> or N<n> in a comment or a document
// is an entry of docs/decisions.md.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';

const ROOT = join(import.meta.dirname, '..', '..');
const SCANNED = ['src', 'test', 'bench', 'scripts', 'deploy', 'docs', 'examples', 'README.md'];
const SKIPPED = new Set(['node_modules', 'fixtures', 'dist', 'coverage']);

function files(path: string): string[] {
  const full = join(ROOT, path);
  let entries;
  try {
    entries = readdirSync(full, { withFileTypes: true });
  } catch {
    return [path];
  }
  return entries.flatMap((entry) => {
    if (SKIPPED.has(entry.name)) return [];
    const child = join(path, entry.name);
    return entry.isDirectory() ? files(child) : /\.(ts|js|md|ya?ml|sh)$/.test(entry.name) ? [child] : [];
  });
}

/** Comment lines of code, every line of prose: where a citation can stand. */
function citingText(path: string, text: string): string {
  if (path.endsWith('.md')) return text;
  return text
    .split('\n')
    .filter((line) => /^\s*(\/\/|\*|\/\*|#)/.test(line))
    .join('\n');
}

const decisions = readFileSync(join(ROOT, 'docs', 'decisions.md'), 'utf8');
const defined = new Set([...decisions.matchAll(/^### ([DN]\d+)\./gm)].map((m) => m[1]));

describe('design references', () => {
  it('docs/decisions.md defines D1-D14 and its own N entries', () => {
    for (let n = 1; n <= 14; n++) assert.ok(defined.has(`D${String(n)}`), `D${String(n)}`);
    assert.ok(defined.has('N1'));
  });

  it('no file points outside the repository for design or reference material', () => {
    const outside = SCANNED.flatMap(files)
      .filter((path) => path !== relative(ROOT, import.meta.filename))
      .filter((path) =>
        /\.\.\/shared\/|\.\.\/upstream-(crds|apis)\/|\.\.\/reference\//.test(readFileSync(join(ROOT, path), 'utf8')),
      );
    assert.deepEqual(outside, []);
  });

  it('every cited decision exists', () => {
    const unknown: string[] = [];
    for (const path of SCANNED.flatMap(files)) {
      const text = citingText(path, readFileSync(join(ROOT, path), 'utf8'));
      for (const match of text.matchAll(/\b([DN])(\d{1,2})(?:-[DN]?(\d{1,2}))?\b/g)) {
        const [, letter = '', first = '', last] = match;
        for (let n = Number(first); n <= Number(last ?? first); n++) {
          if (!defined.has(`${letter}${String(n)}`)) unknown.push(`${path}: ${match[0]}`);
        }
      }
    }
    assert.deepEqual(unknown, []);
  });
});
