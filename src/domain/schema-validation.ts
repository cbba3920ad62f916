// Schema-level checks of the manifests nudger reads, with ajv compiled from the TypeBox schemas.
// Each ajv error becomes a SchemaProblem carrying a stable rule id and a message that names the
// field; the manifest reader adds the object and the line. Graph rules (duplicates, cycles,
// singleton name, too many edges) belong to the domain validator, not here.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { TSchema } from 'typebox';
import { ChangeGroup } from '../schema/changegroup.ts';
import { KUBERNETES_SCHEMA_EXTENSIONS, ObjectMeta } from '../schema/common.ts';
import { Component } from '../schema/component.ts';
import { dns1123LabelProblem } from '../schema/names.ts';
import { NudgeConfig } from '../schema/nudgeconfig.ts';
import { UpstreamKonfluxNudgeConfig, UpstreamNudgeConfig } from '../schema/upstream-nudgeconfig.ts';
import type { NudgeConfigFlavour, RuleId, Severity } from './model.ts';

export type FieldPath = readonly (string | number)[];

export interface SchemaProblem {
  readonly rule: RuleId;
  readonly severity: Severity;
  /** The field the problem is about. */
  readonly path: FieldPath;
  /** The field whose line the problem points at: a missing field's parent, else the field itself. */
  readonly at: FieldPath;
  /** Starts with the field path, e.g. `spec.nudges[3].to "Bad_Name": must consist of ...`. */
  readonly message: string;
}

/** ObjectMeta as every object must carry it: a name is required, unlike in the shared fragment. */
const NamedObjectMeta = { ...ObjectMeta, required: ['name'] };

/**
 * What nudger checks when reading: the published schemas with two changes. `metadata.name` is
 * required (nothing can refer to a nameless object), and `status` is not checked, because
 * controllers write it and a `kubectl get -o yaml` dump should not be flagged for it.
 */
function readingSchema(schema: TSchema & { properties: Record<string, unknown> }): object {
  return {
    ...schema,
    properties: { ...schema.properties, metadata: NamedObjectMeta, status: {} },
  };
}

type SchemaName = 'component' | 'changegroup' | NudgeConfigFlavour;

let compiled: Record<SchemaName, ValidateFunction> | undefined;

// Compiling takes tens of milliseconds, so it happens on first use, once per process.
function validators(): Record<SchemaName, ValidateFunction> {
  if (compiled !== undefined) return compiled;
  // No field nudger reads has a `format`, and ajv-formats alone costs ~80 ms of start-up, so
  // formats are left as annotations (only `status` uses them, and it is not checked).
  const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, logger: false, validateFormats: false });
  // The CRD generator and the API server read these; ajv only has to accept them.
  ajv.addVocabulary([...KUBERNETES_SCHEMA_EXTENSIONS]);
  compiled = {
    component: ajv.compile(readingSchema(Component)),
    changegroup: ajv.compile(readingSchema(ChangeGroup)),
    nudger: ajv.compile(readingSchema(NudgeConfig)),
    'upstream-v1beta2': ajv.compile(readingSchema(UpstreamNudgeConfig)),
    'upstream-konflux-v1beta2': ajv.compile(readingSchema(UpstreamKonfluxNudgeConfig)),
  };
  return compiled;
}

/** The ChangeGroup's spec and metadata; status is the controller's own and not checked. */
export function validateChangeGroupManifest(value: unknown): SchemaProblem[] {
  return problemsOf(validators().changegroup, value);
}

export function validateComponentManifest(value: unknown): SchemaProblem[] {
  return problemsOf(validators().component, value);
}

export function validateNudgeConfigManifest(value: unknown, flavour: NudgeConfigFlavour): SchemaProblem[] {
  return problemsOf(validators()[flavour], value);
}

function problemsOf(validate: ValidateFunction, value: unknown): SchemaProblem[] {
  if (validate(value)) return [];
  const problems: SchemaProblem[] = [];
  const seen = new Set<string>();
  for (const error of validate.errors ?? []) {
    const problem = toProblem(error, value);
    if (problem === undefined) continue;
    // A bad name can break pattern and maxLength at once; one finding per field and rule is enough.
    const key = `${problem.rule}\u0000${formatFieldPath(problem.path)}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

const NAME_KEYWORDS = new Set(['pattern', 'minLength', 'maxLength']);
const NAME_FIELDS = new Set(['from', 'to']);

function toProblem(error: ErrorObject, root: unknown): SchemaProblem | undefined {
  const path = pathOf(error.instancePath, root);
  const params = error.params as Record<string, unknown>;
  const field = path[path.length - 1];
  const shown = formatFieldPath(path);
  const error_ = (rule: RuleId, message: string, at: FieldPath = path): SchemaProblem => ({
    rule,
    severity: 'error',
    path,
    at,
    message,
  });

  switch (error.keyword) {
    case 'maxItems':
      return undefined; // the domain validator reports too-many-edges with the real count
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      const fieldPath = [...path, name];
      const suggestion = closestName(name, knownProperties(error.parentSchema));
      const hint = suggestion === undefined ? '' : `; did you mean \`${suggestion}\`?`;
      return {
        rule: 'unknown-field',
        severity: 'warning',
        path: fieldPath,
        at: fieldPath,
        message: `${formatFieldPath(fieldPath)}: unknown field${hint}`,
      };
    }
    case 'required': {
      const fieldPath = [...path, String(params.missingProperty)];
      return error_('invalid-field', `${formatFieldPath(fieldPath)}: required field is missing`, path);
    }
    case 'type':
      return error_(
        'invalid-field',
        `${shown}: must be ${article(String(params.type))}, found ${describe(error.data)}`,
      );
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]).map(String).join(', ');
      const rule = field === 'mode' ? 'invalid-mode' : 'invalid-field';
      return error_(rule, `${shown} ${JSON.stringify(error.data)}: must be one of ${allowed}`);
    }
    default:
      break;
  }
  if (NAME_KEYWORDS.has(error.keyword) && typeof field === 'string' && NAME_FIELDS.has(field)) {
    const name = String(error.data);
    const problem = dns1123LabelProblem(name) ?? error.message ?? 'is not a valid name';
    return error_('invalid-name', `${shown} ${JSON.stringify(name)}: ${problem}`);
  }
  const value = typeof error.data === 'string' ? ` ${JSON.stringify(error.data)}` : '';
  return error_('invalid-field', `${shown}${value}: ${error.message ?? `fails ${error.keyword}`}`);
}

/** ajv's JSON Pointer as path segments, with array indexes as numbers. */
export function pathOf(pointer: string, root: unknown): FieldPath {
  if (pointer === '') return [];
  const path: (string | number)[] = [];
  let value = root;
  for (const raw of pointer.slice(1).split('/')) {
    const segment = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (Array.isArray(value)) {
      const index = Number(segment);
      path.push(index);
      value = value[index];
    } else {
      path.push(segment);
      value = typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[segment] : undefined;
    }
  }
  return path;
}

const PLAIN_KEY = /^[A-Za-z_][A-Za-z0-9_-]*$/;

/** `spec.nudges[3].to`, `metadata.annotations["example.com/x"]`. */
export function formatFieldPath(path: FieldPath): string {
  let text = '';
  for (const segment of path) {
    if (typeof segment === 'number') text += `[${String(segment)}]`;
    else if (PLAIN_KEY.test(segment)) text += text === '' ? segment : `.${segment}`;
    else text += `[${JSON.stringify(segment)}]`;
  }
  return text === '' ? '(object)' : text;
}

function knownProperties(schema: unknown): string[] {
  if (typeof schema !== 'object' || schema === null) return [];
  const properties = (schema as { properties?: unknown }).properties;
  return typeof properties === 'object' && properties !== null ? Object.keys(properties) : [];
}

/** A known field within two edits of `name` (typos like `form` for `from`), the closest first. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of known) {
    const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** Optimal string alignment distance: Levenshtein plus adjacent transpositions (`form`/`from` is 1). */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[] = new Array<number>(rows * cols).fill(0);
  const at = (i: number, j: number): number => d[i * cols + j] ?? 0;
  for (let i = 0; i < rows; i++) d[i * cols] = i;
  for (let j = 0; j < cols; j++) d[j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        value = Math.min(value, at(i - 2, j - 2) + 1);
      d[i * cols + j] = value;
    }
  }
  return at(a.length, b.length);
}

/** `a string`, `a list`, `a mapping`: a JSON Schema type as a person would say it. */
export function article(type: string): string {
  const names: Record<string, string> = {
    string: 'a string',
    array: 'a list',
    object: 'a mapping',
    integer: 'an integer',
    number: 'a number',
    boolean: 'a boolean',
  };
  return names[type] ?? type;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'object':
      return 'a mapping';
    case 'string':
      return `the string ${JSON.stringify(value)}`;
    case 'number':
    case 'boolean':
      return `${typeof value} ${String(value)}`;
    default:
      return typeof value;
  }
}
