// Schema-level checks of the manifests nudger reads, with ajv compiled from the TypeBox schemas.
// Each ajv error becomes a SchemaProblem carrying a stable rule id and a message that names the
// field; the manifest reader adds the object and the line. Graph rules (duplicates, cycles,
// singleton name, too many edges) belong to the domain validator, not here.
// The same ajv, with the same configuration, also builds the decoders of cluster objects
// (objectDecoder below, used by src/domain/cluster-objects.ts).
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import type { Static, TSchema } from 'typebox';
import { ChangeGroup } from '../schema/changegroup.ts';
import { KUBERNETES_SCHEMA_EXTENSIONS, ObjectMeta } from '../schema/common.ts';
import { Component } from '../schema/component.ts';
import { dns1123LabelProblem } from '../schema/names.ts';
import { NudgeConfig } from '../schema/nudgeconfig.ts';
import { UpstreamKonfluxNudgeConfig, UpstreamNudgeConfig } from '../schema/upstream-nudgeconfig.ts';
import type { NudgeConfigFlavour, RuleId, Severity } from './model.ts';
import { unescapeJsonPointerToken } from './json-patch.ts';

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
let sharedAjv: Ajv | undefined;

/** The one ajv of the process: manifest reading and cluster decoding share its configuration. */
function ajv(): Ajv {
  if (sharedAjv !== undefined) return sharedAjv;
  // No field nudger reads has a `format`, and ajv-formats alone costs ~80 ms of start-up, so
  // formats are left as annotations (the API server checks them on every write anyway).
  sharedAjv = new Ajv({ allErrors: true, verbose: true, strict: true, logger: false, validateFormats: false });
  // The CRD generator and the API server read these; ajv only has to accept them.
  sharedAjv.addVocabulary([...KUBERNETES_SCHEMA_EXTENSIONS]);
  return sharedAjv;
}

// Compiling takes tens of milliseconds, so it happens on first use, once per process.
function validators(): Record<SchemaName, ValidateFunction> {
  if (compiled !== undefined) return compiled;
  const compile = (schema: object): ValidateFunction => ajv().compile(schema);
  compiled = {
    component: compile(readingSchema(Component)),
    changegroup: compile(readingSchema(ChangeGroup)),
    nudger: compile(readingSchema(NudgeConfig)),
    'upstream-v1beta2': compile(readingSchema(UpstreamNudgeConfig)),
    'upstream-konflux-v1beta2': compile(readingSchema(UpstreamKonfluxNudgeConfig)),
  };
  return compiled;
}

/** One field of an object that does not match its schema. The message names the rule, never the value. */
export interface DecodeProblem {
  /** The field, e.g. `spec.nudges[3].to`; `(object)` for the object itself. */
  readonly path: string;
  readonly message: string;
}

export type DecodeResult<T> =
  { readonly ok: true; readonly object: T } | { readonly ok: false; readonly problems: readonly DecodeProblem[] };

export type Decoder<T> = (value: unknown) => DecodeResult<T>;

/**
 * A decoder of objects as the API server serves them: `schema` with every object opened
 * (`additionalProperties: true`), because the API server has already pruned or refused unknown
 * fields, and a field nudger does not read must never make it drop a real object. What is left is
 * checked as the schema says, so the object can be used as `Static<schema>` without casts.
 * Compiled on first use. The object is returned as given, not copied.
 */
export function objectDecoder<S extends TSchema>(schema: S): Decoder<Static<S>> {
  let validate: ValidateFunction | undefined;
  return (value) => {
    // A copy of an object schema is an object.
    validate ??= ajv().compile(openSchema(schema) as Record<string, unknown>);
    if (validate(value)) return { ok: true, object: value as Static<S> };
    return { ok: false, problems: decodeProblems(validate.errors ?? [], value) };
  };
}

/** A copy of `schema` in which no object refuses properties it does not declare. */
function openSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(openSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    copy[key] = key === 'additionalProperties' && value === false ? true : openSchema(value);
  }
  return copy;
}

function decodeProblems(errors: readonly ErrorObject[], root: unknown): DecodeProblem[] {
  const problems: DecodeProblem[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    const problem = decodeProblemOf(error, root);
    const key = `${problem.path}\u0000${problem.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    problems.push(problem);
  }
  return problems;
}

function decodeProblemOf(error: ErrorObject, root: unknown): DecodeProblem {
  const path = pathOf(error.instancePath, root);
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return { path: formatFieldPath([...path, String(params.missingProperty)]), message: 'required field is missing' };
    case 'type':
      return { path: formatFieldPath(path), message: `must be ${article(String(params.type))}` };
    case 'enum':
      return {
        path: formatFieldPath(path),
        message: `must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`,
      };
    case 'const':
      return { path: formatFieldPath(path), message: `must be ${JSON.stringify(params.allowedValue)}` };
    default:
      // ajv's own messages quote the schema (a pattern, a limit), never the data.
      return { path: formatFieldPath(path), message: error.message ?? `fails ${error.keyword}` };
  }
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
    const segment = unescapeJsonPointerToken(raw);
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
