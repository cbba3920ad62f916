// The import matrix of eslint.config.js, held to the tree: every folder of src/ has a row, the
// imports actually present obey it (checked here as well as by lint, so a rule that silently stopped
// matching would show), and docs/ARCHITECTURE.md shows the same table.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative, sep } from 'node:path';
import { describe, it } from 'node:test';
import { IMPORT_MATRIX } from '../../eslint.config.js';

const ROOT = join(import.meta.dirname, '..', '..');
const SRC = join(ROOT, 'src');
const matrix = IMPORT_MATRIX;

/** `src/adapters/git/x.ts` → `adapters/git`; `src/domain/changegroup/y.ts` → `domain`. */
function folderOf(file: string): string {
  const parts = relative(SRC, file).split(sep);
  return parts[0] === 'adapters' ? `adapters/${parts[1] ?? ''}` : (parts[0] ?? '');
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

function folders(): string[] {
  const top = readdirSync(SRC, { withFileTypes: true }).filter((e) => e.isDirectory());
  return top.flatMap((e) =>
    e.name === 'adapters'
      ? readdirSync(join(SRC, 'adapters'), { withFileTypes: true })
          .filter((a) => a.isDirectory())
          .map((a) => `adapters/${a.name}`)
      : [e.name],
  );
}

/** The table docs/ARCHITECTURE.md must show: rows import, columns are imported. */
function renderMatrix(): string {
  const names = Object.keys(matrix);
  const header = `| imports → | ${names.map((n) => `\`${n}\``).join(' | ')} |`;
  const rule = `| --- | ${names.map(() => ':-:').join(' | ')} |`;
  const rows = names.map(
    (row) =>
      `| \`${row}\` | ${names.map((col) => (col === row ? '·' : matrix[row]?.includes(col) === true ? '✓' : '')).join(' | ')} |`,
  );
  return [header, rule, ...rows].join('\n');
}

describe('import matrix', () => {
  it('has a row for every folder of src/, and names only folders that exist', () => {
    assert.deepEqual([...folders()].sort(), Object.keys(matrix).sort());
    for (const [row, allowed] of Object.entries(matrix)) {
      for (const col of allowed) assert.ok(col in matrix, `${row} lists unknown folder ${col}`);
    }
  });

  it('is obeyed by every relative import under src/', () => {
    const violations: string[] = [];
    for (const file of sourceFiles(SRC)) {
      const from = folderOf(file);
      for (const match of readFileSync(file, 'utf8').matchAll(/(?:from|import) '(\.[^']+)'/g)) {
        const target = normalize(join(dirname(file), match[1] ?? ''));
        const to = folderOf(target);
        if (to !== from && matrix[from]?.includes(to) !== true) {
          violations.push(`${relative(ROOT, file)} imports ${match[1] ?? ''} (${from} → ${to})`);
        }
      }
    }
    assert.deepEqual(violations, []);
  });

  it('is the table docs/ARCHITECTURE.md shows', () => {
    const doc = normalizeTable(readFileSync(join(ROOT, 'docs', 'ARCHITECTURE.md'), 'utf8'));
    assert.ok(
      doc.includes(normalizeTable(renderMatrix())),
      `docs/ARCHITECTURE.md must contain this table (prettier may pad it):\n${renderMatrix()}`,
    );
  });
});

/** Prettier pads cells and widens rule rows; compare cell contents only. */
function normalizeTable(text: string): string {
  return text
    .split('\n')
    .filter((line) => line.startsWith('|'))
    .map((line) =>
      line
        .split('|')
        .map((cell) => cell.trim().replace(/^:?-+:?$/, '-'))
        .join('|'),
    )
    .join('\n');
}
