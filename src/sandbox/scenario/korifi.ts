// The Korifi part of a sandbox scenario (docs/sandbox.md "Korifi scenarios", docs/decisions.md
// D13, N44): a CF space (the top-level `namespace`), the default ClusterBuilder an operator would
// have installed, the apps, and steps that stage them and update the stack or a buildpack. A
// scenario with `korifi:` plays CF apps only, so it has no `components`; its own schema, checked by
// parse.ts like the Konflux one (one error naming the field), keeps the two step lists apart.
import Type, { type Static } from 'typebox';
import type { FieldPath } from '../../domain/schema-validation.ts';
import { parseTimeout, TIMEOUT_MAX_LENGTH, TIMEOUT_PATTERN } from '../../domain/changegroup/duration.ts';
import { ComponentName } from '../../schema/common.ts';

/** A CF app name as Korifi's CFApp `spec.displayName` takes it. */
export const CF_APP_NAME_PATTERN = '^[-\\w]+$';
/** A buildpack id (`paketo-buildpacks/nodejs`) or stack id (`io.buildpacks.stacks.jammy`): no blanks. */
export const KORIFI_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._/-]*$';

const AppName = Type.String({ minLength: 1, maxLength: 255, pattern: CF_APP_NAME_PATTERN });
const Id = Type.String({ minLength: 1, maxLength: 255, pattern: KORIFI_ID_PATTERN });
const Duration = Type.String({ minLength: 1, maxLength: TIMEOUT_MAX_LENGTH, pattern: TIMEOUT_PATTERN });

/** A CF lifecycle's data (`spec.lifecycle.data` of a CFApp or CFBuild, type `buildpack`). */
export const KorifiLifecycle = Type.Object(
  {
    buildpacks: Type.Array(Id, { minItems: 1 }),
    /** Default: the ClusterBuilder's stack, as an operator configures Korifi's API default. */
    stack: Type.Optional(Id),
  },
  { additionalProperties: false },
);
export type KorifiLifecycle = Static<typeof KorifiLifecycle>;

export const KorifiApp = Type.Object(
  { name: AppName, lifecycle: Type.Optional(KorifiLifecycle) },
  { additionalProperties: false },
);
export type KorifiApp = Static<typeof KorifiApp>;

export const KorifiSection = Type.Object(
  {
    /** The default ClusterBuilder `cf-kpack-cluster-builder`, its ClusterStack and ClusterStore. */
    clusterBuilder: Type.Object(
      { stack: Id, buildpacks: Type.Array(Id, { minItems: 1 }) },
      { additionalProperties: false },
    ),
    apps: Type.Array(KorifiApp, { minItems: 1 }),
  },
  { additionalProperties: false },
);
export type KorifiSection = Static<typeof KorifiSection>;

// Steps, one verb each, as the Konflux steps are written.
export const StageStep = Type.Object(
  {
    stage: Type.Object({ app: AppName, lifecycle: Type.Optional(KorifiLifecycle) }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);
export const UpdateStackStep = Type.Object(
  { updateStack: Type.Object({ id: Type.Optional(Id) }, { additionalProperties: false }) },
  { additionalProperties: false },
);
export const UpdateBuildpackStep = Type.Object(
  { updateBuildpack: Type.Object({ name: Id }, { additionalProperties: false }) },
  { additionalProperties: false },
);
export const UpdateBothStep = Type.Object(
  {
    updateBoth: Type.Object({ buildpack: Type.Optional(Id), id: Type.Optional(Id) }, { additionalProperties: false }),
  },
  { additionalProperties: false },
);
export const KorifiWaitStep = Type.Object({ wait: Duration }, { additionalProperties: false });

export const KORIFI_STEP_SCHEMAS = {
  stage: StageStep,
  updateStack: UpdateStackStep,
  updateBuildpack: UpdateBuildpackStep,
  updateBoth: UpdateBothStep,
  wait: KorifiWaitStep,
} as const;
export type KorifiStepVerb = keyof typeof KORIFI_STEP_SCHEMAS;
export const KORIFI_STEP_VERBS = Object.keys(KORIFI_STEP_SCHEMAS) as KorifiStepVerb[];

export const KorifiStep = Type.Union([StageStep, UpdateStackStep, UpdateBuildpackStep, UpdateBothStep, KorifiWaitStep]);
export type KorifiStep = Static<typeof KorifiStep>;
export type StageStep = Static<typeof StageStep>;

/** A scenario file with `korifi:`: the space, the Korifi section and its steps, nothing else. */
export const KorifiScenarioDocument = Type.Object(
  {
    namespace: ComponentName,
    korifi: KorifiSection,
    steps: Type.Optional(Type.Array(KorifiStep)),
  },
  { additionalProperties: false },
);
export type KorifiScenarioDocument = Static<typeof KorifiScenarioDocument>;

/** A checked Korifi scenario with its defaults filled in (Scenario.korifi). */
export interface KorifiScenario {
  readonly clusterBuilder: { readonly stack: string; readonly buildpacks: readonly string[] };
  readonly apps: readonly KorifiApp[];
  readonly steps: readonly KorifiStep[];
}

/** Whether a document is a Korifi scenario: it has a `korifi` key (whatever its value). */
export function isKorifiDocument(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.hasOwn(value, 'korifi');
}

/** What the schema cannot say: names declared once, steps naming declared apps and store buildpacks. */
export function korifiReferenceProblems(doc: KorifiScenarioDocument): { path: FieldPath; message: string }[] {
  const problems: { path: FieldPath; message: string }[] = [];
  const apps = new Map<string, number>();
  doc.korifi.apps.forEach((app, index) => {
    const first = apps.get(app.name);
    if (first === undefined) apps.set(app.name, index);
    else
      problems.push({
        path: ['korifi', 'apps', index, 'name'],
        message: `app "${app.name}" is declared twice (first as korifi.apps[${String(first)}])`,
      });
  });
  const store = doc.korifi.clusterBuilder.buildpacks;
  const seen = new Set<string>();
  store.forEach((id, index) => {
    if (seen.has(id))
      problems.push({ path: ['korifi', 'clusterBuilder', 'buildpacks', index], message: `"${id}" is listed twice` });
    seen.add(id);
  });
  // A lifecycle buildpack the store lacks is not an error here: the build fails with
  // InvalidBuildpacks naming it, which is what a scenario may want to see.
  const inStore = (id: string, path: FieldPath): void => {
    if (!store.includes(id))
      problems.push({
        path,
        message: `buildpack "${id}" is not in korifi.clusterBuilder.buildpacks: the ClusterStore has no source to update`,
      });
  };
  (doc.steps ?? []).forEach((step, index) => {
    if ('stage' in step && !apps.has(step.stage.app))
      problems.push({ path: ['steps', index, 'stage', 'app'], message: `app "${step.stage.app}" is not declared` });
    if ('wait' in step) {
      const parsed = parseTimeout(step.wait);
      if (!parsed.ok) problems.push({ path: ['steps', index, 'wait'], message: parsed.problem });
    }
    if ('updateBuildpack' in step) inStore(step.updateBuildpack.name, ['steps', index, 'updateBuildpack', 'name']);
    if ('updateBoth' in step && step.updateBoth.buildpack !== undefined)
      inStore(step.updateBoth.buildpack, ['steps', index, 'updateBoth', 'buildpack']);
  });
  return problems;
}

/** The Korifi section and steps of a checked document. */
export function resolveKorifi(doc: KorifiScenarioDocument): KorifiScenario {
  return {
    clusterBuilder: doc.korifi.clusterBuilder,
    apps: doc.korifi.apps,
    steps: doc.steps ?? [],
  };
}

/** The buildpack `updateBoth` updates: the one named, else the ClusterBuilder's first. */
export function updateBothBuildpack(scenario: KorifiScenario, step: { buildpack?: string }): string {
  return step.buildpack ?? scenario.clusterBuilder.buildpacks[0] ?? '';
}
