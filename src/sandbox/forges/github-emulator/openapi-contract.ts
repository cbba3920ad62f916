// GitHub's official REST description (npm `@octokit/openapi`, `api.github.com`) as a contract the
// emulator is held to: each request is matched to a documented operation, its parameters and JSON
// body are checked against that operation's schemas, and so is every JSON response the emulator
// sends back. The 13 MB description is read once per process; validators are compiled per
// operation on first use, because compiling the whole description would take far longer than the
// handful of operations a test run touches.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = Record<string, Json>;

export interface MatchedOperation {
  readonly operationId: string;
  readonly method: string;
  /** The documented path, e.g. `/repos/{owner}/{repo}/pulls/{pull_number}`. */
  readonly template: string;
  readonly pathParams: Readonly<Record<string, string>>;
  /** JSON pointer of the operation object inside the description. */
  readonly pointer: string;
}

interface PathTemplate {
  readonly template: string;
  readonly pattern: RegExp;
  readonly names: readonly string[];
  /** Literal segments win over parameters: `/pulls/comments` is not `/pulls/{pull_number}`. */
  readonly literalSegments: number;
}

const DOCUMENT_ID = 'api.github.com';

export class OpenApiContract {
  readonly #document: JsonObject;
  readonly #templates: PathTemplate[];
  /** Bodies and responses: JSON types as sent. */
  readonly #ajv: Ajv;
  /** Path and query parameters arrive as strings; this instance coerces them to the documented type. */
  readonly #parameterAjv: Ajv;
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(document: JsonObject) {
    this.#document = document;
    this.#templates = Object.keys(objectAt(document, 'paths')).map(compileTemplate);
    this.#ajv = newAjv(document, false);
    this.#parameterAjv = newAjv(document, true);
  }

  /** The documented operation for `method` on `pathname` (relative to the API root), if any. */
  match(method: string, pathname: string): MatchedOperation | undefined {
    const lower = method.toLowerCase();
    let best: { template: PathTemplate; params: Record<string, string> } | undefined;
    for (const template of this.#templates) {
      const found = template.pattern.exec(pathname);
      if (found === null) continue;
      const pathItem = objectAt(objectAt(this.#document, 'paths'), template.template);
      if (!isObject(pathItem[lower])) continue;
      if (best !== undefined && best.template.literalSegments >= template.literalSegments) continue;
      const params: Record<string, string> = {};
      template.names.forEach((name, index) => {
        params[name] = decodeURIComponent(found[index + 1] ?? '');
      });
      best = { template, params };
    }
    if (best === undefined) return undefined;
    const pointer = `/paths/${escapePointer(best.template.template)}/${lower}`;
    const operation = this.#resolve(pointer).value;
    const operationId = typeof operation.operationId === 'string' ? operation.operationId : `${lower} ${pathname}`;
    return { operationId, method: lower, template: best.template.template, pathParams: best.params, pointer };
  }

  /** Problems with the path and query parameters, each naming the parameter. */
  checkParameters(operation: MatchedOperation, query: URLSearchParams): string[] {
    const problems: string[] = [];
    const declared = this.#parameters(operation);
    const values: Record<string, Record<string, Json>> = { path: { ...operation.pathParams }, query: {} };
    for (const name of new Set(query.keys())) {
      const parameter = declared.find((candidate) => candidate.in === 'query' && candidate.name === name);
      if (parameter === undefined) {
        problems.push(`query parameter ${JSON.stringify(name)} is not documented for ${operation.operationId}`);
        continue;
      }
      const all = query.getAll(name);
      values.query = { ...values.query, [name]: all.length === 1 ? (all[0] ?? '') : all };
    }
    for (const parameter of declared) {
      if (parameter.in !== 'path' && parameter.in !== 'query') continue;
      const bag = values[parameter.in] ?? {};
      if (!(parameter.name in bag)) {
        if (parameter.required) problems.push(`${parameter.in} parameter ${parameter.name} is required`);
        continue;
      }
      const validate = this.#validator(this.#parameterAjv, `${parameter.schemaPointer}#parameter`);
      const holder = { value: bag[parameter.name] ?? null };
      // Validate inside a holder so that ajv's coercion has a parent to write the coerced value to.
      if (!validate(holder)) problems.push(describe(`${parameter.in} parameter ${parameter.name}`, validate));
    }
    return problems;
  }

  /** Problems with the JSON request body, or [] when it conforms (or the operation takes none). */
  checkRequestBody(operation: MatchedOperation, body: unknown): string[] {
    const requestBody = this.#resolve(`${operation.pointer}/requestBody`, true);
    if (requestBody === undefined) {
      return body === undefined ? [] : [`${operation.operationId} takes no request body`];
    }
    if (body === undefined) {
      return requestBody.value.required === true ? [`${operation.operationId} requires a JSON body`] : [];
    }
    const schemaPointer = `${requestBody.pointer}/content/application~1json/schema`;
    if (this.#resolve(schemaPointer, true) === undefined) return [`${operation.operationId} takes no JSON body`];
    const validate = this.#validator(this.#ajv, schemaPointer);
    return validate(body) ? [] : [describe(`${operation.operationId} request body`, validate)];
  }

  /**
   * Problems with a JSON response. A status the operation does not document must be an error
   * status with GitHub's generic error body: GitHub answers 401, 404 and 429 on every operation
   * but documents them on few.
   */
  checkResponse(operation: MatchedOperation, status: number, body: unknown): string[] {
    const response = this.#resolve(`${operation.pointer}/responses/${String(status)}`, true);
    let schemaPointer: string;
    if (response === undefined) {
      if (status < 400) return [`${operation.operationId} does not document status ${String(status)}`];
      schemaPointer = '/components/schemas/basic-error';
    } else {
      const content = `${response.pointer}/content/application~1json/schema`;
      if (this.#resolve(content, true) === undefined) {
        return body === undefined ? [] : [`${operation.operationId} ${String(status)} documents no JSON body`];
      }
      schemaPointer = content;
    }
    if (body === undefined) return [`${operation.operationId} ${String(status)} needs a JSON body`];
    const validate = this.#validator(this.#ajv, schemaPointer);
    return validate(body) ? [] : [describe(`${operation.operationId} ${String(status)} response`, validate)];
  }

  #parameters(operation: MatchedOperation): { name: string; in: string; required: boolean; schemaPointer: string }[] {
    const pathPointer = operation.pointer.slice(0, operation.pointer.lastIndexOf('/'));
    const result: { name: string; in: string; required: boolean; schemaPointer: string }[] = [];
    for (const listPointer of [`${pathPointer}/parameters`, `${operation.pointer}/parameters`]) {
      const list = this.#pointerValue(listPointer);
      if (!Array.isArray(list)) continue;
      list.forEach((_, index) => {
        const parameter = this.#resolve(`${listPointer}/${String(index)}`);
        const { name, in: location, required } = parameter.value;
        if (typeof name !== 'string' || typeof location !== 'string') return;
        result.push({ name, in: location, required: required === true, schemaPointer: `${parameter.pointer}/schema` });
      });
    }
    return result;
  }

  #validator(ajv: Ajv, key: string): ValidateFunction {
    const cacheKey = `${ajv === this.#ajv ? 'json' : 'param'} ${key}`;
    const cached = this.#compiled.get(cacheKey);
    if (cached !== undefined) return cached;
    const [pointer = '', mode] = key.split('#');
    const target = { $ref: `${DOCUMENT_ID}#${pointer}` };
    const schema =
      mode === 'parameter' ? { type: 'object', properties: { value: target }, required: ['value'] } : target;
    const validate = ajv.compile(schema);
    this.#compiled.set(cacheKey, validate);
    return validate;
  }

  /** Follows OpenAPI `$ref`s (parameters, responses, request bodies) to the object they name. */
  #resolve(pointer: string, optional: true): { pointer: string; value: JsonObject } | undefined;
  #resolve(pointer: string): { pointer: string; value: JsonObject };
  #resolve(pointer: string, optional = false): { pointer: string; value: JsonObject } | undefined {
    let current = pointer;
    for (let hops = 0; hops < 10; hops++) {
      const value = this.#pointerValue(current);
      if (!isObject(value)) {
        if (optional) return undefined;
        throw new Error(`OpenAPI description has no object at ${current}`);
      }
      const ref = value.$ref;
      if (typeof ref !== 'string') return { pointer: current, value };
      current = ref.replace(/^#/, '');
    }
    throw new Error(`OpenAPI description: $ref chain too long at ${pointer}`);
  }

  #pointerValue(pointer: string): Json | undefined {
    let value: Json | undefined = this.#document;
    for (const part of pointer.split('/').slice(1)) {
      if (!isObject(value) && !Array.isArray(value)) return undefined;
      const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
      value = Array.isArray(value) ? value[Number(key)] : value[key];
    }
    return value;
  }
}

let shared: OpenApiContract | undefined;

/** The contract for api.github.com, loaded on first use and then shared by every emulator. */
export function gitHubContract(): OpenApiContract {
  if (shared !== undefined) return shared;
  const require = createRequire(import.meta.url);
  const path = require.resolve('@octokit/openapi/generated/api.github.com.json');
  const document: unknown = JSON.parse(readFileSync(path, 'utf8'));
  if (!isObject(document) || !isObject(document.paths) || !isObject(document.components)) {
    throw new Error(`${path} is not an OpenAPI description`);
  }
  shared = new OpenApiContract(toJsonSchemaDialect(document) as JsonObject);
  return shared;
}

function newAjv(document: JsonObject, coerceTypes: boolean): Ajv {
  // strict off: the description carries OpenAPI-only keywords (example, discriminator, x-*) and
  // GitHub's own formats (`repo.nwo`), which are annotations here.
  const ajv = new Ajv({ strict: false, allErrors: true, logger: false, validateSchema: false, coerceTypes });
  addFormats.default(ajv);
  ajv.addSchema(document, DOCUMENT_ID);
  return ajv;
}

/**
 * OpenAPI 3.0's `nullable: true` has no JSON Schema equivalent that ajv accepts next to `oneOf`
 * or `$ref`, so every nullable schema becomes `anyOf: [schema, {type: null}]`. Copies; the
 * description itself is not changed. Shared with the GitLab emulator (also OpenAPI 3.0).
 */
export function toJsonSchemaDialect(value: Json): Json {
  if (Array.isArray(value)) return value.map(toJsonSchemaDialect);
  if (!isObject(value)) return value;
  const copy: JsonObject = {};
  for (const [key, inner] of Object.entries(value)) {
    if (key !== 'nullable') copy[key] = toJsonSchemaDialect(inner);
  }
  return value.nullable === true ? { anyOf: [copy, { type: 'null' }] } : copy;
}

function compileTemplate(template: string): PathTemplate {
  const names: string[] = [];
  let literalSegments = 0;
  const source = template
    .split('/')
    .map((segment) => {
      if (!segment.includes('{')) {
        literalSegments++;
        return escapeRegExp(segment);
      }
      return segment
        .split(/(\{[^}]+\})/)
        .map((piece) => {
          const name = /^\{([^}]+)\}$/.exec(piece)?.[1];
          if (name === undefined) return escapeRegExp(piece);
          names.push(name);
          return '([^/]+)';
        })
        .join('');
    })
    .join('/');
  return { template, pattern: new RegExp(`^${source}$`), names, literalSegments };
}

function describe(subject: string, validate: ValidateFunction): string {
  const details = (validate.errors ?? [])
    .slice(0, 5)
    .map((error) => `${error.instancePath || '/'} ${error.message ?? 'is invalid'}`)
    .join('; ');
  return `${subject}: ${details}`;
}

function objectAt(value: JsonObject, key: string): JsonObject {
  const inner = value[key];
  if (!isObject(inner)) throw new Error(`OpenAPI description: ${key} is not an object`);
  return inner;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function escapePointer(key: string): string {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
