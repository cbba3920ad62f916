// Scenario text in, checked Scenario out (docs/sandbox.md). YAML or JSON through the manifest
// reader, so positions come from the same source trees `nudger validate` uses; the schema check is
// ajv compiled from schema.ts, and cross-references come from references.ts. The first problem
// found is thrown as a ScenarioError naming file:line:column and the field.
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { parseDocuments } from '../../manifest/documents.ts';
import { ManifestSyntaxError } from '../../manifest/errors.ts';
import { isRecord } from '../../domain/records.ts';
import type { SourceDocument, SourceTree } from '../../manifest/source-tree.ts';
import { dns1123LabelProblem, DNS1123_LABEL_PATTERN } from '../../schema/names.ts';
import { IMAGE_DIGEST_PATTERN } from '../../schema/changegroup.ts';
import { KUBERNETES_SCHEMA_EXTENSIONS } from '../../schema/common.ts';
import { article, closestName, formatFieldPath, pathOf, type FieldPath } from '../../domain/schema-validation.ts';
import { TIMEOUT_PATTERN } from '../../domain/changegroup/duration.ts';
import { ScenarioError } from './errors.ts';
import {
  CF_APP_NAME_PATTERN,
  isKorifiDocument,
  KORIFI_ID_PATTERN,
  KORIFI_STEP_SCHEMAS,
  KORIFI_STEP_VERBS,
  KorifiScenarioDocument,
  korifiReferenceProblems,
  resolveKorifi,
} from './korifi.ts';
import { referenceProblems, type ScenarioProblem } from './references.ts';
import {
  DEFAULT_GIT_REVISION,
  DEFAULT_NUDGED_BY,
  DEFAULT_SCENARIO_FORGE,
  GIT_REVISION_PATTERN,
  PATH_GLOB_PATTERN,
  IMAGE_REPOSITORY_PATTERN,
  nudgeTarget,
  STEP_SCHEMAS,
  STEP_VERBS,
  ScenarioDocument,
  ScenarioNudgeEntry,
  type Scenario,
  type ScenarioComponent,
  type StepVerb,
} from './schema.ts';

/** Throws ScenarioError for malformed text, a schema violation or a broken cross-reference. */
export function parseScenario(text: string, file: string): Scenario {
  return checked(onlyDocument(text, file));
}

/**
 * The same checks for a scenario built in code (the default one, tests): errors then name
 * `origin` and the field path, but no line.
 */
export function checkScenarioDocument(value: unknown, origin: string): Scenario {
  const location = { file: origin };
  const tree: SourceTree = {
    location: () => location,
    fieldLocation: () => location,
    isMapping: () => isRecord(value),
    child: () => undefined,
    items: () => [],
  };
  return checked({ file: origin, value, tree });
}

function checked(doc: SourceDocument): Scenario {
  if (isKorifiDocument(doc.value)) return checkedKorifi(doc);
  const problem = schemaProblem(doc.value) ?? referenceProblems(doc.value as ScenarioDocument)[0];
  if (problem !== undefined) throw errorAt(doc, problem);
  return resolveDefaults(doc.value as ScenarioDocument);
}

/** A scenario with `korifi:` (scenario/korifi.ts): CF apps only, no Konflux parts. */
function checkedKorifi(doc: SourceDocument): Scenario {
  const value = doc.value as KorifiScenarioDocument;
  const problem = korifiSchemaProblem(doc.value) ?? korifiReferenceProblems(value)[0];
  if (problem !== undefined) throw errorAt(doc, problem);
  return {
    ...resolveDefaults({ namespace: value.namespace, components: [] }),
    korifi: resolveKorifi(value),
  };
}

/** The document's defaults made explicit, so no consumer has to know them. */
export function resolveDefaults(doc: ScenarioDocument): Scenario {
  return {
    namespace: doc.namespace,
    application: doc.application ?? doc.namespace,
    nudgedBy: doc.nudgedBy ?? DEFAULT_NUDGED_BY,
    ...(doc.executor !== undefined && { executor: doc.executor }),
    ...(doc.renovateConfig !== undefined && { renovateConfig: doc.renovateConfig }),
    components: doc.components.map((component) => ({
      name: component.name,
      image: component.image,
      nudges: (component.nudges ?? []).map(nudgeTarget),
      ...validatedOf(component),
      ...(component.files !== undefined && { files: component.files }),
      gitRevision: component.gitRevision ?? DEFAULT_GIT_REVISION,
      ...(component.renovateConfig !== undefined && { renovateConfig: component.renovateConfig }),
      simpleBranch: component.simpleBranch ?? false,
      ...(component.repository !== undefined && { repository: component.repository }),
      ...(component.pathChanged !== undefined && { pathChanged: component.pathChanged }),
    })),
    changeGroups: doc.changeGroups ?? [],
    componentGroups: doc.componentGroups ?? [],
    steps: doc.steps ?? [],
    preMerge: doc.preMerge ?? false,
    forge: doc.forge ?? DEFAULT_SCENARIO_FORGE,
  };
}

/** `{validated: {target: gatingGroup}}` for the component's validated items; {} when it has none. */
function validatedOf(component: ScenarioComponent): { validated?: Record<string, string> } {
  const validated: Record<string, string> = {};
  for (const item of component.nudges ?? []) {
    if (typeof item !== 'string' && item.mode === 'validated' && item.gatingGroup !== undefined)
      validated[item.to] = item.gatingGroup;
  }
  return Object.keys(validated).length === 0 ? {} : { validated };
}

function onlyDocument(text: string, file: string): SourceDocument {
  let docs: SourceDocument[];
  try {
    docs = parseDocuments(file, text);
  } catch (error) {
    if (error instanceof ManifestSyntaxError)
      throw new ScenarioError(
        error,
        '(scenario)',
        error.message.slice(`${error.file}:${String(error.line)}:${String(error.column)}: `.length),
        {
          cause: error,
        },
      );
    throw error;
  }
  const [first, second] = docs;
  if (first === undefined) throw new ScenarioError({ file }, '(scenario)', 'the file holds no scenario');
  if (second !== undefined)
    throw errorAt(second, { path: [], message: 'a scenario file holds one YAML document; found a second' });
  return first;
}

function errorAt(doc: SourceDocument, problem: { path: FieldPath; at?: FieldPath; message: string }): ScenarioError {
  const location = doc.tree.fieldLocation(problem.at ?? problem.path);
  const field = problem.path.length === 0 ? '(scenario)' : formatFieldPath(problem.path);
  return new ScenarioError(location, field, problem.message);
}

interface Validators {
  readonly document: ValidateFunction;
  readonly steps: Readonly<Record<StepVerb, ValidateFunction>>;
  readonly nudgeEntry: ValidateFunction;
  readonly korifi: ValidateFunction;
  readonly korifiSteps: Readonly<Record<string, ValidateFunction>>;
}

let compiled: Validators | undefined;

// Compiled on first use: `nudger validate` and friends never pay for it.
function validators(): Validators {
  if (compiled !== undefined) return compiled;
  const ajv = new Ajv({ allErrors: true, verbose: true, strict: true, logger: false, validateFormats: false });
  ajv.addVocabulary([...KUBERNETES_SCHEMA_EXTENSIONS]);
  const steps = Object.fromEntries(STEP_VERBS.map((verb) => [verb, ajv.compile(STEP_SCHEMAS[verb])]));
  compiled = {
    document: ajv.compile(ScenarioDocument),
    steps: steps as Record<StepVerb, ValidateFunction>,
    nudgeEntry: ajv.compile(ScenarioNudgeEntry),
    korifi: ajv.compile(KorifiScenarioDocument),
    korifiSteps: Object.fromEntries(KORIFI_STEP_VERBS.map((verb) => [verb, ajv.compile(KORIFI_STEP_SCHEMAS[verb])])),
  };
  return compiled;
}

interface LocatedProblem extends ScenarioProblem {
  /** Where to point: a missing field's parent, else the field. */
  readonly at?: FieldPath;
}

function schemaProblem(value: unknown): LocatedProblem | undefined {
  const { document } = validators();
  // Validated through a copy: ajv's type guard would narrow `value` itself to never below.
  const candidate: unknown = value;
  if (document(candidate)) return undefined;
  for (const error of document.errors ?? []) {
    const path = pathOf(error.instancePath, value);
    // Inside a step, ajv reports every variant of the union; judge the step by its verb instead.
    if (path[0] === 'steps' && typeof path[1] === 'number' && isRecord(value) && Array.isArray(value.steps)) {
      const problem = stepProblem(value.steps[path[1]], ['steps', path[1]]);
      if (problem !== undefined) return problem;
      continue;
    }
    // A `nudges` item is a name or a mapping; judge it by the form it was written in.
    const item = nudgeItemAt(value, path);
    if (item !== undefined) {
      const problem = nudgeItemProblem(item.value, item.path);
      if (problem !== undefined) return problem;
      continue;
    }
    if (error.keyword === 'anyOf') continue;
    return toProblem(error, path);
  }
  /* node:coverage ignore next */
  return { path: [], message: 'does not match the scenario schema' };
}

function korifiSchemaProblem(value: unknown): LocatedProblem | undefined {
  const { korifi, korifiSteps } = validators();
  const candidate: unknown = value;
  if (korifi(candidate)) return undefined;
  for (const error of korifi.errors ?? []) {
    const path = pathOf(error.instancePath, value);
    if (path[0] === 'steps' && typeof path[1] === 'number' && isRecord(value) && Array.isArray(value.steps)) {
      const problem = stepProblem(value.steps[path[1]], ['steps', path[1]], KORIFI_STEP_VERBS, korifiSteps);
      if (problem !== undefined) return problem;
      continue;
    }
    if (error.keyword === 'anyOf') continue;
    return toProblem(error, path);
  }
  /* node:coverage ignore next */
  return { path: [], message: 'does not match the Korifi scenario schema' };
}

/** The `components[i].nudges[k]` item `path` is in or under, if it is in one. */
function nudgeItemAt(value: unknown, path: FieldPath): { value: unknown; path: FieldPath } | undefined {
  const [top, index, field, k] = path;
  if (top !== 'components' || typeof index !== 'number' || field !== 'nudges' || typeof k !== 'number')
    return undefined;
  if (!isRecord(value) || !Array.isArray(value.components)) return undefined;
  const component: unknown = value.components[index];
  if (!isRecord(component) || !Array.isArray(component.nudges)) return undefined;
  return { value: component.nudges[k], path: ['components', index, 'nudges', k] };
}

function nudgeItemProblem(item: unknown, path: FieldPath): LocatedProblem | undefined {
  if (typeof item === 'string') {
    const problem = dns1123LabelProblem(item);
    if (problem === undefined) return undefined;
    return { path, message: item === '' ? problem : `${JSON.stringify(item)} ${problem}` };
  }
  if (!isRecord(item))
    return {
      path,
      message: `must be a component name or a mapping {to, mode, gatingGroup}, found ${describe(item)}`,
    };
  const validate = validators().nudgeEntry;
  if (validate(item)) return undefined;
  const error = validate.errors?.[0];
  /* node:coverage ignore next */
  if (error === undefined) return undefined;
  return toProblem(error, [...path, ...pathOf(error.instancePath, item)]);
}

function stepProblem(
  step: unknown,
  path: FieldPath,
  allVerbs: readonly string[] = STEP_VERBS,
  stepValidators: Readonly<Record<string, ValidateFunction>> = validators().steps,
): LocatedProblem | undefined {
  const expected = `must be a mapping with one of ${allVerbs.join(', ')}`;
  if (!isRecord(step)) return { path, message: expected };
  const verbs = allVerbs.filter((verb) => Object.hasOwn(step, verb));
  const [verb, other] = verbs;
  if (verb === undefined) {
    const key = Object.keys(step)[0];
    const suggestion = key === undefined ? undefined : closestName(key, allVerbs);
    return suggestion === undefined || key === undefined
      ? { path, message: expected }
      : { path: [...path, key], message: `unknown step; did you mean \`${suggestion}\`?` };
  }
  if (other !== undefined)
    return { path: [...path, other], message: `a step does one thing: it has both ${verb} and ${other}` };
  const validate = stepValidators[verb];
  /* node:coverage ignore next */
  if (validate === undefined) return undefined;
  if (validate(step)) return undefined;
  const error = validate.errors?.[0];
  /* node:coverage ignore next */
  if (error === undefined) return undefined;
  return toProblem(error, [...path, ...pathOf(error.instancePath, step)]);
}

/** What a pattern means, for messages a person can act on. */
const PATTERN_MEANINGS: Readonly<Record<string, string>> = {
  [IMAGE_REPOSITORY_PATTERN]: 'must be an image repository without tag or digest, e.g. quay.io/org/app',
  [IMAGE_DIGEST_PATTERN]: 'must be a digest sha256:<64 lower-case hex digits>',
  [TIMEOUT_PATTERN]: 'must be a duration such as 30s, 2m or 1h30m',
  [GIT_REVISION_PATTERN]: 'must be a branch name',
  [PATH_GLOB_PATTERN]: 'must be a glob without `"`, `\\` or line breaks (it is quoted into CEL)',
  [CF_APP_NAME_PATTERN]: 'must be a CF app name: letters, digits, `_` and `-`',
  [KORIFI_ID_PATTERN]: 'must be an id without blanks, e.g. paketo-buildpacks/nodejs or io.buildpacks.stacks.jammy',
};

function toProblem(error: ErrorObject, path: FieldPath): LocatedProblem {
  const params = error.params as Record<string, unknown>;
  const shown = (p: FieldPath): string => formatFieldPath(p);
  switch (error.keyword) {
    case 'required': {
      const field = [...path, String(params.missingProperty)];
      return { path: field, at: path, message: 'required field is missing' };
    }
    case 'additionalProperties': {
      const name = String(params.additionalProperty);
      const known = knownProperties(error.parentSchema);
      const suggestion = closestName(name, known);
      const hint = suggestion === undefined ? ` (known: ${known.join(', ')})` : `; did you mean \`${suggestion}\`?`;
      return { path: [...path, name], message: `unknown field${hint}` };
    }
    case 'type':
      return { path, message: `must be ${article(String(params.type))}, found ${describe(error.data)}` };
    case 'enum':
      return {
        path,
        message: `${JSON.stringify(error.data)} must be one of ${(params.allowedValues as unknown[]).map(String).join(', ')}`,
      };
    case 'minItems':
      return { path, message: 'must not be empty' };
    default:
      break;
  }
  const text = typeof error.data === 'string' ? error.data : '';
  const quoted = JSON.stringify(text);
  if (error.keyword === 'pattern' && params.pattern === DNS1123_LABEL_PATTERN)
    return { path, message: `${quoted} ${dns1123LabelProblem(text) ?? 'is not a valid name'}` };
  if (error.keyword === 'pattern')
    return { path, message: `${quoted} ${PATTERN_MEANINGS[String(params.pattern)] ?? 'has the wrong form'}` };
  if (error.keyword === 'maxLength' || error.keyword === 'minLength') {
    const problem = dns1123LabelProblem(text);
    return {
      path,
      message:
        text === ''
          ? 'must not be empty'
          : `${quoted} ${problem ?? `must be at most ${String(params.limit)} characters`}`,
    };
  }
  return { path, message: `${shown(path)} ${error.message ?? `fails ${error.keyword}`}` };
}

function knownProperties(schema: unknown): string[] {
  if (!isRecord(schema) || !isRecord(schema.properties)) return [];
  return Object.keys(schema.properties);
}

function describe(value: unknown): string {
  if (value === null) return 'nothing (null)';
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'number' || typeof value === 'boolean') return `${typeof value} ${String(value)}`;
  return typeof value === 'object' ? 'a mapping' : typeof value;
}
