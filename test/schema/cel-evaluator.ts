// Applies every x-kubernetes-validations rule of a CRD schema to an object, the way the API server
// does after defaulting: each rule runs at the schema node where it is declared, once per value
// present there, with `self` bound to that value. Rules are run by a real CEL implementation
// (@bufbuild/cel), so typos, wrong field names and `has()` semantics are all exercised for real.
import { isCelError, parse, plan, celEnv, type CelInput } from '@bufbuild/cel';

export interface CelViolation {
  /** Field path in the API server's style: `<root>`, `spec`, `spec.nudges[3]`. */
  readonly path: string;
  readonly rule: string;
  readonly message: string;
  /** Set when the rule did not evaluate to a boolean (a runtime error), not just to false. */
  readonly evaluationError?: string;
}

export interface CelRule {
  readonly rule: string;
  readonly message?: string;
}

type Schema = Record<string, unknown>;
type Program = (self: CelInput) => unknown;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A rule that does not parse is a broken CRD, not a violation: fail loudly. */
export class CelCompileError extends Error {
  readonly rule: string;
  readonly path: string;
  constructor(rule: string, path: string, cause: unknown) {
    super(`CEL rule at ${path} does not compile: ${rule}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'CelCompileError';
    this.rule = rule;
    this.path = path;
  }
}

const programs = new Map<string, Program>();
const env = celEnv();

function compile(rule: string, path: string): Program {
  const cached = programs.get(rule);
  if (cached !== undefined) return cached;
  let program: Program;
  try {
    const run = plan(env, parse(rule));
    program = (self) => run({ self });
  } catch (error: unknown) {
    throw new CelCompileError(rule, path, error);
  }
  programs.set(rule, program);
  return program;
}

function rulesAt(schema: Schema): CelRule[] {
  const rules = schema['x-kubernetes-validations'];
  return Array.isArray(rules) ? rules.filter((r): r is CelRule => isRecord(r) && typeof r.rule === 'string') : [];
}

/**
 * A JSON value as CEL sees it: objects become maps (so `has(self.x)` tests presence), integers of
 * `type: integer` become CEL ints. At the root, CEL may only see metadata.name and generateName.
 */
function toCel(value: unknown, schema: Schema | undefined, atRoot: boolean): CelInput {
  if (Array.isArray(value)) return value.map((item) => toCel(item, childSchema(schema, 'items'), false));
  if (isRecord(value)) {
    const entries = Object.entries(value)
      .filter(([key]) => !atRoot || key !== 'metadata')
      .map(([key, v]): [string, CelInput] => [key, toCel(v, propertySchema(schema, key), false)]);
    if (atRoot && isRecord(value.metadata)) entries.push(['metadata', rootMetadata(value.metadata)]);
    return new Map(entries);
  }
  if (typeof value === 'number' && schema?.type === 'integer') return BigInt(value);
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' || value === null)
    return value;
  throw new TypeError(`not a JSON value: ${typeof value}`);
}

function rootMetadata(metadata: Record<string, unknown>): CelInput {
  const visible = ['name', 'generateName'].filter((key) => typeof metadata[key] === 'string');
  return new Map(visible.map((key) => [key, String(metadata[key])]));
}

function childSchema(schema: Schema | undefined, keyword: 'items' | 'additionalProperties'): Schema | undefined {
  const child = schema?.[keyword];
  return isRecord(child) ? child : undefined;
}

function propertySchema(schema: Schema | undefined, key: string): Schema | undefined {
  const properties = schema?.properties;
  if (isRecord(properties)) {
    const child = properties[key];
    if (isRecord(child)) return child;
  }
  return childSchema(schema, 'additionalProperties');
}

/** Structural defaulting: absent properties with a `default` get it, as the API server does on write. */
export function applyDefaults(value: unknown, schema: Schema | undefined): unknown {
  if (schema === undefined) return value;
  if (Array.isArray(value)) return value.map((item) => applyDefaults(item, childSchema(schema, 'items')));
  if (!isRecord(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) out[key] = applyDefaults(v, propertySchema(schema, key));
  const properties = schema.properties;
  if (isRecord(properties)) {
    for (const [key, child] of Object.entries(properties)) {
      if (!(key in out) && isRecord(child) && 'default' in child) out[key] = child.default;
    }
  }
  return out;
}

function fieldPath(parent: string, key: string): string {
  return parent === '<root>' ? key : `${parent}.${key}`;
}

function walk(value: unknown, schema: Schema, path: string, violations: CelViolation[]): void {
  const atRoot = path === '<root>';
  for (const { rule, message } of rulesAt(schema)) {
    const result = compile(rule, path)(toCel(value, schema, atRoot));
    if (result === true) continue;
    violations.push({
      path,
      rule,
      message: message ?? `failed rule: ${rule}`,
      ...(isCelError(result) ? { evaluationError: result.message } : {}),
    });
  }
  if (Array.isArray(value)) {
    const items = childSchema(schema, 'items');
    if (items !== undefined)
      value.forEach((item, i) => {
        walk(item, items, `${path}[${String(i)}]`, violations);
      });
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, child] of Object.entries(value)) {
    // Metadata is validated by the API server itself; the CRD schema only declares its type.
    if (atRoot && key === 'metadata') continue;
    const childSchemaNode = propertySchema(schema, key);
    if (childSchemaNode !== undefined) walk(child, childSchemaNode, fieldPath(path, key), violations);
  }
}

/** Every CEL rule of `openAPIV3Schema` that `object` breaks, in document order. */
export function evaluateCelRules(
  openAPIV3Schema: unknown,
  object: unknown,
  options: { defaults?: boolean } = {},
): CelViolation[] {
  if (!isRecord(openAPIV3Schema)) throw new TypeError('openAPIV3Schema must be an object');
  const value = options.defaults === false ? object : applyDefaults(object, openAPIV3Schema);
  const violations: CelViolation[] = [];
  walk(value, openAPIV3Schema, '<root>', violations);
  return violations;
}

/** Every rule declared anywhere in a schema, with the path of the node that holds it. */
export function collectCelRules(openAPIV3Schema: unknown, path = '<root>'): { path: string; rule: CelRule }[] {
  if (!isRecord(openAPIV3Schema)) return [];
  const found = rulesAt(openAPIV3Schema).map((rule) => ({ path, rule }));
  const items = childSchema(openAPIV3Schema, 'items');
  if (items !== undefined) found.push(...collectCelRules(items, `${path}[*]`));
  const properties = openAPIV3Schema.properties;
  if (isRecord(properties)) {
    for (const [key, child] of Object.entries(properties)) found.push(...collectCelRules(child, fieldPath(path, key)));
  }
  return found;
}

/** The openAPIV3Schema of the first (only) version of a CRD object, typed loosely on purpose. */
/** The schema of the CRD's version named `version`, or of its first version. */
export function openApiSchemaOf(crd: unknown, version?: string): Schema {
  const versions = isRecord(crd) && isRecord(crd.spec) ? crd.spec.versions : undefined;
  const list = Array.isArray(versions) ? (versions as unknown[]) : [];
  const chosen = version === undefined ? list[0] : list.find((v) => isRecord(v) && v.name === version);
  const schema = isRecord(chosen) && isRecord(chosen.schema) ? chosen.schema.openAPIV3Schema : undefined;
  if (!isRecord(schema)) throw new TypeError(`not a CRD with a ${version ?? 'first'} version schema`);
  return schema;
}

export interface ListMapDuplicate {
  /** Path of the later item, as the API server reports `Duplicate value`. */
  readonly path: string;
  readonly key: Readonly<Record<string, unknown>>;
}

/**
 * The API server's own check for `x-kubernetes-list-type: map`: no two items may share their
 * `x-kubernetes-list-map-keys` values. Not CEL, but the part of ADR 67's rules it replaces.
 */
export function findListMapDuplicates(openAPIV3Schema: unknown, object: unknown, path = '<root>'): ListMapDuplicate[] {
  if (!isRecord(openAPIV3Schema)) return [];
  const found: ListMapDuplicate[] = [];
  if (Array.isArray(object)) {
    const items = childSchema(openAPIV3Schema, 'items');
    const keys = openAPIV3Schema['x-kubernetes-list-map-keys'];
    if (openAPIV3Schema['x-kubernetes-list-type'] === 'map' && Array.isArray(keys)) {
      const seen = new Set<string>();
      object.forEach((item: unknown, i) => {
        const key = Object.fromEntries(keys.map((k) => [String(k), isRecord(item) ? item[String(k)] : undefined]));
        const id = JSON.stringify(key);
        if (seen.has(id)) found.push({ path: `${path}[${String(i)}]`, key });
        seen.add(id);
      });
    }
    object.forEach((item: unknown, i) => found.push(...findListMapDuplicates(items, item, `${path}[${String(i)}]`)));
    return found;
  }
  if (!isRecord(object)) return found;
  for (const [key, child] of Object.entries(object)) {
    found.push(...findListMapDuplicates(propertySchema(openAPIV3Schema, key), child, fieldPath(path, key)));
  }
  return found;
}
