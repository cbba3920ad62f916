import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Finding, ManifestIssue, RuleId } from '../../src/domain/model.ts';
import { validateManifestSet } from '../../src/domain/validate.ts';
import { component, components, itemLine, manifestSet, nudgeConfig, type EntrySpec } from './fixtures.ts';

type Parts = Parameters<typeof manifestSet>[0];

function findingsOf(parts: Parts, rule?: RuleId): readonly Finding[] {
  const { findings } = validateManifestSet(manifestSet(parts));
  return rule === undefined ? findings : findings.filter((f) => f.rule === rule);
}

function single(parts: Parts, rule: RuleId): Finding {
  const found = findingsOf(parts, rule);
  assert.equal(found.length, 1, `expected one ${rule} finding, got ${JSON.stringify(found, null, 2)}`);
  return found[0]!;
}

describe('validateManifestSet', () => {
  it('accepts a clean namespace with existing components and no findings', () => {
    const result = validateManifestSet(
      manifestSet({
        components: components('ns', ['a', 'b', 'c']),
        nudgeConfigs: [
          nudgeConfig('ns', [
            ['a', 'b'],
            { from: 'b', to: 'c', mode: 'validated', gatingGroup: 'g' },
            { from: 'a', to: 'c', mode: 'immediate' },
          ]),
        ],
      }),
    );
    assert.deepEqual(result, { valid: true, findings: [] });
  });

  it('carries the parser’s issues over as findings, and only errors make the set invalid', () => {
    const warning: ManifestIssue = {
      rule: 'unknown-field',
      severity: 'warning',
      message: 'NudgeConfig ns/nudge-config spec.nudges[0].form: unknown field; did you mean `from`?',
      object: { kind: 'NudgeConfig', namespace: 'ns', name: 'nudge-config' },
      location: { file: 'x.yaml', line: 7 },
    };
    const error: ManifestIssue = {
      rule: 'invalid-field',
      severity: 'error',
      message: 'metadata.name: required field is missing',
      location: { file: 'y.yaml', line: 1 },
    };
    assert.deepEqual(validateManifestSet(manifestSet({ issues: [warning] })), {
      valid: true,
      findings: [{ ...warning, namespace: 'ns' }],
    });
    const result = validateManifestSet(manifestSet({ issues: [warning, error] }));
    assert.equal(result.valid, false);
    assert.deepEqual(result.findings[0], error, 'an issue without an object has no namespace');
  });

  describe('self-nudge', () => {
    it('rejects a NudgeConfig entry whose from equals its to, at the entry, without also calling it a cycle', () => {
      const config = nudgeConfig('ns', [
        ['a', 'b'],
        ['b', 'b'],
      ]);
      const parts = { nudgeConfigs: [config] };
      assert.deepEqual(single(parts, 'self-nudge'), {
        rule: 'self-nudge',
        severity: 'error',
        message:
          'NudgeConfig ns/nudge-config spec.nudges[1]: from and to are both "b"; a component cannot nudge itself',
        namespace: 'ns',
        object: config.ref,
        location: config.entries[1]?.location,
      });
      assert.deepEqual(findingsOf(parts, 'cycle'), []);
    });

    it('rejects a Component listing itself in build-nudges-ref', () => {
      const finding = single({ components: [component('ns', 'a', ['x', 'a'])] }, 'self-nudge');
      assert.equal(
        finding.message,
        'Component ns/a spec.build-nudges-ref[1]: the component lists itself; a component cannot nudge itself',
      );
      assert.equal(finding.location?.line, itemLine(1));
    });

    it('still reports the larger cycle a self-nudging component is part of', () => {
      const parts = {
        nudgeConfigs: [
          nudgeConfig('ns', [
            ['a', 'a'],
            ['a', 'b'],
            ['b', 'a'],
          ]),
        ],
      };
      assert.deepEqual(single(parts, 'cycle').cycle, ['a', 'b', 'a']);
    });
  });

  describe('duplicate-edge', () => {
    it('rejects the later of two equal pairs in one NudgeConfig, naming the first one’s line', () => {
      const config = nudgeConfig('ns', [
        ['a', 'b'],
        { from: 'a', to: 'c' },
        { from: 'a', to: 'b', mode: 'validated', gatingGroup: 'g' },
      ]);
      assert.deepEqual(single({ nudgeConfigs: [config] }, 'duplicate-edge'), {
        rule: 'duplicate-edge',
        severity: 'error',
        message: `NudgeConfig ns/nudge-config spec.nudges[2]: a -> b is already declared by NudgeConfig ns/nudge-config spec.nudges[0] (line ${itemLine(0)}); only one entry per (from, to) pair is allowed`,
        namespace: 'ns',
        object: config.ref,
        location: config.entries[2]?.location,
      });
    });

    it('names the file when the first declaration has no line', () => {
      const config = nudgeConfig('ns', [
        ['a', 'b'],
        ['a', 'b'],
      ]);
      const lineless = {
        ...config,
        entries: config.entries.map((e, i) => (i === 0 ? { ...e, location: { file: '-' } } : e)),
      };
      assert.match(single({ nudgeConfigs: [lineless] }, 'duplicate-edge').message, /spec\.nudges\[0\] \(-\)/);
    });

    it('rejects a name listed twice in one build-nudges-ref', () => {
      const finding = single({ components: [component('ns', 'a', ['b', 'c', 'b'])] }, 'duplicate-edge');
      assert.equal(finding.severity, 'error');
      assert.equal(finding.location?.line, itemLine(2));
      assert.match(
        finding.message,
        /^Component ns\/a spec\.build-nudges-ref\[2\]: a -> b is already declared by Component ns\/a spec\.build-nudges-ref\[0\]/,
      );
    });

    it('only warns when a NudgeConfig and a build-nudges-ref declare the same edge, since the migration merges them', () => {
      const legacy = component('ns', 'a', ['b']);
      const config = nudgeConfig('ns', [{ from: 'a', to: 'b', mode: 'validated', gatingGroup: 'g' }]);
      const result = validateManifestSet(
        manifestSet({ components: [legacy, component('ns', 'b')], nudgeConfigs: [config] }),
      );
      assert.equal(result.valid, true);
      assert.deepEqual(result.findings, [
        {
          rule: 'duplicate-edge',
          severity: 'warning',
          message: `Component ns/a spec.build-nudges-ref[0]: a -> b is also declared by NudgeConfig ns/nudge-config spec.nudges[0] (ns/nudge-config.yaml:${itemLine(0)}:5); the migration merges them into one edge, so remove the redundant declaration`,
          namespace: 'ns',
          object: legacy.ref,
          location: legacy.buildNudgesRef[0]?.location,
        },
      ]);
    });

    it('warns that an immediate entry nudger fires and a build-nudges-ref item nudge the target twice (D9)', () => {
      const legacy = component('ns', 'a', ['b']);
      const result = validateManifestSet(
        manifestSet({ components: [legacy, component('ns', 'b')], nudgeConfigs: [nudgeConfig('ns', [['a', 'b']])] }),
      );
      assert.equal(result.valid, true);
      assert.deepEqual(result.findings, [
        {
          rule: 'duplicate-edge',
          severity: 'warning',
          message: `Component ns/a spec.build-nudges-ref[0]: a -> b is also an immediate entry of NudgeConfig ns/nudge-config spec.nudges[0] (ns/nudge-config.yaml:${itemLine(0)}:5), which nudger fires, while build-service still nudges what build-nudges-ref declares: b would be nudged twice for each build of a; remove the build-nudges-ref item (the migration does)`,
          namespace: 'ns',
          object: legacy.ref,
          location: legacy.buildNudgesRef[0]?.location,
        },
      ]);
    });

    it('names the entry nudger fires: konflux-ci.dev in either version, not the appstudio.redhat.com import source', () => {
      const messageOf = (configs: ReturnType<typeof nudgeConfig>[]): string =>
        single({ components: [component('ns', 'a', ['b'])], nudgeConfigs: configs }, 'duplicate-edge').message;
      const importOnly = nudgeConfig('ns', [['a', 'b']], { flavour: 'upstream-v1beta2', file: 'up.yaml' });
      const upstreamKonflux = nudgeConfig('ns', [['a', 'b']], { flavour: 'upstream-konflux-v1beta2', file: 'ik.yaml' });
      assert.match(
        messageOf([importOnly]),
        /is also declared by NudgeConfig ns\/nudge-config spec\.nudges\[0\] \(up\.yaml/,
      );
      assert.match(
        messageOf([upstreamKonflux]),
        /is also an immediate entry of NudgeConfig ns\/nudge-config spec\.nudges\[0\] \(ik\.yaml/,
      );
      const both = findingsOf(
        { components: [component('ns', 'a', ['b'])], nudgeConfigs: [importOnly, upstreamKonflux] },
        'duplicate-edge',
      ).filter((f) => f.object?.kind === 'Component');
      assert.equal(both.length, 1);
      assert.match(
        both[0]?.message ?? '',
        /immediate entry of NudgeConfig ns\/nudge-config spec\.nudges\[0\] \(ik\.yaml/,
      );
    });

    it('warns across the two NudgeConfig flavours and errs for a repeat within the second source', () => {
      const parts = {
        nudgeConfigs: [
          nudgeConfig('ns', [['a', 'b']]),
          nudgeConfig(
            'ns',
            [
              ['a', 'b'],
              ['a', 'b'],
            ],
            { flavour: 'upstream-v1beta2', file: 'up.yaml' },
          ),
        ],
      };
      assert.deepEqual(
        findingsOf(parts, 'duplicate-edge').map((f) => [f.severity, f.location?.file, f.location?.line]),
        [
          ['warning', 'up.yaml', itemLine(0)],
          ['error', 'up.yaml', itemLine(1)],
        ],
      );
    });
  });

  describe('cycle', () => {
    it('rejects a transitive cycle built from all sources, naming every edge’s declaration', () => {
      const config = nudgeConfig('ns', [
        ['a', 'b'],
        ['b', 'c'],
      ]);
      const legacy = component('ns', 'c', ['a']);
      const finding = single({ components: [legacy], nudgeConfigs: [config] }, 'cycle');
      assert.deepEqual(finding, {
        rule: 'cycle',
        severity: 'error',
        message:
          'cycle: a -> b -> c -> a (a -> b at NudgeConfig ns/nudge-config spec.nudges[0], b -> c at NudgeConfig ns/nudge-config spec.nudges[1], c -> a at Component ns/c spec.build-nudges-ref[0])',
        namespace: 'ns',
        object: config.ref,
        location: config.entries[0]?.location,
        cycle: ['a', 'b', 'c', 'a'],
      });
    });

    it('finds a cycle through an entry with an invalid mode, and one per independent loop', () => {
      const parts = {
        nudgeConfigs: [
          nudgeConfig('', [{ from: 'a', to: 'b', mode: 'sometimes' }, ['b', 'a'], ['x', 'y'], ['y', 'x']]),
        ],
      };
      const cycles = findingsOf(parts, 'cycle');
      assert.deepEqual(
        cycles.map((f) => f.cycle),
        [
          ['a', 'b', 'a'],
          ['x', 'y', 'x'],
        ],
      );
      assert.equal(cycles[0]?.namespace, '');
      assert.match(cycles[0].message, /a -> b at NudgeConfig nudge-config spec\.nudges\[0\]/);
    });

    it('keeps namespaces apart: the same names in two namespaces do not make a cycle', () => {
      const parts = { nudgeConfigs: [nudgeConfig('one', [['a', 'b']]), nudgeConfig('two', [['b', 'a']])] };
      assert.deepEqual(findingsOf(parts), []);
    });
  });

  describe('too-many-edges', () => {
    const entries = (n: number): [string, string][] =>
      Array.from({ length: n }, (_, i) => [`c${String(i)}`, `c${String(i + 1)}`]);

    it('rejects a NudgeConfig with more than 5000 entries, at the object', () => {
      const config = nudgeConfig('ns', entries(5001));
      assert.deepEqual(single({ nudgeConfigs: [config] }, 'too-many-edges'), {
        rule: 'too-many-edges',
        severity: 'error',
        message:
          'NudgeConfig ns/nudge-config spec.nudges: 5001 entries exceed the limit of 5000 (maxItems of konflux-ci.dev/v1alpha1)',
        namespace: 'ns',
        object: config.ref,
        location: config.location,
      });
      assert.deepEqual(findingsOf({ nudgeConfigs: [nudgeConfig('ns', entries(5000))] }), []);
    });

    it('holds upstream v1beta2 NudgeConfigs to their CRD’s 256', () => {
      const upstream = (n: number) => ({
        nudgeConfigs: [nudgeConfig('ns', entries(n), { flavour: 'upstream-v1beta2' })],
      });
      assert.match(
        single(upstream(257), 'too-many-edges').message,
        /257 entries exceed the limit of 256 \(maxItems of appstudio\.redhat\.com\/v1beta2\)/,
      );
      assert.deepEqual(findingsOf(upstream(256)), []);
    });

    it('copes with 100,000 entries and a cycle through all of them', () => {
      const many = entries(100_000);
      many.push(['c100000', 'c0']);
      const found = findingsOf({ nudgeConfigs: [nudgeConfig('ns', many)] });
      assert.deepEqual(
        found.map((f) => f.rule),
        ['too-many-edges', 'cycle'],
      );
      assert.equal(found[1]?.cycle?.length, 100_002);
      const message = found[1].message;
      assert.ok(message.length < 3000, `message of ${String(message.length)} characters`);
      assert.match(
        message,
        /^cycle: c0 -> c1 -> .* -> c19 -> \.\.\. \(99981 more\) -> c0 \(c0 -> c1 at NudgeConfig ns\/nudge-config spec\.nudges\[0\], .*, 99981 more\)$/,
      );
    });
  });

  describe('invalid-name', () => {
    it('rejects from and to names that are not DNS-1123 labels, naming the field and the value', () => {
      const config = nudgeConfig('ns', [['Upper', 'x'.repeat(64)]]);
      assert.deepEqual(
        findingsOf({ nudgeConfigs: [config] }, 'invalid-name').map((f) => f.message),
        [
          `NudgeConfig ns/nudge-config spec.nudges[0].from: "Upper" is not a valid component name: must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character`,
          `NudgeConfig ns/nudge-config spec.nudges[0].to: "${'x'.repeat(64)}" is not a valid component name: must be no more than 63 characters (has 64)`,
        ],
      );
    });

    it('rejects an invalid build-nudges-ref item', () => {
      const finding = single({ components: [component('ns', 'a', ['under_score'])] }, 'invalid-name');
      assert.match(
        finding.message,
        /^Component ns\/a spec\.build-nudges-ref\[0\]: "under_score" is not a valid component name/,
      );
      assert.equal(finding.location?.line, itemLine(0));
    });

    it('stays silent where the parser already reported the entry’s name, and only there', () => {
      const config = nudgeConfig('ns', [
        ['Bad', 'b'],
        ['Worse', 'b'],
      ]);
      const file = config.location.file;
      const parserIssue: ManifestIssue = {
        rule: 'invalid-name',
        severity: 'error',
        message: 'NudgeConfig ns/nudge-config spec.nudges[0].from "Bad": must consist of ...',
        object: config.ref,
        // The parser points at the field, on a line inside the entry.
        location: { file, line: itemLine(0) + 1 },
      };
      const found = findingsOf({ nudgeConfigs: [config], issues: [parserIssue] }, 'invalid-name');
      assert.deepEqual(
        found.map((f) => f.message.split(' ').slice(0, 3).join(' ')),
        ['NudgeConfig ns/nudge-config spec.nudges[0].from', 'NudgeConfig ns/nudge-config spec.nudges[1].from:'],
      );
      assert.equal(
        found[0],
        found.find((f) => f.message === parserIssue.message),
      );
    });

    it('looks a few lines past the last entry, and not into other files', () => {
      const config = nudgeConfig('ns', [['Bad', 'b']]);
      const at = (file: string, line: number): ManifestIssue => ({
        rule: 'invalid-name',
        severity: 'error',
        message: 'parser says so',
        location: { file, line },
      });
      const count = (issue: ManifestIssue) =>
        findingsOf({ nudgeConfigs: [config], issues: [issue] }, 'invalid-name').length;
      assert.equal(count(at(config.location.file, itemLine(0) + 3)), 1);
      assert.equal(count(at(config.location.file, itemLine(0) + 4)), 2);
      assert.equal(count(at('elsewhere.yaml', itemLine(0))), 2);
      assert.equal(count({ ...at(config.location.file, 0), location: { file: config.location.file } }), 2);
    });

    it('reports an entry without a line even when the parser reported something', () => {
      const config = nudgeConfig('ns', [['Bad', 'b']]);
      const lineless = {
        ...config,
        entries: config.entries.map((e) => ({ ...e, location: { file: e.location.file } })),
      };
      const issue: ManifestIssue = {
        rule: 'invalid-name',
        severity: 'error',
        message: 'x',
        location: { file: config.location.file, line: 1 },
      };
      assert.equal(findingsOf({ nudgeConfigs: [lineless], issues: [issue] }, 'invalid-name').length, 2);
    });
  });

  describe('invalid-mode', () => {
    it('rejects a mode that is neither immediate nor validated', () => {
      const config = nudgeConfig('ns', [{ from: 'a', to: 'b', mode: 'Validated' }]);
      const finding = single({ nudgeConfigs: [config] }, 'invalid-mode');
      assert.equal(
        finding.message,
        'NudgeConfig ns/nudge-config spec.nudges[0].mode: "Validated" is not a nudge mode; expected one of immediate, validated',
      );
      assert.deepEqual(finding.location, config.entries[0]?.location);
    });

    it('stays silent when the parser reported the same entry’s mode', () => {
      const config = nudgeConfig('ns', [{ from: 'a', to: 'b', mode: 'x' }]);
      const issue: ManifestIssue = {
        rule: 'invalid-mode',
        severity: 'error',
        message: 'NudgeConfig ns/nudge-config spec.nudges[0].mode "x": must be one of immediate, validated',
        object: config.ref,
        location: { file: config.location.file, line: itemLine(0) + 2 },
      };
      assert.deepEqual(
        findingsOf({ nudgeConfigs: [config], issues: [issue] }).map((f) => f.message),
        [issue.message],
      );
    });
  });

  describe('missing-gating-group', () => {
    it('rejects a validated entry whose gatingGroup is missing or empty, and nothing else', () => {
      const entries: EntrySpec[] = [
        { from: 'a', to: 'b', mode: 'validated' },
        { from: 'a', to: 'c', mode: 'validated', gatingGroup: '' },
        { from: 'a', to: 'd', mode: 'validated', gatingGroup: 'group' },
        { from: 'a', to: 'e', mode: 'immediate' },
        { from: 'a', to: 'f' },
      ];
      assert.deepEqual(
        findingsOf({ nudgeConfigs: [nudgeConfig('ns', entries)] }).map((f) => [f.rule, f.location?.line, f.message]),
        [
          [
            'missing-gating-group',
            itemLine(0),
            'NudgeConfig ns/nudge-config spec.nudges[0]: mode is "validated" but gatingGroup is missing; name the ComponentGroup whose Snapshot must pass first',
          ],
          [
            'missing-gating-group',
            itemLine(1),
            'NudgeConfig ns/nudge-config spec.nudges[1]: mode is "validated" but gatingGroup is empty; name the ComponentGroup whose Snapshot must pass first',
          ],
        ],
      );
    });
  });

  describe('singleton-name', () => {
    it('rejects a NudgeConfig of either flavour not named nudge-config', () => {
      for (const flavour of ['nudger', 'upstream-v1beta2'] as const) {
        const config = nudgeConfig('ns', [], { name: 'my-nudges', flavour });
        assert.deepEqual(single({ nudgeConfigs: [config] }, 'singleton-name'), {
          rule: 'singleton-name',
          severity: 'error',
          message:
            'NudgeConfig ns/my-nudges metadata.name: "my-nudges" is not allowed; a NudgeConfig is a singleton and must be named "nudge-config"',
          namespace: 'ns',
          object: config.ref,
          location: config.location,
        });
      }
    });
  });

  describe('multiple-nudgeconfigs', () => {
    it('rejects every NudgeConfig after the first of its flavour in a namespace', () => {
      const first = nudgeConfig('ns', []);
      const second = nudgeConfig('ns', [], { name: 'second', file: 'b.yaml' });
      const found = findingsOf({ nudgeConfigs: [first, second] }, 'multiple-nudgeconfigs');
      assert.deepEqual(found, [
        {
          rule: 'multiple-nudgeconfigs',
          severity: 'error',
          message:
            'NudgeConfig ns/second: namespace ns already has a konflux-ci.dev/v1alpha1 NudgeConfig, NudgeConfig ns/nudge-config at line 1; only one is allowed per namespace',
          namespace: 'ns',
          object: second.ref,
          location: second.location,
        },
      ]);
    });

    it('rejects two documents with the same name, in the unset namespace too', () => {
      const twice = [
        nudgeConfig('', [], { flavour: 'upstream-v1beta2' }),
        nudgeConfig('', [], { flavour: 'upstream-v1beta2', file: 'copy.yaml', line: 9 }),
      ];
      const finding = single({ nudgeConfigs: twice }, 'multiple-nudgeconfigs');
      assert.equal(
        finding.message,
        'NudgeConfig nudge-config: the unset namespace already has a appstudio.redhat.com/v1beta2 NudgeConfig, another document with the same name (NudgeConfig nudge-config) at line 1; only one is allowed per namespace',
      );
      assert.equal(finding.location?.file, 'copy.yaml');
    });

    it('accepts one NudgeConfig of each flavour side by side (a migration source) and one per namespace', () => {
      const parts = {
        nudgeConfigs: [
          nudgeConfig('ns', []),
          nudgeConfig('ns', [], { flavour: 'upstream-v1beta2' }),
          nudgeConfig('other', []),
        ],
      };
      assert.deepEqual(findingsOf(parts), []);
    });
  });

  describe('unknown-component', () => {
    it('rejects edge ends that are not among the namespace’s Components', () => {
      const config = nudgeConfig('ns', [
        ['a', 'ghost'],
        ['phantom', 'a'],
      ]);
      const parts = {
        components: [...components('ns', ['a']), component('ns', 'b', ['spectre'])],
        nudgeConfigs: [config],
      };
      assert.deepEqual(
        findingsOf(parts, 'unknown-component').map((f) => [f.severity, f.location?.file, f.message]),
        [
          [
            'error',
            'ns/b.yaml',
            'Component ns/b spec.build-nudges-ref[0]: component "spectre" does not exist in namespace ns',
          ],
          [
            'error',
            'ns/nudge-config.yaml',
            'NudgeConfig ns/nudge-config spec.nudges[0].to: component "ghost" does not exist in namespace ns',
          ],
          [
            'error',
            'ns/nudge-config.yaml',
            'NudgeConfig ns/nudge-config spec.nudges[1].from: component "phantom" does not exist in namespace ns',
          ],
        ],
      );
    });

    it('is not checked for a namespace without Components in the input', () => {
      const parts = { components: components('other', ['a']), nudgeConfigs: [nudgeConfig('ns', [['x', 'y']])] };
      assert.deepEqual(findingsOf(parts), []);
    });

    it('leaves invalid names to invalid-name', () => {
      const parts = { components: components('', ['a']), nudgeConfigs: [nudgeConfig('', [['a', 'Nope']])] };
      assert.deepEqual(
        findingsOf(parts).map((f) => f.rule),
        ['invalid-name'],
      );
      const unset = findingsOf({ components: components('', ['a']), nudgeConfigs: [nudgeConfig('', [['a', 'nope']])] });
      assert.match(unset[0]?.message ?? '', /does not exist in the unset namespace$/);
    });
  });

  describe('ordering', () => {
    it('sorts by namespace, file, line, rule, then column and message, and drops exact repeats', () => {
      const issue = (file: string, line: number, rule: RuleId, message: string, column?: number): ManifestIssue => ({
        rule,
        severity: 'warning',
        message,
        object: { kind: 'Component', namespace: file.startsWith('b') ? 'b' : 'a', name: 'x' },
        location: column === undefined ? { file, line } : { file, line, column },
      });
      const issues = [
        issue('b.yaml', 1, 'unknown-field', 'm'),
        issue('a2.yaml', 1, 'unknown-field', 'm'),
        issue('a1.yaml', 9, 'unknown-field', 'm'),
        issue('a1.yaml', 2, 'unknown-field', 'z'),
        issue('a1.yaml', 2, 'unknown-field', 'y', 3),
        issue('a1.yaml', 2, 'unknown-field', 'y', 3),
        issue('a1.yaml', 2, 'invalid-field', 'm', 1),
        issue('a1.yaml', 2, 'unknown-field', 'yy', 1),
      ];
      const noObject: ManifestIssue = {
        rule: 'invalid-field',
        severity: 'error',
        message: 'm',
        location: { file: 'z.yaml' },
      };
      assert.deepEqual(
        findingsOf({ issues: [...issues, noObject] }).map((f) => [
          f.namespace,
          f.location?.file,
          f.location?.line,
          f.rule,
          f.location?.column,
          f.message,
        ]),
        [
          [undefined, 'z.yaml', undefined, 'invalid-field', undefined, 'm'],
          ['a', 'a1.yaml', 2, 'invalid-field', 1, 'm'],
          ['a', 'a1.yaml', 2, 'unknown-field', undefined, 'z'],
          ['a', 'a1.yaml', 2, 'unknown-field', 1, 'yy'],
          ['a', 'a1.yaml', 2, 'unknown-field', 3, 'y'],
          ['a', 'a1.yaml', 9, 'unknown-field', undefined, 'm'],
          ['a', 'a2.yaml', 1, 'unknown-field', undefined, 'm'],
          ['b', 'b.yaml', 1, 'unknown-field', undefined, 'm'],
        ],
      );
    });
  });
});
