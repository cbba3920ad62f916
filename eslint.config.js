// Strict, type-aware lint. The import restrictions keep the layering honest: the domain core and
// the schemas are pure (no I/O, no Node built-ins), and nothing inward imports outward.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const nodeBuiltins = ['node:*', 'fs', 'fs/*', 'path', 'child_process', 'http', 'https', 'net', 'os', 'process'];
const pureRestriction = (extra) => [
  'error',
  {
    patterns: [{ group: nodeBuiltins, message: 'The domain core is pure: no I/O and no Node built-ins.' }, ...extra],
  },
];

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
  {
    files: ['src/domain/**/*.ts', 'src/schema/**/*.ts', 'src/manifest/**/*.ts'],
    rules: {
      'no-restricted-imports': pureRestriction([
        {
          group: ['**/adapters/**', '**/cli/**'],
          message: 'Dependencies point inward: the core must not import adapters or the CLI.',
        },
      ]),
    },
  },
  {
    files: ['src/adapters/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['**/cli/**'], message: 'Adapters must not import the CLI.' }] },
      ],
    },
  },
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
);
