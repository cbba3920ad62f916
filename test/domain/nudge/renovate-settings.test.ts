import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  AUTOMERGE_TYPES,
  NO_RENOVATE_SETTINGS,
  configMapInForce,
  fileMatchInForce,
  parseGoBool,
  readRenovateSettings,
  type RenovateConfigMap,
} from '../../../src/domain/nudge/renovate-settings.ts';
import { quoteForMessage, unsafeCharacterProblem } from '../../../src/domain/nudge/text-checks.ts';

const WIDE = 'namespace-wide-nudging-renovate-config';
const wide = (data: Record<string, string>): RenovateConfigMap => ({ name: WIDE, data });

describe('parseGoBool: strconv.ParseBool exactly', () => {
  it('accepts the twelve spellings Go accepts', () => {
    for (const v of ['1', 't', 'T', 'TRUE', 'true', 'True']) assert.equal(parseGoBool(v), true, v);
    for (const v of ['0', 'f', 'F', 'FALSE', 'false', 'False']) assert.equal(parseGoBool(v), false, v);
  });

  it('refuses everything else, whitespace and other cases included', () => {
    for (const v of ['', ' true', 'true ', 'true\n', 'yes', 'no', 'on', 'tRUE', 'TrUe', 'fALSE', '2', '01', 'y']) {
      assert.equal(parseGoBool(v), undefined, JSON.stringify(v));
    }
  });

  it('property: defined exactly for the twelve spellings', () => {
    const spellings = new Set(['1', 't', 'T', 'TRUE', 'true', 'True', '0', 'f', 'F', 'FALSE', 'false', 'False']);
    fc.assert(
      fc.property(fc.string({ maxLength: 6 }), (value) => {
        assert.equal(parseGoBool(value) !== undefined, spellings.has(value));
      }),
    );
  });
});

describe('configMapInForce: which ConfigMap applies (D6, D9)', () => {
  const annotation = { 'build.appstudio.openshift.io/nudge_renovate_config_map': 'operand-a-renovate' };

  it('no ConfigMap at all: none', () => {
    assert.equal(configMapInForce({}, undefined), undefined);
  });

  it('the namespace-wide one when no per-component one is named', () => {
    assert.deepEqual(configMapInForce({ renovateConfigMap: { automerge: 'true' } }, {}), {
      name: WIDE,
      data: { automerge: 'true' },
    });
  });

  it('the per-component one replaces the namespace-wide one, named by the annotation', () => {
    const sources = { renovateConfigMap: { automerge: 'true' }, perComponentConfigMap: { labels: 'a' } };
    assert.deepEqual(configMapInForce(sources, annotation), { name: 'operand-a-renovate', data: { labels: 'a' } });
  });

  it('a named but missing per-component one means defaults, never the namespace-wide one', () => {
    const sources = { renovateConfigMap: { automerge: 'true' }, perComponentConfigMap: null };
    assert.equal(configMapInForce(sources, annotation), undefined);
    assert.deepEqual(readRenovateSettings(configMapInForce(sources, annotation)).settings, NO_RENOVATE_SETTINGS);
  });
});

describe('readRenovateSettings: build-service ReadCustomRenovateConfigMap', () => {
  it('without a ConfigMap every value is zero, platformAutomerge false', () => {
    const { settings, problems } = readRenovateSettings(undefined);
    assert.deepEqual(settings, NO_RENOVATE_SETTINGS);
    assert.equal(settings.platformAutomerge, false);
    assert.deepEqual(problems, []);
  });

  it('an empty ConfigMap turns platformAutomerge on and nothing else', () => {
    const { settings, problems } = readRenovateSettings(wide({}));
    assert.deepEqual(settings, { ...NO_RENOVATE_SETTINGS, configMap: WIDE, platformAutomerge: true });
    assert.deepEqual(problems, []);
  });

  it('reads every key (the upstream test ConfigMap)', () => {
    const { settings, problems } = readRenovateSettings(
      wide({
        automerge: 'true',
        commitMessagePrefix: 'chore(deps):',
        commitMessageSuffix: '[nudge]',
        fileMatch: 'cfile1, cfile2',
        automergeType: 'pr',
        platformAutomerge: 'false',
        ignoreTests: 'true',
        gitLabIgnoreApprovals: 'true',
        automergeSchedule: '* 22-23,0-4 * * *; * * * * 0,6',
        labels: 'custom1, custom2',
      }),
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(settings, {
      configMap: WIDE,
      automerge: true,
      platformAutomerge: false,
      ignoreTests: true,
      gitLabIgnoreApprovals: true,
      automergeType: 'pr',
      commitMessagePrefix: 'chore(deps):',
      commitMessageSuffix: '[nudge]',
      fileMatch: ['cfile1', 'cfile2'],
      labels: ['custom1', 'custom2'],
      automergeSchedule: ['* 22-23,0-4 * * *', '* * * * 0,6'],
    });
  });

  it('a malformed boolean is ignored with an error naming the key and the ConfigMap', () => {
    const { settings, problems } = readRenovateSettings(wide({ automerge: 'yes', ignoreTests: ' true' }));
    assert.equal(settings.automerge, false);
    assert.equal(settings.ignoreTests, false);
    assert.deepEqual(
      problems.map((p) => [p.severity, p.reason, p.configMap, p.key]),
      [
        ['error', 'not-a-boolean', WIDE, 'automerge'],
        ['error', 'not-a-boolean', WIDE, 'ignoreTests'],
      ],
    );
    assert.equal(
      problems[0]?.message,
      `ConfigMap ${WIDE} key automerge: "yes" is not a boolean (true/false, True/False, TRUE/FALSE, t/f, T/F, 1/0); ignored, automerge is false as build-service leaves it`,
    );
  });

  it('a malformed platformAutomerge falls back to false (Go zero value), not to the default true', () => {
    const { settings, problems } = readRenovateSettings(wide({ platformAutomerge: 'enabled' }));
    assert.equal(settings.platformAutomerge, false);
    assert.equal(problems[0]?.key, 'platformAutomerge');
  });

  it('unknown keys are reported as warnings, never dropped silently', () => {
    const { settings, problems } = readRenovateSettings(wide({ automergeStrategy: 'squash', prHourlyLimit: '2' }));
    assert.deepEqual(settings, { ...NO_RENOVATE_SETTINGS, configMap: WIDE, platformAutomerge: true });
    assert.deepEqual(
      problems.map((p) => [p.severity, p.reason, p.key]),
      [
        ['warning', 'unknown-key', 'automergeStrategy'],
        ['warning', 'unknown-key', 'prHourlyLimit'],
      ],
    );
    assert.match(
      problems[0]?.message ?? '',
      /^ConfigMap namespace-wide-nudging-renovate-config key automergeStrategy: not a setting/,
    );
  });

  it('lists: comma-split (labels, fileMatch) and semicolon-split (automergeSchedule), trimmed, empties dropped', () => {
    const { settings } = readRenovateSettings(
      wide({ labels: ' a ,, b,', fileMatch: '.*Dockerfile.*, ,.*\\.yaml$', automergeSchedule: ';after 10pm;  ;' }),
    );
    assert.deepEqual(settings.labels, ['a', 'b']);
    assert.deepEqual(settings.fileMatch, ['.*Dockerfile.*', '.*\\.yaml$']);
    assert.deepEqual(settings.automergeSchedule, ['after 10pm']);
  });

  it('a list that names nothing is a warning; fileMatch then falls back to the annotation', () => {
    const { settings, problems } = readRenovateSettings(wide({ fileMatch: ' , ' }));
    assert.deepEqual(settings.fileMatch, []);
    assert.deepEqual(
      problems.map((p) => [p.severity, p.reason, p.key]),
      [['warning', 'empty-list', 'fileMatch']],
    );
    assert.deepEqual(fileMatchInForce(settings, 'bundle/.*\\.yaml'), ['bundle/.*\\.yaml']);
  });

  it('an invalid fileMatch pattern is dropped with an error; the others are kept', () => {
    const { settings, problems } = readRenovateSettings(wide({ fileMatch: 'ok\\.yaml, (unclosed' }));
    assert.deepEqual(settings.fileMatch, ['ok\\.yaml']);
    assert.equal(problems[0]?.reason, 'invalid-file-match');
    assert.equal(
      problems[0].message,
      'ConfigMap namespace-wide-nudging-renovate-config key fileMatch: item "(unclosed" is not a valid regular expression (Unterminated group); this item is ignored',
    );
  });

  it('a schedule entry with characters no schedule uses is dropped (it is quoted in the PR body)', () => {
    const { settings, problems } = readRenovateSettings(
      wide({ automergeSchedule: 'after 10pm every weekday; * 0-4 * * 1#2; x - [x] <!-- rebase-check -->' }),
    );
    assert.deepEqual(settings.automergeSchedule, ['after 10pm every weekday', '* 0-4 * * 1#2']);
    assert.deepEqual(
      problems.map((p) => [p.key, p.reason]),
      [['automergeSchedule', 'invalid-schedule']],
    );
  });

  it('automergeType must be one Renovate accepts', () => {
    for (const type of AUTOMERGE_TYPES)
      assert.equal(readRenovateSettings(wide({ automergeType: type })).settings.automergeType, type);
    const { settings, problems } = readRenovateSettings(wide({ automergeType: 'squash' }));
    assert.equal(settings.automergeType, '');
    assert.equal(problems[0]?.reason, 'unknown-automerge-type');
  });

  it('prefix, suffix and labels with a Renovate template or a control character are ignored', () => {
    const { settings, problems } = readRenovateSettings(
      wide({
        commitMessagePrefix: '{{depName}}:',
        commitMessageSuffix: 'x\u001b[31m',
        labels: 'ok, {{updateType}}, bad\u202eeman',
      }),
    );
    assert.equal(settings.commitMessagePrefix, '');
    assert.equal(settings.commitMessageSuffix, '');
    assert.deepEqual(settings.labels, ['ok']);
    assert.deepEqual(
      problems.map((p) => [p.key, p.reason]),
      [
        ['commitMessagePrefix', 'renovate-template'],
        ['commitMessageSuffix', 'unsafe-character'],
        ['labels', 'renovate-template'],
        ['labels', 'unsafe-character'],
      ],
    );
    // Messages stay printable ASCII: the escape character is quoted, never written raw.
    for (const p of problems) assert.match(p.message, /^[\x20-\x7e…]*$/, p.message);
  });

  it('whitespace Renovate folds (newline, tab) is allowed in prefix and suffix', () => {
    const { settings, problems } = readRenovateSettings(
      wide({ commitMessagePrefix: 'chore:\n', commitMessageSuffix: '\t[ci]' }),
    );
    assert.equal(settings.commitMessagePrefix, 'chore:\n');
    assert.equal(settings.commitMessageSuffix, '\t[ci]');
    assert.deepEqual(problems, []);
  });

  it('a hostile unknown key is quoted in the message', () => {
    const { problems } = readRenovateSettings(wide({ 'a\nb': 'x' }));
    assert.equal(problems[0]?.message.includes('\n'), false);
  });

  it('property: never throws, messages are one printable line and name the ConfigMap', () => {
    fc.assert(
      fc.property(
        fc.dictionary(
          fc.oneof(
            fc.constantFrom('fileMatch', 'labels', 'automerge', 'commitMessagePrefix'),
            fc.string({ maxLength: 12, unit: 'binary' }),
          ),
          fc.string({ maxLength: 30, unit: 'binary' }),
        ),
        (data) => {
          const { problems } = readRenovateSettings({ name: 'cm', data });
          for (const p of problems) {
            assert.match(p.message, /^ConfigMap cm key /);
            assert.match(p.message, /^[\x20-\x7e…]*$/);
          }
        },
      ),
    );
  });
});

describe('fileMatchInForce: D6 precedence over the settings', () => {
  it('ConfigMap, else annotation, else default', () => {
    const withCm = readRenovateSettings(wide({ fileMatch: 'a' })).settings;
    assert.deepEqual(fileMatchInForce(withCm, 'b'), ['a']);
    assert.deepEqual(fileMatchInForce(NO_RENOVATE_SETTINGS, 'b, c'), ['b', 'c']);
    assert.deepEqual(fileMatchInForce(NO_RENOVATE_SETTINGS, undefined), [
      '.*Dockerfile.*',
      '.*.yaml',
      '.*Containerfile.*',
    ]);
  });
});

describe('text checks', () => {
  it('unsafeCharacterProblem', () => {
    assert.equal(unsafeCharacterProblem('chore(deps): ünïcode 🎉\t\n\r\f'), undefined);
    assert.match(unsafeCharacterProblem('a\u0000') ?? '', /U\+0000/);
    assert.match(unsafeCharacterProblem('a\u000b') ?? '', /U\+000B/);
    assert.match(unsafeCharacterProblem('a\u0085') ?? '', /U\+0085/);
    assert.match(unsafeCharacterProblem('a\u2067') ?? '', /bidirectional/);
    assert.match(unsafeCharacterProblem('a\ud800') ?? '', /lone surrogate/);
    assert.match(unsafeCharacterProblem('\udc00a') ?? '', /lone surrogate/);
  });

  it('quoteForMessage: short, quoted, ASCII', () => {
    assert.equal(quoteForMessage('yes'), '"yes"');
    assert.equal(quoteForMessage('é\n'), '"\\u00E9\\n"');
    assert.equal(quoteForMessage('x'.repeat(50)), `"${'x'.repeat(40)}"…`);
  });
});
