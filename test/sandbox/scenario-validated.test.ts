// Validated nudges in scenarios (docs/sandbox.md, docs/decisions.md D10): componentGroups, the
// `{to, mode: validated, gatingGroup}` form of a nudges item and the `snapshot` step are read and
// checked with errors naming the field; the ComponentGroup and Snapshot objects have upstream's
// shape (checked against the vendored CRDs' schemas, no field the API server would prune); and the
// dispatcher's record after a Snapshot becomes `nudges[]` items with their mode and Snapshot.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { Ajv } from 'ajv';
import { parse } from 'yaml';
import { isRecord } from '../../src/domain/records.ts';
import { decodeSnapshot } from '../../src/domain/cluster-objects.ts';
import { readSnapshot } from '../../src/domain/nudge/validated-snapshot.ts';
import {
  emptyValidatedRecord,
  serializeValidatedRecord,
  type ValidatedRecord,
} from '../../src/domain/nudge/validated-record.ts';
import { validateNudgeConfigManifest } from '../../src/domain/schema-validation.ts';
import { UPSTREAM_CRDS } from '../../src/sandbox/control-plane/paths.ts';
import { snapshotObject, testedStatus } from '../../src/sandbox/integration.ts';
import { ScenarioError } from '../../src/sandbox/scenario/errors.ts';
import { scenarioObjects, withoutChangeGroups } from '../../src/sandbox/scenario/objects.ts';
import { parseScenario } from '../../src/sandbox/scenario/parse.ts';
import { renderResultText, sandboxResultProblems } from '../../src/sandbox/scenario/result.ts';
import { immediateNudges, stepVerb } from '../../src/sandbox/scenario/schema.ts';
import {
  dueEntries,
  entryOutcome,
  readRecord,
  RecordReadError,
  validatedNudgeResult,
  validatedPairs,
  type PlayedSnapshot,
} from '../../src/sandbox/scenario/validated-nudges.ts';

const D = (c: string): string => `sha256:${c.repeat(64)}`;

const VALIDATED = `namespace: t
application: app
components:
  - name: op-a
    image: quay.io/o/op-a
    nudges:
      - {to: bundle, mode: validated, gatingGroup: operands}
      - docs
  - name: op-b
    image: quay.io/o/op-b
    gitRevision: devel
    nudges: [{to: bundle, mode: validated, gatingGroup: operands}]
  - {name: op-c, image: quay.io/o/op-c, nudges: [{to: bundle}]}
  - {name: bundle, image: quay.io/o/bundle}
  - {name: docs, image: quay.io/o/docs}
componentGroups:
  - {name: operands, components: [op-a, op-b, op-c]}
steps:
  - build: op-a
  - snapshot: {group: operands, passed: false}
  - build: op-b
  - snapshot: {group: operands, passed: true, components: [op-b]}
`;

function errorOf(text: string): ScenarioError {
  try {
    parseScenario(text, 's.yaml');
  } catch (error) {
    assert.ok(error instanceof ScenarioError, `expected a ScenarioError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the scenario to be refused');
}

describe('parseScenario: validated nudges', () => {
  const scenario = parseScenario(VALIDATED, 'v.yaml');

  it('reads componentGroups, the mapping form of nudges and snapshot steps', () => {
    assert.deepEqual(scenario.componentGroups, [{ name: 'operands', components: ['op-a', 'op-b', 'op-c'] }]);
    assert.deepEqual(scenario.components[0], {
      name: 'op-a',
      image: 'quay.io/o/op-a',
      nudges: ['bundle', 'docs'],
      validated: { bundle: 'operands' },
      gitRevision: 'main',
      simpleBranch: false,
    });
    // `{to}` alone is the string form: mode immediate.
    const opC = scenario.components[2];
    assert.ok(opC !== undefined);
    assert.deepEqual(opC.nudges, ['bundle']);
    assert.equal(opC.validated, undefined);
    assert.deepEqual(scenario.components.map(immediateNudges), [['docs'], [], ['bundle'], [], []]);
    assert.deepEqual(scenario.steps.map(stepVerb), ['build', 'snapshot', 'build', 'snapshot']);
    assert.deepEqual(scenario.steps[3], { snapshot: { group: 'operands', passed: true, components: ['op-b'] } });
  });

  it('keeps Snapshot steps when ChangeGroups are left out', () => {
    assert.deepEqual(withoutChangeGroups(scenario).steps, scenario.steps);
  });

  it('pairs the validated entries by gating group and target', () => {
    assert.deepEqual(validatedPairs(scenario), [{ group: 'operands', target: 'bundle', members: ['op-a', 'op-b'] }]);
  });

  const base = (nudges: string, groups = '  - {name: g, components: [a]}', steps = ''): string =>
    `namespace: ns\ncomponents:\n  - {name: a, image: i/a, nudges: ${nudges}}\n  - {name: b, image: i/b}\n  - {name: x, image: i/x}\ncomponentGroups:\n${groups}\n${steps}`;
  const cases: [string, string, string][] = [
    [
      'a gating group nobody declared',
      base('[{to: x, mode: validated, gatingGroup: nope}]'),
      's.yaml:3:61: components[0].nudges[0].gatingGroup: ComponentGroup "nope" is not declared (componentGroups)',
    ],
    [
      'a validated entry whose from is not a member',
      base('[{to: x, mode: validated, gatingGroup: g}]', '  - {name: g, components: [b]}'),
      's.yaml:3:61: components[0].nudges[0].gatingGroup: "a" is not a member of ComponentGroup "g": no Snapshot of it carries a\'s image',
    ],
    [
      'a validated entry without its gating group',
      base('[{to: x, mode: validated}]'),
      's.yaml:3:36: components[0].nudges[0].gatingGroup: required when mode is validated: the ComponentGroup whose Snapshot must pass',
    ],
    [
      'a gating group on an immediate entry',
      base('[{to: x, gatingGroup: g}]'),
      's.yaml:3:44: components[0].nudges[0].gatingGroup: applies to mode: validated only; an immediate nudge fires on every build',
    ],
    [
      'an unknown mode',
      base('[{to: x, mode: later, gatingGroup: g}]'),
      's.yaml:3:44: components[0].nudges[0].mode: "later" must be one of immediate, validated',
    ],
    [
      'a misspelt key in a nudges mapping',
      base('[{to: x, mode: validated, gatingGrop: g}]'),
      's.yaml:3:61: components[0].nudges[0].gatingGrop: unknown field; did you mean `gatingGroup`?',
    ],
    [
      'a nudges mapping without its target',
      base('[{mode: validated, gatingGroup: g}]'),
      's.yaml:3:36: components[0].nudges[0].to: required field is missing',
    ],
    [
      'a nudges item that is neither a name nor a mapping',
      base('[7]'),
      's.yaml:3:36: components[0].nudges[0]: must be a component name or a mapping {to, mode, gatingGroup}, found number 7',
    ],
    [
      'a malformed name in the string form',
      base('[Bad]'),
      `s.yaml:3:36: components[0].nudges[0]: "Bad" must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`,
    ],
    [
      'a member that is not a declared component',
      base('[x]', '  - {name: g, components: [a, ghost]}'),
      's.yaml:7:31: componentGroups[0].components[1]: component "ghost" is not declared',
    ],
    [
      'a member listed twice',
      base('[x]', '  - {name: g, components: [a, a]}'),
      's.yaml:7:31: componentGroups[0].components[1]: "a" is listed twice',
    ],
    [
      'a ComponentGroup declared twice',
      base('[x]', '  - {name: g, components: [a]}\n  - {name: g, components: [b]}'),
      's.yaml:8:6: componentGroups[1].name: ComponentGroup "g" is declared twice (first as componentGroups[0])',
    ],
    [
      'a ComponentGroup without members',
      base('[x]', '  - {name: g, components: []}'),
      's.yaml:7:15: componentGroups[0].components: must not be empty',
    ],
    [
      'a Snapshot of an undeclared group',
      base('[x]', undefined, 'steps:\n  - build: a\n  - snapshot: {group: nope, passed: true}\n'),
      's.yaml:10:16: steps[1].snapshot.group: ComponentGroup "nope" is not declared',
    ],
    [
      'a Snapshot limited to a non-member',
      base('[x]', undefined, 'steps:\n  - build: a\n  - snapshot: {group: g, passed: true, components: [b]}\n'),
      's.yaml:10:53: steps[1].snapshot.components[0]: "b" is not a member of ComponentGroup "g"',
    ],
    [
      'a Snapshot before any succeeded build of a member',
      base('[x]', undefined, 'steps:\n  - build: a\n    succeeded: false\n  - snapshot: {group: g, passed: true}\n'),
      's.yaml:11:5: steps[1].snapshot: no member of ComponentGroup "g" has a succeeded build before this step: integration-service makes a Snapshot from one',
    ],
    [
      'a Snapshot step without passed',
      base('[x]', undefined, 'steps:\n  - build: a\n  - snapshot: {group: g}\n'),
      's.yaml:10:5: steps[1].snapshot.passed: required field is missing',
    ],
    [
      'validated entries nudged by build-service',
      `nudgedBy: build-service\n${base('[{to: x, mode: validated, gatingGroup: g}]')}`,
      's.yaml:4:44: components[0].nudges[0].mode: validated applies to nudgedBy: nudger only; build-service never fires a validated entry',
    ],
  ];
  for (const [what, text, expected] of cases) {
    it(`refuses ${what}`, () => {
      assert.equal(errorOf(text).message, expected);
    });
  }
});

/** The openAPIV3Schema of a vendored upstream CRD's first version. */
function crdSchema(file: string): Record<string, unknown> {
  const crd = parse(readFileSync(file, 'utf8')) as { spec: { versions: { schema: { openAPIV3Schema: unknown } }[] } };
  return crd.spec.versions[0]?.schema.openAPIV3Schema as Record<string, unknown>;
}

/** Paths of `value` the schema does not declare: fields the API server would prune. */
function undeclared(value: unknown, schema: unknown, path = ''): string[] {
  if (!isRecord(schema)) return [];
  if (Array.isArray(value)) return value.flatMap((item, i) => undeclared(item, schema.items, `${path}[${String(i)}]`));
  if (!isRecord(value) || schema['x-kubernetes-preserve-unknown-fields'] === true) return [];
  if (path === '.metadata') return [];
  const properties = isRecord(schema.properties) ? schema.properties : undefined;
  return Object.entries(value).flatMap(([key, field]) => {
    const declared = properties?.[key] ?? schema.additionalProperties;
    return declared === undefined ? [`${path}.${key}`] : undeclared(field, declared, `${path}.${key}`);
  });
}

function checkAgainstCrd(object: unknown, file: string): void {
  const schema = crdSchema(file);
  // Upstream's patterns are Go's: `(?i)` is a case-insensitive flag there.
  const regExp = Object.assign(
    (pattern: string, flags: string): RegExp =>
      pattern.startsWith('(?i)') ? new RegExp(pattern.slice(4), `${flags}i`) : new RegExp(pattern, flags),
    { code: 'new RegExp' },
  );
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true, code: { regExp } });
  const validate = ajv.compile(schema);
  assert.ok(validate(object), JSON.stringify(validate.errors));
  assert.deepEqual(undeclared(object, schema), []);
}

describe('scenarioObjects: validated nudges', () => {
  const scenario = parseScenario(VALIDATED, 'v.yaml');
  const objects = scenarioObjects(scenario, { repoUrl: (c) => `file:///git/${c}.git` });

  it('writes validated entries with their gating group into the NudgeConfig', () => {
    assert.deepEqual(validateNudgeConfigManifest(objects.nudgeConfig, 'nudger'), []);
    assert.deepEqual(objects.nudgeConfig.spec?.nudges, [
      { from: 'op-a', to: 'bundle', mode: 'validated', gatingGroup: 'operands' },
      { from: 'op-a', to: 'docs', mode: 'immediate' },
      { from: 'op-b', to: 'bundle', mode: 'validated', gatingGroup: 'operands' },
      { from: 'op-c', to: 'bundle', mode: 'immediate' },
    ]);
  });

  it('makes ComponentGroups in upstream v1beta2 shape, each member with its branch as ComponentVersion', () => {
    assert.deepEqual(objects.componentGroups, [
      {
        apiVersion: 'appstudio.redhat.com/v1beta2',
        kind: 'ComponentGroup',
        metadata: { name: 'operands', namespace: 't' },
        spec: {
          components: [
            { name: 'op-a', componentVersion: { name: 'main' } },
            { name: 'op-b', componentVersion: { name: 'devel' } },
            { name: 'op-c', componentVersion: { name: 'main' } },
          ],
        },
      },
    ]);
    for (const group of objects.componentGroups) checkAgainstCrd(group, UPSTREAM_CRDS.componentGroups);
  });

  const shape = {
    namespace: 't',
    group: 'operands',
    application: 'app',
    component: 'op-b',
    build: 'op-b-on-push-x1',
    startTime: 1_764_000_000,
    finishTime: 1_764_000_000,
    components: [
      { name: 'op-a', containerImage: `quay.io/o/op-a@${D('a')}` },
      { name: 'op-b', containerImage: `quay.io/o/op-b@${D('b')}` },
    ],
  };

  it('makes a push Snapshot of a group as integration-service labels and annotates it', () => {
    const snapshot = snapshotObject(shape);
    assert.deepEqual(snapshot.metadata, {
      generateName: 'operands-',
      namespace: 't',
      labels: {
        'test.appstudio.openshift.io/type': 'component',
        'appstudio.openshift.io/component': 'op-b',
        'appstudio.openshift.io/component-group': 'operands',
        'appstudio.openshift.io/build-pipelinerun': 'op-b-on-push-x1',
        'test.appstudio.openshift.io/pipelinerunfinishtime': '1764000000',
        'pac.test.appstudio.openshift.io/event-type': 'push',
      },
      annotations: {
        'test.appstudio.openshift.io/pipelinerunstarttime': '1764000000',
        'test.appstudio.openshift.io/integration-workflow': 'push',
      },
    });
    assert.deepEqual(snapshot.spec, { application: 'app', componentGroup: 'operands', components: shape.components });
    const { application: _application, ...withoutApplication } = shape;
    assert.equal('application' in snapshotObject(withoutApplication).spec, false);
  });

  it('makes Snapshots, tested either way, that the vendored CRD accepts and nudger reads as D10 says', () => {
    const at = new Date('2026-11-26T13:00:00.123Z');
    const passed = {
      ...snapshotObject(shape),
      metadata: { ...snapshotObject(shape).metadata, name: 'operands-abcde' },
    };
    const tested = { ...passed, status: testedStatus(true, at) };
    checkAgainstCrd(tested, UPSTREAM_CRDS.snapshots);
    assert.deepEqual(tested.status.conditions, [
      {
        type: 'AppStudioTestSucceeded',
        status: 'True',
        reason: 'Passed',
        message: 'All Integration Pipeline tests passed',
        lastTransitionTime: '2026-11-26T13:00:00Z',
      },
    ]);
    // Read as the dispatcher reads it: decoded, then D10's predicate.
    const read = (object: unknown) => {
      const decoded = decodeSnapshot(object);
      assert.ok(decoded.ok);
      return readSnapshot(decoded.object);
    };
    const reading = read(tested);
    assert.ok(reading.kind === 'passing', JSON.stringify(reading));
    assert.equal(reading.snapshot.group, 'operands');
    assert.equal(reading.snapshot.startTime, 1_764_000_000);
    assert.equal(reading.snapshot.images.get('op-a'), `quay.io/o/op-a@${D('a')}`);
    assert.equal(reading.snapshot.component, 'op-b');
    assert.equal(reading.snapshot.buildPipelineRun, 'op-b-on-push-x1');
    const failed = { ...passed, status: testedStatus(false, at) };
    checkAgainstCrd(failed, UPSTREAM_CRDS.snapshots);
    assert.equal(failed.status.conditions[0]?.reason, 'Failed');
    assert.deepEqual(read(failed), { kind: 'ignored', reason: 'failed' });
    // Not vacuous: a field upstream does not declare is found.
    assert.deepEqual(
      undeclared({ spec: { components: [{ name: 'a', image: 'x' }] } }, crdSchema(UPSTREAM_CRDS.snapshots)),
      ['.spec.components[0].image'],
    );
  });
});

describe('validated nudges in the result', () => {
  const pair = { group: 'operands', target: 'bundle', members: ['op-a', 'op-b', 'op-c'] };
  const snapshot = (name: string, passed: boolean, images: Record<string, string>): PlayedSnapshot => ({
    name,
    group: 'operands',
    passed,
    components: Object.entries(images).map(([member, digest]) => ({
      name: member,
      containerImage: `quay.io/o/${member}@${digest}`,
    })),
  });
  const record = (nudged: [string, string, string][], extra: Partial<ValidatedRecord> = {}): ValidatedRecord => ({
    ...emptyValidatedRecord('operands', 'bundle'),
    nudged: new Map(
      nudged.map(([from, digest, snap]) => [from, { digest, snapshot: snap, startTime: 1, buildCreatedAt: 2 }]),
    ),
    ...extra,
  });

  it('expects a passing Snapshot to move each member whose digest differs from the one last nudged', () => {
    const s2 = snapshot('operands-2', true, { 'op-a': D('a'), 'op-b': D('b'), 'op-x': D('c') });
    assert.deepEqual(dueEntries(pair, s2, undefined), [
      { from: 'op-a', digest: D('a') },
      { from: 'op-b', digest: D('b') },
    ]);
    assert.deepEqual(dueEntries(pair, s2, record([['op-a', D('a'), 'operands-1']])), [
      { from: 'op-b', digest: D('b') },
    ]);
    assert.deepEqual(dueEntries(pair, snapshot('operands-3', false, { 'op-a': D('d') }), undefined), []);
    assert.deepEqual(dueEntries({ ...pair, group: 'other' }, s2, undefined), []);
  });

  it('tells fired, held and failed entries from the record, and waits otherwise', () => {
    const entry = { from: 'op-a', digest: D('a') };
    assert.equal(entryOutcome(entry, 'operands-2', undefined), undefined);
    assert.equal(entryOutcome(entry, 'operands-2', record([['op-a', D('a'), 'operands-1']])), undefined);
    assert.deepEqual(entryOutcome(entry, 'operands-2', record([['op-a', D('a'), 'operands-2']])), {
      outcome: 'pullRequest',
    });
    const held = record([]);
    const heldRecord: ValidatedRecord = {
      ...held,
      nudged: new Map([
        [
          'op-a',
          {
            digest: D('a'),
            snapshot: 'operands-2',
            startTime: 1,
            buildCreatedAt: 2,
            heldBy: { changeGroup: 'bundle-update', build: 'op-a-on-push-1' },
          },
        ],
      ]),
    };
    assert.deepEqual(entryOutcome(entry, 'operands-2', heldRecord), { outcome: 'held', changeGroup: 'bundle-update' });
    const batch = {
      key: '0123456789abcdef',
      attempt: 3,
      since: 5,
      reason: 'forge-unavailable',
      entries: {
        'op-a': { digest: D('a'), snapshot: 'operands-2', startTime: 1, build: 'op-a-on-push-1', buildCreatedAt: 2 },
      },
    };
    assert.deepEqual(entryOutcome(entry, 'operands-2', record([], { batch: { ...batch, state: 'failed' } })), {
      outcome: 'failed',
      reason: 'forge-unavailable',
    });
    assert.equal(entryOutcome(entry, 'operands-2', record([], { batch: { ...batch, state: 'retry' } })), undefined);
  });

  it('reads the record ConfigMap text, and refuses one it cannot read', () => {
    const text = serializeValidatedRecord(record([['op-a', D('a'), 'operands-2']]));
    assert.equal(readRecord(pair, text)?.nudged.get('op-a')?.snapshot, 'operands-2');
    assert.equal(readRecord(pair, undefined), undefined);
    assert.throws(() => readRecord(pair, '{'), RecordReadError);
    assert.throws(() => readRecord({ ...pair, target: 'docs' }, text), /another group or target/);
  });

  it('makes nudges[] items with mode validated and the Snapshot, in the documented shape', () => {
    const fact = {
      pair,
      snapshot: 'operands-2',
      entry: { from: 'op-a', digest: D('a') },
      outcome: { outcome: 'pullRequest' } as const,
    };
    const url = 'file:///forge/t/bundle.prs/1.json';
    const fired = validatedNudgeResult(fact, 'op-a-on-push-1', 'direct', url);
    assert.deepEqual(fired, {
      build: 'op-a-on-push-1',
      from: 'op-a',
      to: 'bundle',
      digest: D('a'),
      executor: 'direct',
      mode: 'validated',
      event: 'push',
      snapshot: 'operands-2',
      outcome: 'pullRequest',
      pullRequest: url,
      heldBy: null,
    });
    const failed = validatedNudgeResult(
      { ...fact, outcome: { outcome: 'failed', reason: 'forge-unavailable' } },
      'op-a-on-push-1',
      'renovate',
      url,
    );
    assert.equal(failed.reason, 'forge-unavailable');
    assert.equal(failed.pullRequest, null);
    const result = { changeGroups: [], builds: {}, files: {}, pullRequests: [], nudges: [fired, failed] };
    assert.deepEqual(sandboxResultProblems(result), []);
    assert.notDeepEqual(sandboxResultProblems({ ...result, nudges: [{ ...fired, mode: 'later' }] }), []);
    assert.match(
      renderResultText(result),
      /\nNudges dispatched by nudger: 1 pullRequest, 1 failed\n {2}Snapshot operands-2: 2 validated nudges\n {2}op-a -> bundle \(build op-a-on-push-1\): failed, forge-unavailable\n$/,
    );
  });
});
