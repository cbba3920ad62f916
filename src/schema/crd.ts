// Schema -> CustomResourceDefinition. The TypeBox schemas are the single source of truth; this module
// turns one into the structural OpenAPI v3 schema the API server accepts, and wraps it in an
// apiextensions.k8s.io/v1 CRD. Pure: rendering to YAML is here too so tests can compare the
// committed files in deploy/crds/ with what would be generated, without touching the disk.
import type { TSchema } from 'typebox';
import { stringify } from 'yaml';
import { CHANGE_GROUP_GROUP, CHANGE_GROUP_KIND, CHANGE_GROUP_VERSION, ChangeGroup } from './changegroup.ts';
import {
  NUDGE_CONFIG_GROUP,
  NUDGE_CONFIG_KIND,
  NUDGE_CONFIG_NAME,
  NUDGE_CONFIG_VERSION,
  NudgeConfig,
} from './nudgeconfig.ts';
import { KUBERNETES_SCHEMA_EXTENSIONS } from './common.ts';
import { isRecord } from './json.ts';
import { UPSTREAM_KONFLUX_NUDGE_CONFIG_VERSION, UpstreamKonfluxNudgeConfig } from './upstream-nudgeconfig.ts';

export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  readonly jsonPath: string;
  readonly description?: string;
  /** 0 shows in `kubectl get`; higher values only with `-o wide`. */
  readonly priority?: number;
}

/** A version served beside the storage version; conversion is `None`, so its fields must be the same. */
export interface ServedVersion {
  readonly version: string;
  /** The whole object schema of this version. */
  readonly schema: TSchema;
  /** The module holding `schema`, named in the generated file's header. */
  readonly schemaSource: string;
}

export interface CrdDefinition {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames?: readonly string[];
  readonly listKind: string;
  readonly scope: 'Namespaced' | 'Cluster';
  /** The whole object schema (apiVersion, kind, metadata, spec, status). */
  readonly schema: TSchema;
  /** The module holding `schema`, named in the generated file's header. */
  readonly schemaSource: string;
  readonly printerColumns?: readonly PrinterColumn[];
  readonly statusSubresource: boolean;
  readonly categories?: readonly string[];
  /**
   * Further versions served from the same stored objects (`version` above is the storage one).
   * Same printer columns and subresources.
   */
  readonly servedVersions?: readonly ServedVersion[];
}

/** A schema keyword the API server does not accept and that has no structural equivalent. */
export class UnsupportedSchemaError extends Error {
  readonly schemaPath: string;
  readonly keyword: string;
  constructor(schemaPath: string, keyword: string, reason: string) {
    super(`schema at ${schemaPath === '' ? '<root>' : schemaPath}: ${reason} (keyword "${keyword}")`);
    this.name = 'UnsupportedSchemaError';
    this.schemaPath = schemaPath;
    this.keyword = keyword;
  }
}

/**
 * Keywords copied unchanged into the CRD. Everything else is either translated below or refused,
 * so a schema feature the API server would reject fails generation instead of `kubectl apply`.
 */
const KEPT_KEYWORDS = new Set([
  'type',
  'description',
  'title',
  'format',
  'default',
  'enum',
  'required',
  'nullable',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'example',
  ...KUBERNETES_SCHEMA_EXTENSIONS,
]);

/** JSON-Schema bookkeeping with no meaning to the API server. */
const DROPPED_KEYWORDS = new Set(['$id', '$schema', '$comment', 'examples']);

/**
 * The fields every object has. The API server validates metadata itself (and only lets CEL see
 * name and generateName), so like controller-gen we declare just their types.
 */
const ROOT_TYPE_FIELDS: Readonly<Record<string, Record<string, unknown>>> = {
  apiVersion: { type: 'string' },
  kind: { type: 'string' },
  metadata: { type: 'object' },
};

type JsonObject = Record<string, unknown>;

function childPath(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

/**
 * Turns a nudger JSON Schema into a structural OpenAPI v3 schema: every level typed, no
 * `additionalProperties: false` (structural schemas prune unknown fields instead, and the API
 * server forbids `additionalProperties` beside `properties`), `const` and literal unions as enums,
 * and the root's apiVersion/kind/metadata reduced to their types. Only enumerable keys are read, so
 * TypeBox's hidden markers never leak into the CRD.
 */
export function toStructuralSchema(schema: unknown): unknown {
  const root = convertNode(schema, '');
  if (!isRecord(root) || !isRecord(root.properties)) return root;
  const properties: JsonObject = { ...root.properties };
  for (const [field, replacement] of Object.entries(ROOT_TYPE_FIELDS)) {
    if (field in properties) properties[field] = { ...replacement };
  }
  // The API server fills these in itself, so requiring them says nothing (controller-gen omits it).
  const required = Array.isArray(root.required)
    ? root.required.filter((field) => !(String(field) in ROOT_TYPE_FIELDS))
    : [];
  const { required: _dropped, ...rest } = root;
  return { ...rest, ...(required.length === 0 ? {} : { required }), properties };
}

function convertNode(node: unknown, path: string): unknown {
  if (!isRecord(node)) throw new UnsupportedSchemaError(path, 'type', 'a schema must be an object');
  const out: JsonObject = {};
  for (const [keyword, value] of Object.entries(node)) {
    const handled = convertKeyword(node, keyword, value, path);
    if (handled !== undefined) Object.assign(out, handled);
  }
  if (
    out.type === undefined &&
    out['x-kubernetes-int-or-string'] !== true &&
    out['x-kubernetes-preserve-unknown-fields'] !== true
  ) {
    throw new UnsupportedSchemaError(path, 'type', 'structural schemas need a type at every level');
  }
  return out;
}

/** The CRD keywords one source keyword becomes, or undefined when it is dropped. */
function convertKeyword(node: JsonObject, keyword: string, value: unknown, path: string): JsonObject | undefined {
  if (KEPT_KEYWORDS.has(keyword)) return { [keyword]: value };
  if (DROPPED_KEYWORDS.has(keyword)) return undefined;
  switch (keyword) {
    case 'const':
      return { enum: [value], ...(node.type === undefined ? { type: jsonTypeOf(value, path) } : {}) };
    case 'anyOf':
      return literalUnionToEnum(value, path);
    case 'properties':
      return { properties: convertProperties(value, path) };
    case 'items':
      return { items: convertNode(value, childPath(path, 'items')) };
    case 'additionalProperties':
      return convertAdditionalProperties(node, value, path);
    case 'patternProperties':
      return convertPatternProperties(node, value, path);
    default:
      throw new UnsupportedSchemaError(path, keyword, 'not supported in CustomResourceDefinition schemas');
  }
}

function convertProperties(value: unknown, path: string): JsonObject {
  if (!isRecord(value)) throw new UnsupportedSchemaError(path, 'properties', 'must be an object');
  const out: JsonObject = {};
  for (const [name, propertySchema] of Object.entries(value)) {
    out[name] = convertNode(propertySchema, childPath(path, name));
  }
  return out;
}

function convertAdditionalProperties(node: JsonObject, value: unknown, path: string): JsonObject | undefined {
  // `false` is what pruning does anyway; `true` (keep unknown fields) is spelled
  // preserve-unknown-fields in CRDs, which unlike additionalProperties may sit beside properties.
  if (value === false) return undefined;
  if (value === true) return { 'x-kubernetes-preserve-unknown-fields': true };
  if (node.properties !== undefined) {
    throw new UnsupportedSchemaError(
      path,
      'additionalProperties',
      'the API server forbids additionalProperties together with properties',
    );
  }
  return { additionalProperties: convertNode(value, childPath(path, 'additionalProperties')) };
}

/** TypeBox writes `Record<string, T>` as `patternProperties: {'^.*$': T}`: a map of T in CRD terms. */
function convertPatternProperties(node: JsonObject, value: unknown, path: string): JsonObject {
  const [only, ...more] = isRecord(value) ? Object.entries(value) : [];
  if (only?.[0] !== '^.*$' || more.length > 0 || node.properties !== undefined) {
    throw new UnsupportedSchemaError(
      path,
      'patternProperties',
      'only a match-everything pattern (a map) has a CRD equivalent',
    );
  }
  return { additionalProperties: convertNode(only[1], childPath(path, 'additionalProperties')) };
}

/** `anyOf: [{const: a}, {const: b}]` (a TypeBox union of literals) is an enum of one type. */
function literalUnionToEnum(value: unknown, path: string): JsonObject {
  if (!Array.isArray(value) || value.length === 0)
    throw new UnsupportedSchemaError(path, 'anyOf', 'must be a non-empty list');
  const literals = value.map((branch: unknown) => {
    if (!isRecord(branch) || !('const' in branch)) {
      throw new UnsupportedSchemaError(path, 'anyOf', 'only unions of literals can be expressed (as an enum)');
    }
    return branch.const;
  });
  const types = new Set(literals.map((literal) => jsonTypeOf(literal, path)));
  const [type] = types;
  if (types.size !== 1 || type === undefined)
    throw new UnsupportedSchemaError(path, 'anyOf', 'enum values must share one type');
  return { type, enum: literals };
}

function jsonTypeOf(value: unknown, path: string): string {
  if (typeof value === 'string') return 'string';
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  throw new UnsupportedSchemaError(path, 'const', `literal ${JSON.stringify(value)} has no scalar type`);
}

/** The apiextensions.k8s.io/v1 CustomResourceDefinition for `def`, as plain data. */
export function toCustomResourceDefinition(def: CrdDefinition): Record<string, unknown> {
  const names: JsonObject = {
    kind: def.kind,
    listKind: def.listKind,
    plural: def.plural,
    singular: def.singular,
    ...(def.shortNames === undefined ? {} : { shortNames: [...def.shortNames] }),
    ...(def.categories === undefined ? {} : { categories: [...def.categories] }),
  };
  const version = (name: string, schema: TSchema, storage: boolean): JsonObject => ({
    name,
    served: true,
    storage,
    schema: { openAPIV3Schema: toStructuralSchema(schema) },
    ...(def.printerColumns === undefined
      ? {}
      : { additionalPrinterColumns: def.printerColumns.map((column) => ({ ...column })) }),
    ...(def.statusSubresource ? { subresources: { status: {} } } : {}),
  });
  const more = def.servedVersions ?? [];
  const versions = [
    version(def.version, def.schema, true),
    ...more.map((served) => version(served.version, served.schema, false)),
  ];
  // `None` is the default, but a multi-version CRD says it: the versions share every field, so the
  // API server only rewrites apiVersion, and no conversion webhook is needed.
  const conversion = more.length === 0 ? {} : { conversion: { strategy: 'None' } };
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${def.plural}.${def.group}`,
      labels: { 'app.kubernetes.io/part-of': 'nudger' },
    },
    spec: { group: def.group, names, scope: def.scope, ...conversion, versions },
  };
}

/** The file a CRD is written to inside deploy/crds/, named like controller-gen names its output. */
export function crdFileName(def: CrdDefinition): string {
  return `${def.group}_${def.plural}.yaml`;
}

// Long lines are kept whole (lineWidth 0) so that CEL rules stay greppable; keys are sorted like
// controller-gen's output so that diffs of regenerated files stay small; single quotes because that
// is what prettier (which checks every YAML file in the repo) would rewrite them to. Versions share
// schema fragments (the same CEL rule objects), which must be written out, not as YAML aliases.
const YAML_OPTIONS = {
  sortMapEntries: true,
  lineWidth: 0,
  indent: 2,
  singleQuote: true,
  aliasDuplicateObjects: false,
} as const;

export function generatedHeader(source: string): string {
  return `# Generated from ${source}; do not edit. Run \`npm run gen:crds\` after changing the schema.\n`;
}

/** The exact text of deploy/crds/<group>_<plural>.yaml. */
export function renderCrdYaml(def: CrdDefinition): string {
  const sources = [def.schemaSource, ...(def.servedVersions ?? []).map((served) => served.schemaSource)];
  const source = [...new Set(sources)].join(' and ');
  return `${generatedHeader(source)}---\n${stringify(toCustomResourceDefinition(def), YAML_OPTIONS)}`;
}

/** The exact text of deploy/crds/kustomization.yaml for a set of CRDs. */
export function renderCrdKustomization(defs: readonly CrdDefinition[]): string {
  const kustomization = {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    resources: defs.map(crdFileName).sort(),
  };
  return `${generatedHeader('src/schema/crd.ts (CRDS)')}${stringify(kustomization, YAML_OPTIONS)}`;
}

/** Every file of deploy/crds/, by file name. */
export function renderCrdDirectory(defs: readonly CrdDefinition[]): ReadonlyMap<string, string> {
  const files = new Map<string, string>();
  for (const def of defs) files.set(crdFileName(def), renderCrdYaml(def));
  files.set('kustomization.yaml', renderCrdKustomization(defs));
  return files;
}

const VALID_CONDITION = `.status.conditions[?(@.type=="Valid")]`;

export const NUDGE_CONFIG_CRD: CrdDefinition = {
  group: NUDGE_CONFIG_GROUP,
  version: NUDGE_CONFIG_VERSION,
  kind: NUDGE_CONFIG_KIND,
  plural: 'nudgeconfigs',
  singular: 'nudgeconfig',
  shortNames: ['nc'],
  listKind: `${NUDGE_CONFIG_KIND}List`,
  scope: 'Namespaced',
  schema: NudgeConfig,
  schemaSource: 'src/schema/nudgeconfig.ts',
  // D1: integration-service's NudgeConfig lives in this group too, as v1beta2. Two CRDs of one
  // name cannot coexist, so this one serves both, from the same stored objects.
  servedVersions: [
    {
      version: UPSTREAM_KONFLUX_NUDGE_CONFIG_VERSION,
      schema: UpstreamKonfluxNudgeConfig,
      schemaSource: 'src/schema/upstream-nudgeconfig.ts',
    },
  ],
  categories: ['konflux', 'nudger'],
  statusSubresource: true,
  // JSONPath cannot count list items, so the entry count is not a column; `kubectl get nc` shows
  // whether the graph is valid and why, which is what a user looking at the singleton wants.
  printerColumns: [
    {
      name: 'Valid',
      type: 'string',
      jsonPath: `${VALID_CONDITION}.status`,
      description: `Whether every referenced Component exists (${NUDGE_CONFIG_NAME} is a singleton)`,
    },
    { name: 'Reason', type: 'string', jsonPath: `${VALID_CONDITION}.reason` },
    { name: 'Last Validated', type: 'date', jsonPath: '.status.lastValidationTime', priority: 1 },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};

export const CHANGE_GROUP_CRD: CrdDefinition = {
  group: CHANGE_GROUP_GROUP,
  version: CHANGE_GROUP_VERSION,
  kind: CHANGE_GROUP_KIND,
  plural: 'changegroups',
  singular: 'changegroup',
  // Not `cg` (docs/decisions.md D1): integration-service's ComponentGroup holds `cg` in the same API group,
  // and the API server refuses a CRD whose short name another CRD of its group already uses
  // (NamesAccepted=False), so ChangeGroup could not be installed on a Konflux cluster.
  shortNames: ['chg'],
  listKind: `${CHANGE_GROUP_KIND}List`,
  scope: 'Namespaced',
  schema: ChangeGroup,
  schemaSource: 'src/schema/changegroup.ts',
  categories: ['konflux', 'nudger'],
  statusSubresource: true,
  // JSONPath cannot count the Ready items of status.components, so the controller writes
  // status.summary (`3/30`) for the Ready column.
  printerColumns: [
    { name: 'Phase', type: 'string', jsonPath: '.status.phase' },
    { name: 'Nudged', type: 'string', jsonPath: '.spec.nudgedComponent', description: 'The component rebuilt once' },
    { name: 'Ready', type: 'string', jsonPath: '.status.summary', description: 'Ready / all nudging components' },
    { name: 'Pull Request', type: 'string', jsonPath: '.status.pullRequestURL' },
    { name: 'Skip CI', type: 'string', jsonPath: '.spec.skipCi', priority: 1 },
    { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
  ],
};

/** Every CRD nudger ships; gen-crds writes one file per entry. */
export const CRDS: readonly CrdDefinition[] = [NUDGE_CONFIG_CRD, CHANGE_GROUP_CRD];
