// The Renovate ConfigMap of a nudge (docs/decisions.md D9), read as build-service's
// `ReadCustomRenovateConfigMap` reads it (internal/controller/renovate_util.go, and integration-
// service's twin in tekton/nudging): which ConfigMap applies, the ten keys, their parsing and
// what happens to a malformed value. Both executors read the settings from here, so the `direct`
// pull request and the `renovate` config cannot disagree.
//
// Where nudger differs, docs/decisions.md N15 says why: a value build-service would pass on but
// that would break the text or Renovate's templates is ignored; every ignored value and every
// key build-service does not read is returned as a problem (the controller makes an Event of it)
// instead of being dropped in silence.
import {
  FILE_MATCH_KEY,
  NAMESPACE_WIDE_RENOVATE_CONFIG_MAP,
  NUDGE_RENOVATE_CONFIG_MAP_ANNOTATION,
  resolveFileMatch,
  type FileMatchSources,
} from '../digest-rewrite/index.ts';
import { AUTOMERGE_TYPES, type AutomergeType } from '../../schema/renovate-config.ts';
import { quoteForMessage, unsafeCharacterProblem } from './text-checks.ts';

export { AUTOMERGE_TYPES };

export const BOOLEAN_KEYS = ['automerge', 'platformAutomerge', 'ignoreTests', 'gitLabIgnoreApprovals'] as const;
export type BooleanKey = (typeof BOOLEAN_KEYS)[number];
export const STRING_KEYS = ['automergeType', 'commitMessagePrefix', 'commitMessageSuffix'] as const;
export const LIST_KEYS = [FILE_MATCH_KEY, 'labels', 'automergeSchedule'] as const;
/** Every key build-service reads; any other key of the ConfigMap is reported. */
export const RENOVATE_SETTING_KEYS: readonly string[] = [...BOOLEAN_KEYS, ...STRING_KEYS, ...LIST_KEYS];

export interface RenovateConfigMap {
  readonly name: string;
  readonly data: Readonly<Record<string, string>>;
}

export interface RenovateSettings {
  /** The ConfigMap the settings come from; absent when none applies (every value is then zero). */
  readonly configMap?: string;
  readonly automerge: boolean;
  readonly platformAutomerge: boolean;
  readonly ignoreTests: boolean;
  readonly gitLabIgnoreApprovals: boolean;
  /** One of AUTOMERGE_TYPES, or `''` when unset (Renovate's default, `pr`). */
  readonly automergeType: AutomergeType | '';
  /** As written (Renovate trims and folds whitespace itself); `''` when unset. */
  readonly commitMessagePrefix: string;
  readonly commitMessageSuffix: string;
  /** The ConfigMap's patterns; empty when it sets none (the build's annotation or the default then applies). */
  readonly fileMatch: readonly string[];
  /** Labels beside `konflux-nudge`, in ConfigMap order. */
  readonly labels: readonly string[];
  readonly automergeSchedule: readonly string[];
}

export type RenovateSettingProblemReason =
  | 'unknown-key'
  | 'not-a-boolean'
  | 'unknown-automerge-type'
  | 'renovate-template'
  | 'unsafe-character'
  | 'invalid-file-match'
  | 'invalid-schedule'
  | 'empty-list';

export interface RenovateSettingProblem {
  /** `error`: a value is ignored; `warning`: nothing the user set is lost, but it does nothing. */
  readonly severity: 'error' | 'warning';
  readonly reason: RenovateSettingProblemReason;
  readonly configMap: string;
  readonly key: string;
  /** `ConfigMap <name> key <key>: <why> <short quoted value>; <what nudger does instead>` */
  readonly message: string;
}

export interface RenovateSettingsReading {
  readonly settings: RenovateSettings;
  readonly problems: readonly RenovateSettingProblem[];
}

/** The settings without a ConfigMap: Go's zero values, `platformAutomerge` false included. */
export const NO_RENOVATE_SETTINGS: RenovateSettings = {
  automerge: false,
  platformAutomerge: false,
  ignoreTests: false,
  gitLabIgnoreApprovals: false,
  automergeType: '',
  commitMessagePrefix: '',
  commitMessageSuffix: '',
  fileMatch: [],
  labels: [],
  automergeSchedule: [],
};

/**
 * The ConfigMap in force for a nudged Component, from what `renovateConfigMapSources`
 * (src/cluster/nudged-repository.ts) read: the one its annotation names, replacing the
 * namespace-wide one (undefined when named but missing: defaults, no fallback, as upstream);
 * else `namespace-wide-nudging-renovate-config` when it exists.
 */
export function configMapInForce(
  sources: FileMatchSources,
  nudgedAnnotations: Readonly<Record<string, string>> | undefined,
): RenovateConfigMap | undefined {
  if (sources.perComponentConfigMap !== undefined) {
    if (sources.perComponentConfigMap === null) return undefined;
    const name = nudgedAnnotations?.[NUDGE_RENOVATE_CONFIG_MAP_ANNOTATION] ?? '';
    return { name: name === '' ? '(per-component ConfigMap)' : name, data: sources.perComponentConfigMap };
  }
  if (sources.renovateConfigMap === undefined) return undefined;
  return { name: NAMESPACE_WIDE_RENOVATE_CONFIG_MAP, data: sources.renovateConfigMap };
}

const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Go's `strconv.ParseBool`, exactly: no trimming, no other spellings; undefined when invalid. */
export function parseGoBool(value: string): boolean | undefined {
  if (GO_TRUE.has(value)) return true;
  if (GO_FALSE.has(value)) return false;
  return undefined;
}

/** Renovate compiles these values as Handlebars templates (more than once); nudger writes them as text. */
function hasTemplate(value: string): boolean {
  return value.includes('{{');
}

class ProblemList {
  readonly items: RenovateSettingProblem[] = [];
  readonly #configMap: string;
  constructor(configMap: string) {
    this.#configMap = configMap;
  }
  add(severity: RenovateSettingProblem['severity'], reason: RenovateSettingProblemReason, key: string, text: string) {
    const keyText = /^[-._a-zA-Z0-9]+$/.test(key) ? key : quoteForMessage(key);
    this.items.push({
      severity,
      reason,
      configMap: this.#configMap,
      key,
      message: `ConfigMap ${this.#configMap} key ${keyText}: ${text}`,
    });
  }
}

/** A value that may reach a commit subject, a label or a schedule: why it is refused, or undefined. */
function textValueProblem(value: string): { reason: RenovateSettingProblemReason; why: string } | undefined {
  const unsafe = unsafeCharacterProblem(value);
  if (unsafe !== undefined) return { reason: 'unsafe-character', why: unsafe };
  if (hasTemplate(value)) {
    return { reason: 'renovate-template', why: 'contains a Renovate template ("{{"), which only Renovate expands' };
  }
  return undefined;
}

function readBoolean(
  data: Readonly<Record<string, string>>,
  key: BooleanKey,
  fallback: boolean,
  problems: ProblemList,
) {
  const value = data[key];
  if (value === undefined) return key === 'platformAutomerge';
  const parsed = parseGoBool(value);
  if (parsed !== undefined) return parsed;
  problems.add(
    'error',
    'not-a-boolean',
    key,
    `${quoteForMessage(value)} is not a boolean (true/false, True/False, TRUE/FALSE, t/f, T/F, 1/0); ignored, ${key} is ${String(fallback)} as build-service leaves it`,
  );
  return fallback;
}

function readText(data: Readonly<Record<string, string>>, key: string, problems: ProblemList): string {
  const value = data[key];
  if (value === undefined || value === '') return '';
  const problem = textValueProblem(value);
  if (problem === undefined) return value;
  problems.add('error', problem.reason, key, `${quoteForMessage(value)} ${problem.why}; ignored`);
  return '';
}

function isAutomergeType(value: string): value is AutomergeType {
  return (AUTOMERGE_TYPES as readonly string[]).includes(value);
}

function readAutomergeType(data: Readonly<Record<string, string>>, problems: ProblemList): AutomergeType | '' {
  const value = data.automergeType;
  if (value === undefined || value === '') return '';
  if (isAutomergeType(value)) return value;
  problems.add(
    'error',
    'unknown-automerge-type',
    'automergeType',
    `${quoteForMessage(value)} is not one of ${AUTOMERGE_TYPES.join(', ')} (Renovate would refuse the config); ignored, Renovate's default pr applies`,
  );
  return '';
}

/**
 * Items of a list value, split and trimmed as upstream, empties dropped (as `splitFileMatch` does
 * for the ChangeGroup path: upstream would hand Renovate an empty pattern, which matches every
 * file); each unsafe item dropped with a problem.
 */
function readList(
  data: Readonly<Record<string, string>>,
  key: (typeof LIST_KEYS)[number],
  separator: string,
  problems: ProblemList,
): string[] {
  const value = data[key];
  if (value === undefined) return [];
  const items = value
    .split(separator)
    .map((item) => item.trim())
    .filter((item) => item !== '');
  const kept = items.filter((item) => {
    const problem =
      key === FILE_MATCH_KEY
        ? fileMatchProblem(item)
        : key === 'labels'
          ? textValueProblem(item)
          : scheduleProblem(item);
    if (problem === undefined) return true;
    problems.add('error', problem.reason, key, `item ${quoteForMessage(item)} ${problem.why}; this item is ignored`);
    return false;
  });
  if (items.length === 0) {
    const instead =
      key === FILE_MATCH_KEY ? "the build's build-nudge-files annotation or the default applies" : 'nothing is set';
    problems.add('warning', 'empty-list', key, `lists nothing; ${instead}`);
  }
  return kept;
}

// Cron fields and Renovate's later.js text ("after 10pm every weekday") use no other characters;
// anything else could only add Markdown to the pull request body that quotes the schedule.
const SCHEDULE_CHARACTERS = /^[A-Za-z0-9 *,/:?#-]+$/;

function scheduleProblem(item: string): { reason: RenovateSettingProblemReason; why: string } | undefined {
  if (SCHEDULE_CHARACTERS.test(item)) return undefined;
  return { reason: 'invalid-schedule', why: 'holds a character no cron or Renovate schedule uses' };
}

function fileMatchProblem(pattern: string): { reason: RenovateSettingProblemReason; why: string } | undefined {
  const unsafe = unsafeCharacterProblem(pattern);
  if (unsafe !== undefined) return { reason: 'unsafe-character', why: unsafe };
  try {
    new RegExp(pattern);
    return undefined;
  } catch (error: unknown) {
    // V8 repeats the pattern in its message; only the reason after it is kept, if plain text.
    const detail = /\/: ([\x20-\x7e]{1,80})$/.exec(error instanceof Error ? error.message : '')?.[1] ?? 'syntax error';
    return { reason: 'invalid-file-match', why: `is not a valid regular expression (${detail})` };
  }
}

/**
 * The settings of `configMap` (undefined: no ConfigMap applies), with a problem for every value
 * ignored and every key build-service does not read. `platformAutomerge` is true when the
 * ConfigMap exists and does not set it, as upstream; a malformed one stays false, as upstream.
 */
export function readRenovateSettings(configMap: RenovateConfigMap | undefined): RenovateSettingsReading {
  if (configMap === undefined) return { settings: NO_RENOVATE_SETTINGS, problems: [] };
  const { data } = configMap;
  const problems = new ProblemList(configMap.name);
  for (const key of Object.keys(data).sort()) {
    if (!RENOVATE_SETTING_KEYS.includes(key)) {
      problems.add(
        'warning',
        'unknown-key',
        key,
        `not a setting build-service reads (${RENOVATE_SETTING_KEYS.join(', ')}); ignored`,
      );
    }
  }
  const settings: RenovateSettings = {
    configMap: configMap.name,
    automerge: readBoolean(data, 'automerge', false, problems),
    platformAutomerge: readBoolean(data, 'platformAutomerge', false, problems),
    ignoreTests: readBoolean(data, 'ignoreTests', false, problems),
    gitLabIgnoreApprovals: readBoolean(data, 'gitLabIgnoreApprovals', false, problems),
    automergeType: readAutomergeType(data, problems),
    commitMessagePrefix: readText(data, 'commitMessagePrefix', problems),
    commitMessageSuffix: readText(data, 'commitMessageSuffix', problems),
    fileMatch: readList(data, FILE_MATCH_KEY, ',', problems),
    labels: readList(data, 'labels', ',', problems),
    automergeSchedule: readList(data, 'automergeSchedule', ';', problems),
  };
  return { settings, problems: problems.items };
}

/**
 * The fileMatch patterns in force (docs/decisions.md D6): the ConfigMap's, else the build's
 * `build-nudge-files` annotation, else the default. Same precedence as `resolveFileMatch`, over
 * the ConfigMap patterns that survived `readRenovateSettings`.
 */
export function fileMatchInForce(settings: RenovateSettings, buildNudgeFilesAnnotation: string | undefined): string[] {
  if (settings.fileMatch.length > 0) return [...settings.fileMatch];
  return resolveFileMatch(buildNudgeFilesAnnotation === undefined ? {} : { buildNudgeFilesAnnotation });
}
