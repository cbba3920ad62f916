// Types for what tests import from eslint.config.js (the import matrix); eslint itself reads the JS.
import type { Linter } from 'eslint';

export const IMPORT_MATRIX: Readonly<Record<string, readonly string[]>>;
declare const config: Linter.Config[];
export default config;
