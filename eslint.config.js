// Strict, type-aware lint. The import restrictions keep the layering honest: the domain core and
// the schemas are pure (no I/O, no Node built-ins), and nothing inward imports outward.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'fs/*', 'path', 'child_process', 'http', 'https', 'net', 'os', 'process'];

// Which folder of src/ may import which other one (besides itself); docs/ARCHITECTURE.md shows the
// same table. Dependencies point inward: the schema is innermost (the API's shapes and vocabulary),
// the domain reads it, adapters and the runtime may use the core, and only the shells (manager,
// sandbox, cli) see everything. Peers import each other only where a row says so; anything not
// listed is refused by no-restricted-imports, so a new dependency between folders is a decision
// made here, in review, not an accident. test/architecture/import-matrix.test.ts checks that every
// folder of src/ has a row.
const CORE = ['schema', 'domain', 'manifest'];
const ADAPTERS = [
  'adapters/credentials',
  'adapters/fs',
  'adapters/kubernetes',
  'adapters/git',
  'adapters/forges',
  'adapters/registry',
];
/** What the shells (manager, sandbox, cli) compose. */
const SHELL = [...CORE, ...ADAPTERS, 'runtime', 'cluster', 'controllers', 'webhooks', 'dashboard'];
export const IMPORT_MATRIX = {
  schema: [],
  domain: ['schema'],
  manifest: ['schema', 'domain'],
  'adapters/credentials': [],
  'adapters/fs': [...CORE],
  'adapters/kubernetes': [...CORE, 'adapters/fs'],
  'adapters/git': [...CORE, 'adapters/credentials'],
  'adapters/forges': [...CORE, 'adapters/credentials', 'adapters/fs', 'adapters/git', 'adapters/kubernetes'],
  // The OCI registry client (docs/decisions.md N40): Korifi's controllers read built images' configs.
  'adapters/registry': [...CORE, 'adapters/credentials'],
  runtime: [...CORE, 'adapters/kubernetes'],
  // Readers of cluster objects shared by controllers, webhooks and the sandbox.
  cluster: [...CORE, 'adapters/kubernetes', 'runtime'],
  controllers: [
    ...CORE,
    'cluster',
    'runtime',
    'adapters/kubernetes',
    'adapters/git',
    'adapters/forges',
    'adapters/credentials',
    'adapters/registry',
  ],
  webhooks: [...CORE, 'cluster', 'runtime', 'adapters/kubernetes'],
  // The dashboard server (docs/decisions.md D14, N46): informer caches in, the pure views' HTML out;
  // it serves HTTPS with the webhook server's certificate watcher.
  dashboard: [...CORE, 'cluster', 'runtime', 'adapters/kubernetes', 'webhooks'],
  manager: SHELL,
  sandbox: [...SHELL, 'manager'],
  cli: [...SHELL, 'manager', 'sandbox'],
};
const PURE = new Set(['schema', 'domain', 'manifest']);

/**
 * One no-restricted-imports rule per folder, refusing every folder its row does not list. Imports
 * are relative, so a folder is recognised by its last path segment (`../fs/x.ts` and
 * `../../adapters/fs/x.ts` alike); every segment used here is unique under src/.
 */
function importMatrixRules() {
  const folders = Object.keys(IMPORT_MATRIX);
  const segment = (folder) => folder.split('/').at(-1);
  return folders.map((folder) => {
    const refused = folders.filter((other) => other !== folder && !IMPORT_MATRIX[folder].includes(other));
    const patterns = refused.map((other) => ({
      group: [`**/${segment(other)}/**`],
      message: `src/${folder} may not import src/${other} (eslint.config.js IMPORT_MATRIX).`,
    }));
    if (PURE.has(folder)) {
      patterns.unshift({ group: nodeBuiltins, message: 'The domain core is pure: no I/O and no Node built-ins.' });
    }
    return { files: [`src/${folder}/**/*.ts`], rules: { 'no-restricted-imports': ['error', { patterns }] } };
  });
}

export default tseslint.config(
  { ignores: ['dist/**', 'coverage/**', 'node_modules/**', '.cache/**', 'examples/**', 'eslint.config.js'] },
  js.configs.recommended,
  ...tseslint.configs.strictTypeChecked,
  ...tseslint.configs.stylisticTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'error',
    },
  },
  ...importMatrixRules(),
  {
    files: ['src/cli/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.ts'],
    rules: { 'no-console': 'off' },
  },
  {
    files: ['test/**/*.ts'],
    rules: {
      'no-console': 'off',
      // node:test's describe/it return promises that the runner awaits itself.
      '@typescript-eslint/no-floating-promises': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
    },
  },
  {
    // The dashboard's browser script: plain JavaScript outside the TypeScript project (no build step).
    files: ['assets/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { document: 'readonly', EventSource: 'readonly' },
    },
  },
);
