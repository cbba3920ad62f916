// A model of the API server's static CEL cost estimate (cel-go checker/cost.go, as used by
// apiextensions-apiserver when a CRD is created), for the expression forms nudger's rules and
// upstream's rules use. It exists to back docs/crd-validation.md with computed figures: the
// worst-case cost of a rule follows from the schema's size limits (maxItems, maxLength, enum), and
// the API server refuses a CRD whose rule exceeds StaticEstimatedCostLimit.
//
// It is a model, not the real estimator: it mirrors cel-go's rules for identifiers (1), field
// selection on objects (1), presence tests (1), constants (0), logical operators (sum of operands),
// the ternary (condition + the dearer branch), string comparison (ceil(0.1 * shorter max length)),
// other operators and size() (1), and comprehensions (range + init + result + size(range) *
// (condition + step)). Anything else is refused rather than guessed.
import { parse } from '@bufbuild/cel';

/** apiextensions-apiserver: the largest static cost one rule may have. */
export const STATIC_ESTIMATED_COST_LIMIT = 10_000_000;
/** apiextensions-apiserver: the largest total, each rule's cost times how often it can run. */
export const STATIC_ESTIMATED_CRD_COST_LIMIT = 100_000_000;
const STRING_TRAVERSAL_COST_FACTOR = 0.1;
/** ObjectMeta name: a DNS-1123 subdomain. */
const METADATA_NAME_MAX_LENGTH = 253;

type Expr = ReturnType<typeof parse>['expr'];
type Schema = Record<string, unknown>;
type Kind = 'object' | 'list' | 'string' | 'int' | 'bool' | 'dyn';

interface Shape {
  readonly kind: Kind;
  /** Worst-case size: characters of a string, items of a list, 1 for scalars. */
  readonly maxSize: number;
  /** The schema node the value comes from, when it comes from `self`. */
  readonly schema?: Schema;
}

export class CelCostModelError extends Error {
  constructor(rule: string, what: string) {
    super(`cannot estimate ${JSON.stringify(rule)}: ${what}`);
    this.name = 'CelCostModelError';
  }
}

function isRecord(value: unknown): value is Schema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function shapeOfSchema(schema: Schema | undefined): Shape {
  if (schema === undefined) return { kind: 'dyn', maxSize: Number.POSITIVE_INFINITY };
  switch (schema.type) {
    case 'object':
      return { kind: 'object', maxSize: Number.POSITIVE_INFINITY, schema };
    case 'array':
      return {
        kind: 'list',
        maxSize: typeof schema.maxItems === 'number' ? schema.maxItems : Number.POSITIVE_INFINITY,
        schema,
      };
    case 'string': {
      const enumValues = Array.isArray(schema.enum) ? (schema.enum as unknown[]).map((v) => String(v).length) : [];
      const max =
        typeof schema.maxLength === 'number'
          ? schema.maxLength
          : enumValues.length > 0
            ? Math.max(...enumValues)
            : Number.POSITIVE_INFINITY;
      return { kind: 'string', maxSize: max, schema };
    }
    case 'integer':
      return { kind: 'int', maxSize: 1, schema };
    case 'boolean':
      return { kind: 'bool', maxSize: 1, schema };
    default:
      return { kind: 'dyn', maxSize: Number.POSITIVE_INFINITY, schema };
  }
}

/** CEL sees metadata.name at the root even though the CRD only declares `metadata: {type: object}`. */
const ROOT_METADATA: Shape = {
  kind: 'object',
  maxSize: Number.POSITIVE_INFINITY,
  schema: { type: 'object', properties: { name: { type: 'string', maxLength: METADATA_NAME_MAX_LENGTH } } },
};

function propertyShape(parent: Shape, field: string): Shape {
  const properties = parent.schema?.properties;
  return shapeOfSchema(isRecord(properties) && isRecord(properties[field]) ? properties[field] : undefined);
}

/** CEL's size() of a string: Unicode code points, not UTF-16 units. */
function codePoints(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

class Estimator {
  readonly #rule: string;
  readonly #scopes: Map<string, Shape>[] = [];
  readonly #crdRoot: Schema | undefined;

  constructor(rule: string, self: Schema, atCrdRoot: boolean) {
    this.#rule = rule;
    this.#crdRoot = atCrdRoot ? self : undefined;
    this.#scopes.push(new Map([['self', shapeOfSchema(self)]]));
  }

  #fail(what: string): never {
    throw new CelCostModelError(this.#rule, what);
  }

  #lookup(name: string): Shape {
    for (let i = this.#scopes.length - 1; i >= 0; i -= 1) {
      const found = this.#scopes[i]?.get(name);
      if (found !== undefined) return found;
    }
    return this.#fail(`unknown identifier ${name}`);
  }

  /** [cost, shape] of an expression. */
  estimate(expr: Expr): [number, Shape] {
    const kind = expr.exprKind;
    switch (kind.case) {
      case 'constExpr': {
        const c = kind.value.constantKind;
        if (c.case === 'stringValue') return [0, { kind: 'string', maxSize: codePoints(c.value) }];
        if (c.case === 'boolValue') return [0, { kind: 'bool', maxSize: 1 }];
        if (c.case === 'int64Value') return [0, { kind: 'int', maxSize: 1 }];
        return this.#fail(`constant ${String(c.case)}`);
      }
      case 'identExpr':
        return [1, this.#lookup(kind.value.name)];
      case 'selectExpr': {
        const { operand, field, testOnly } = kind.value;
        if (operand === undefined) return this.#fail('select without operand');
        const [operandCost, operandShape] = this.estimate(operand);
        if (testOnly) return [1 + operandCost, { kind: 'bool', maxSize: 1 }];
        const selectCost = operandShape.kind === 'object' ? 1 : 0;
        const isRootMetadata =
          field === 'metadata' && operandShape.schema !== undefined && operandShape.schema === this.#crdRoot;
        return [operandCost + selectCost, isRootMetadata ? ROOT_METADATA : propertyShape(operandShape, field)];
      }
      case 'callExpr':
        return this.#call(kind.value.function, kind.value.args, kind.value.target);
      case 'comprehensionExpr':
        return this.#comprehension(kind.value);
      default:
        return this.#fail(`expression kind ${String(kind.case)}`);
    }
  }

  #call(fn: string, args: Expr[], target: Expr | undefined): [number, Shape] {
    const all = target === undefined ? args : [target, ...args];
    const estimated = all.map((a) => this.estimate(a));
    const costs = estimated.map(([c]) => c);
    const shapes = estimated.map(([, s]) => s);
    const sum = costs.reduce((a, b) => a + b, 0);
    const bool: Shape = { kind: 'bool', maxSize: 1 };
    switch (fn) {
      case '_&&_':
      case '_||_':
        return [sum, bool];
      case '_?_:_':
        return [(costs[0] ?? 0) + Math.max(costs[1] ?? 0, costs[2] ?? 0), shapes[1] ?? bool];
      case '_==_':
      case '_!=_': {
        const smallestMax = Math.min(shapes[0]?.maxSize ?? 0, shapes[1]?.maxSize ?? 0);
        return [Math.ceil(smallestMax * STRING_TRAVERSAL_COST_FACTOR) + sum, bool];
      }
      case '_<_':
      case '_<=_':
      case '_>_':
      case '_>=_':
        if (shapes[0]?.kind === 'string') return this.#fail('string ordering');
        return [1 + sum, bool];
      case '!_':
      case '@not_strictly_false':
        return [1 + sum, bool];
      case '_+_':
        if (shapes[0]?.kind !== 'int') return this.#fail('+ on non-integers');
        return [1 + sum, { kind: 'int', maxSize: 1 }];
      case 'size':
        return [1 + sum, { kind: 'int', maxSize: 1 }];
      default:
        return this.#fail(`function ${fn}`);
    }
  }

  #comprehension(c: Extract<Expr['exprKind'], { case: 'comprehensionExpr' }>['value']): [number, Shape] {
    const { iterRange, accuInit, loopCondition, loopStep, result, iterVar, accuVar } = c;
    if (
      iterRange === undefined ||
      accuInit === undefined ||
      loopCondition === undefined ||
      loopStep === undefined ||
      result === undefined
    ) {
      return this.#fail('incomplete comprehension');
    }
    const [rangeCost, rangeShape] = this.estimate(iterRange);
    if (rangeShape.kind !== 'list') return this.#fail('comprehension over a non-list');
    if (!Number.isFinite(rangeShape.maxSize)) return this.#fail('list without maxItems');
    const [initCost, accuShape] = this.estimate(accuInit);
    const items = rangeShape.schema?.items;
    this.#scopes.push(
      new Map([
        [iterVar, shapeOfSchema(isRecord(items) ? items : undefined)],
        [accuVar, accuShape],
      ]),
    );
    const [conditionCost] = this.estimate(loopCondition);
    const [stepCost] = this.estimate(loopStep);
    const [resultCost, resultShape] = this.estimate(result);
    this.#scopes.pop();
    return [rangeCost + initCost + resultCost + rangeShape.maxSize * (conditionCost + stepCost), resultShape];
  }
}

/** The static worst-case cost of `rule` evaluated with `self` of schema `self`. */
export function estimateRuleCost(rule: string, self: Schema, atCrdRoot = false): number {
  return new Estimator(rule, self, atCrdRoot).estimate(parse(rule).expr)[0];
}

export interface RuleCost {
  readonly path: string;
  readonly rule: string;
  readonly cost: number;
  /** How many times the rule can run per object: the product of maxItems above it. */
  readonly cardinality: number;
}

/** Every rule of a CRD schema with its estimated cost and cardinality. */
export function estimateCrdRuleCosts(schema: unknown, path = '<root>', cardinality = 1): RuleCost[] {
  if (!isRecord(schema)) return [];
  const found: RuleCost[] = [];
  const rules = schema['x-kubernetes-validations'];
  if (Array.isArray(rules)) {
    for (const r of rules) {
      if (isRecord(r) && typeof r.rule === 'string')
        found.push({
          path,
          rule: r.rule,
          cost: estimateRuleCost(r.rule, schema, path === '<root>'),
          cardinality,
        });
    }
  }
  const items = schema.items;
  const maxItems = typeof schema.maxItems === 'number' ? schema.maxItems : Number.POSITIVE_INFINITY;
  if (isRecord(items)) found.push(...estimateCrdRuleCosts(items, `${path}[*]`, cardinality * maxItems));
  const properties = schema.properties;
  if (isRecord(properties)) {
    for (const [key, child] of Object.entries(properties)) {
      found.push(...estimateCrdRuleCosts(child, path === '<root>' ? key : `${path}.${key}`, cardinality));
    }
  }
  return found;
}
