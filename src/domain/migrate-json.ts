// Rewrites JSON manifests for the migration. JSON has no comments to keep, so the document is
// changed as data and printed again with the file's own indentation and final newline.
import { MigrationError } from './migrate-error.ts';
import { looksLikeJson, simpleJsonDocument } from './simple-json.ts';
import { YamlReadError, documentValue, readYamlDocuments, withLineFeeds } from './yaml-reader.ts';
import { BUILD_NUDGES_REF, type DocOp, type Locator } from './migrate-model.ts';

export interface JsonSource {
  readonly path: string;
  readonly text: string;
  /** undefined for a file holding only whitespace: it has no document. */
  readonly value: unknown;
}

export function parseJsonSource(path: string, text: string): JsonSource {
  if (text.trim() === '') return { path, text, value: undefined };
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const line = /\(line (\d+) column \d+\)/.exec(message)?.[1];
    throw new MigrationError(
      path,
      `not valid JSON: ${message.replace(/\s*\(line \d+ column \d+\)/, '')}`,
      line === undefined ? undefined : Number(line),
    );
  }
  refuseWhatValidateRefuses(path, text);
  return { path, text, value };
}

/**
 * JSON.parse accepts text that validate refuses (its reader: src/domain/simple-json.ts, then
 * `yaml`): a repeated key, of which the last silently wins, and nesting deeper than any manifest.
 * migrate reads what validate reads, so such a file is refused here too, with validate's reason.
 */
function refuseWhatValidateRefuses(path: string, text: string): void {
  const read = withLineFeeds(text);
  if (looksLikeJson(read) && simpleJsonDocument(read) !== undefined) return;
  try {
    for (const document of readYamlDocuments(read)) documentValue(document);
  } catch (error) {
    if (!(error instanceof YamlReadError)) throw error;
    throw new MigrationError(path, `not valid JSON: ${error.reason}`, error.line);
  }
}

/** JSON.parse keeps no positions, so a path is located by the first occurrence of its last key. */
export function jsonLocator(source: JsonSource): Locator {
  return (path) => {
    const key = [...path].reverse().find((part) => typeof part === 'string');
    if (key === undefined) return undefined;
    const at = source.text.indexOf(JSON.stringify(key));
    return at === -1 ? undefined : source.text.slice(0, at).split('\n').length;
  };
}

function detectIndent(text: string): string {
  return /\n([ \t]+)\S/.exec(text)?.[1] ?? '';
}

type Plain = Record<string, unknown>;

function asPlain(value: unknown): Plain | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Plain) : undefined;
}

export function renderJsonSource(source: JsonSource, ops: readonly DocOp[]): string {
  if (ops.length === 0 || source.value === undefined) return source.text;
  const removal = ops.find((op) => op.kind === 'remove-document');
  if (removal !== undefined) return removal.placeholder;
  const value = JSON.parse(source.text) as unknown;
  const root = asPlain(value);
  if (root === undefined) throw new MigrationError(source.path, 'expected a JSON object');
  for (const op of ops) applyOp(root, op, source.path);
  const trailingNewline = /\n\s*$/.test(source.text) ? '\n' : '';
  return JSON.stringify(root, null, detectIndent(source.text)) + trailingNewline;
}

function appendTo(parent: Plain, key: string, items: readonly unknown[], file: string): void {
  const existing = parent[key];
  if (existing === undefined || existing === null) parent[key] = [...items];
  else if (Array.isArray(existing)) existing.push(...items);
  else throw new MigrationError(file, `${key} must be a list`);
}

function applyOp(root: Plain, op: DocOp, file: string): void {
  switch (op.kind) {
    case 'remove-build-nudges-ref': {
      const spec = asPlain(root.spec);
      if (spec !== undefined) Reflect.deleteProperty(spec, BUILD_NUDGES_REF);
      return;
    }
    case 'set-api-version':
      root.apiVersion = op.apiVersion;
      return;
    case 'append-nudges': {
      root.spec ??= {};
      const spec = asPlain(root.spec);
      if (spec === undefined) throw new MigrationError(file, 'NudgeConfig spec must be an object');
      appendTo(spec, 'nudges', op.entries, file);
      return;
    }
    case 'remove-nudges': {
      const nudges: unknown = asPlain(root.spec)?.nudges;
      if (!Array.isArray(nudges)) throw new MigrationError(file, 'NudgeConfig spec.nudges must be a list');
      // Highest index first, so the lower ones still point at the same items.
      for (const index of [...op.indexes].sort((a, b) => b - a)) nudges.splice(index, 1);
      return;
    }
    case 'append-resources':
      appendTo(root, 'resources', op.names, file);
      return;
    case 'remove-document':
      return;
  }
}
