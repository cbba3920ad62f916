// A STAND-IN FOR RENOVATE, for the sandbox only: what Renovate does with one of the configs the
// `renovate` executor generates (src/domain/nudge/renovate-config.ts), reproduced closely enough
// that the sandbox can run the same scenario with both executors and compare the pull requests,
// branches and file contents they give (issue 10). Production code never uses it: in a cluster,
// the nudge PipelineRun runs the real Renovate.
//
// Pure: the caller reads the repository's files and the new digest, and writes what this returns.
// It follows Renovate's documented regex-manager behaviour (docs.renovatebot.com/modules/manager/
// regex, and renovatebot/renovate lib/modules/manager/custom/regex and
// lib/workers/repository/update/branch/auto-replace.ts):
// - a file takes part when one of the manager's fileMatch regexes matches its path (unanchored);
// - each matchString is run with the g flag over the whole file (not per line; matchStringsStrategy
//   "any"), and every match is a dependency: depName and currentValue from depNameTemplate and
//   currentValueTemplate (nudger writes literals, no Handlebars), currentDigest from the named
//   group, the whole match as its replaceString;
// - packageRules apply in order (`matchPackagePatterns: ["*"]` matches every package), so the
//   nudge's rule re-enables only its own packages;
// - the docker datasource gives the digest of `depName:currentValue` (the caller's lookup; the
//   sandbox has no registry), and a dependency whose currentDigest differs is updated: without an
//   autoReplaceStringTemplate, Renovate replaces currentDigest by newDigest (and currentValue by
//   newValue, the same tag here) inside the replaceString, at the dependency's own position;
// - the branch is branchPrefix + additionalBranchPrefix + branchTopic, where a groupName makes the
//   topic the group's slug (`{{{groupSlug}}}`); the commit subject is Renovate's "<prefix> Update
//   <commitMessageTopic> to <digest7> <suffix>" (renovateCommitSubject, N17), the message adds
//   commitBody after a blank line; the pull request is titled like the subject, its body is
//   Renovate's between prHeader and prFooter, and it carries the config's labels;
// - a validated batch's config (docs/decisions.md N29) has one custom manager per component, each
//   over the files its own fileMatch selects, and one group rule: every update goes onto the one
//   branch `branchPrefix + additionalBranchPrefix + groupSlug` in one commit and one pull request.
//   Renovate groups a branch's updates when they are of more than one package (one package with
//   several references is no group): then the docker datasource's digest group settings title it
//   "Update <groupName>" (its commitMessageExtra is ''), and the body's table has a row per
//   package and digest change; otherwise the rule's commitMessageTopic and commitMessageExtra
//   (default "to <digest7>") make the title;
// - with automerge, automergeType pr (the default), platformAutomerge and no automergeSchedule,
//   Renovate asks the forge to auto-merge the pull request it opens (what one run does, as
//   src/domain/nudge/direct-automerge.ts sets out).
import { compileFileMatch, pathMatches } from '../domain/digest-rewrite/index.ts';
import { objectDecoder } from '../domain/schema-validation.ts';
import { digestShort, renovateCommitSubject, renovateGroupCommitSubject } from '../domain/nudge/commit-subject.ts';
import { automergePlan } from '../domain/nudge/direct-automerge.ts';
import { renovateBodyAround, renovatePullRequestBody } from '../domain/nudge/pull-request-text.ts';
import { RenovateNudgeConfig } from '../schema/renovate-config.ts';

export class RenovateEmulationError extends Error {
  override readonly name = 'RenovateEmulationError';
}

const decodeConfig = objectDecoder(RenovateNudgeConfig);

/** A config as the nudge's ConfigMap holds it (JSON text), decoded with the schema it was built to. */
export function readRenovateConfig(text: string, where: string): RenovateNudgeConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new RenovateEmulationError(`${where}: not JSON`);
  }
  const decoded = decodeConfig(parsed);
  if (!decoded.ok) {
    const problems = decoded.problems.map((p) => `${p.path}: ${p.message}`).join('; ');
    throw new RenovateEmulationError(`${where}: not a nudge config (${problems})`);
  }
  return decoded.object;
}

export interface RepositoryText {
  readonly path: string;
  readonly text: string;
}

/** One dependency the regex manager extracted. */
export interface ExtractedDependency {
  readonly path: string;
  readonly depName: string;
  readonly currentValue: string;
  readonly currentDigest: string;
  /** The whole match. */
  readonly replaceString: string;
  readonly index: number;
}

function literalTemplate(value: string, field: string): string {
  if (value.includes('{{')) throw new RenovateEmulationError(`${field}: Handlebars templates are not emulated`);
  return value;
}

type CustomManager = RenovateNudgeConfig['customManagers'][number];

/** The files one manager's fileMatch selects, by path. */
function managerFiles(manager: CustomManager, files: readonly RepositoryText[]): RepositoryText[] {
  const matchers = compileFileMatch(manager.fileMatch);
  return files.filter((file) => pathMatches(file.path, matchers));
}

/** The files Renovate reads: those any manager's fileMatch selects, by path. */
export function selectPackageFiles(config: RenovateNudgeConfig, files: readonly RepositoryText[]): RepositoryText[] {
  const selected = new Set(config.customManagers.flatMap((manager) => managerFiles(manager, files)));
  return files.filter((file) => selected.has(file));
}

/** The regex managers' extraction: for each manager, every match of every matchString in its files. */
export function extractDependencies(config: RenovateNudgeConfig, files: readonly RepositoryText[]) {
  const dependencies: ExtractedDependency[] = [];
  for (const manager of config.customManagers) {
    const depName = literalTemplate(manager.depNameTemplate, 'depNameTemplate');
    const currentValue = literalTemplate(manager.currentValueTemplate, 'currentValueTemplate');
    for (const file of managerFiles(manager, files)) {
      for (const matchString of manager.matchStrings) {
        for (const match of file.text.matchAll(new RegExp(matchString, 'g'))) {
          const currentDigest = match.groups?.currentDigest;
          if (currentDigest === undefined) continue;
          dependencies.push({
            path: file.path,
            depName,
            currentValue,
            currentDigest,
            replaceString: match[0],
            index: match.index,
          });
        }
      }
    }
  }
  return dependencies;
}

/** Whether packageRules leave the package enabled, applied in order as Renovate merges them. */
export function packageEnabled(config: RenovateNudgeConfig, depName: string): boolean {
  let enabled = true;
  for (const rule of config.packageRules) {
    // Renovate reads the pattern "*" as every package; the schema allows no other pattern.
    const byPattern = 'matchPackagePatterns' in rule;
    const byName = 'matchPackageNames' in rule && rule.matchPackageNames.includes(depName);
    if (byPattern || byName) enabled = rule.enabled;
  }
  return enabled;
}

/** Renovate's slugify of a groupName or groupSlug, for the names nudger writes (letters, digits, `-`, `.`, spaces). */
function groupSlug(name: string): string {
  return name.trim().toLowerCase().replace(/\s+/g, '-');
}

/**
 * The branch Renovate names for the nudge's package rule: a group's topic is its slug (groupSlug
 * when the rule gives one, else groupName's), whatever branchTopic says.
 */
export function renovateBranchName(config: RenovateNudgeConfig): string {
  const [, rule] = config.packageRules;
  return `${rule.branchPrefix}${rule.additionalBranchPrefix}${groupSlug(rule.groupSlug ?? rule.groupName)}`;
}

export interface ChangedFile {
  readonly path: string;
  readonly before: string;
  readonly after: string;
}

export interface RenovateUpdate {
  /** `<owner>/<name>` and its base branch, from the config's repositories. */
  readonly repository: string;
  readonly baseBranch: string;
  readonly branch: string;
  readonly files: readonly ChangedFile[];
  readonly commitSubject: string;
  /** Subject, blank line, commitBody. */
  readonly commitMessage: string;
  readonly prTitle: string;
  readonly prBody: string;
  readonly labels: readonly string[];
  /** Ask the forge to auto-merge the pull request. */
  readonly platformAutomerge: boolean;
  /** The new digest of the first reference updated. */
  readonly newDigest: string;
  /** Every package updated, by depName, with its new digest (one for a single nudge). */
  readonly newDigests: ReadonlyMap<string, string>;
}

export interface EmulationInput {
  readonly config: RenovateNudgeConfig;
  /** The base branch's files (at least every file fileMatch selects). */
  readonly files: readonly RepositoryText[];
  /** The docker datasource: the digest `depName:tag` points to now, or undefined when unknown. */
  readonly lookupDigest: (depName: string, tag: string) => string | undefined;
  /** Renovate's semanticCommits "auto" result for the base branch; default false. */
  readonly semanticCommits?: boolean;
}

interface Upgrade extends ExtractedDependency {
  readonly newDigest: string;
}

/** Each dependency's replaceString with its digest replaced by its own new one, at its own position. */
function applyUpdates(file: RepositoryText, updates: readonly Upgrade[]): string {
  let text = '';
  let copied = 0;
  for (const update of [...updates].sort((a, b) => a.index - b.index)) {
    if (update.index < copied) throw new RenovateEmulationError(`${file.path}: two matches overlap`);
    text +=
      file.text.slice(copied, update.index) + update.replaceString.split(update.currentDigest).join(update.newDigest);
    copied = update.index + update.replaceString.length;
  }
  return text + file.text.slice(copied);
}

/**
 * Renovate's updates table for a group: a row per package and digest change (identical rows
 * once), packages in name order.
 */
function groupUpdatesTable(upgrades: readonly Upgrade[]): string {
  const rows = [...upgrades]
    .sort((a, b) => (a.depName < b.depName ? -1 : a.depName > b.depName ? 1 : 0))
    .map((u) => {
      const change = `\`${digestShort(u.currentDigest, 'currentDigest')}\` -> \`${digestShort(u.newDigest)}\``;
      return `| ${u.depName} | digest | ${change} |`;
    });
  return (
    '\n\nThis PR contains the following updates:\n\n' +
    '| Package | Update | Change |\n|---|---|---|\n' +
    `${[...new Set(rows)].join('\n')}\n\n\n`
  );
}

type Rule = RenovateNudgeConfig['packageRules'][1];

/**
 * The subject: a group's "Update <groupName>" when the branch updates several packages; else the
 * rule's topic and extra (Renovate's digest extra "to <digest7>" unless the rule sets one).
 */
function commitSubjectOf(rule: Rule, grouped: boolean, newDigest: string, semanticCommits?: boolean): string {
  const affixes = {
    commitMessagePrefix: rule.commitMessagePrefix ?? '',
    commitMessageSuffix: rule.commitMessageSuffix ?? '',
    ...(semanticCommits === undefined ? {} : { semanticCommits }),
  };
  if (grouped) return renovateGroupCommitSubject({ groupName: rule.groupName, ...affixes });
  if (rule.commitMessageExtra === undefined) {
    return renovateCommitSubject({ nudging: rule.commitMessageTopic, newDigest, ...affixes });
  }
  if (rule.commitMessageExtra !== '') throw new RenovateEmulationError('commitMessageExtra: only "" is emulated');
  return renovateGroupCommitSubject({ groupName: rule.commitMessageTopic, ...affixes });
}

/** What Renovate would push and open for this config, or undefined when nothing needs updating. */
export function emulateRenovate(input: EmulationInput): RenovateUpdate | undefined {
  const { config } = input;
  const [repository] = config.repositories;
  const baseBranch = repository?.baseBranches[0];
  if (repository === undefined || baseBranch === undefined) {
    throw new RenovateEmulationError('repositories: no repository with a base branch');
  }
  const [, rule] = config.packageRules;
  const dependencies = extractDependencies(config, input.files).filter((d) => packageEnabled(config, d.depName));
  const lookups = new Map<string, string | undefined>();
  const newDigestOf = (d: ExtractedDependency) => {
    const key = `${d.depName}:${d.currentValue}`;
    if (!lookups.has(key)) lookups.set(key, input.lookupDigest(d.depName, d.currentValue));
    return lookups.get(key);
  };
  const updates = dependencies.flatMap((d): Upgrade[] => {
    const digest = newDigestOf(d);
    return digest === undefined || digest === d.currentDigest ? [] : [{ ...d, newDigest: digest }];
  });
  // The table's one row names the first reference of the first file changed, as the direct
  // executor's does (extraction lists each matchString's matches in turn).
  const fileOrder = new Map(input.files.map((file, i) => [file.path, i]));
  const [first] = [...updates].sort(
    (a, b) => (fileOrder.get(a.path) ?? 0) - (fileOrder.get(b.path) ?? 0) || a.index - b.index,
  );
  if (first === undefined) return undefined;
  const files: ChangedFile[] = [];
  for (const file of input.files) {
    const own = updates.filter((u) => u.path === file.path);
    if (own.length > 0) files.push({ path: file.path, before: file.text, after: applyUpdates(file, own) });
  }
  const newDigests = new Map(updates.map((u) => [u.depName, u.newDigest]));
  const grouped = newDigests.size > 1;
  const commitSubject = commitSubjectOf(rule, grouped, first.newDigest, input.semanticCommits);
  const frame = {
    prHeader: rule.prHeader,
    prFooter: rule.prFooter,
    automerge: config.automerge,
    automergeSchedule: config.automergeSchedule ?? [],
  };
  return {
    repository: repository.repository,
    baseBranch,
    branch: renovateBranchName(config),
    files,
    commitSubject,
    commitMessage: `${commitSubject}\n\n${rule.commitBody}`,
    prTitle: commitSubject,
    prBody: grouped
      ? renovateBodyAround({ ...frame, updates: groupUpdatesTable(updates) })
      : renovatePullRequestBody({
          ...frame,
          repository: first.depName,
          currentDigest: first.currentDigest,
          newDigest: first.newDigest,
        }),
    labels: config.labels,
    platformAutomerge: automergePlan(
      {
        automerge: config.automerge,
        platformAutomerge: config.platformAutomerge,
        automergeType: config.automergeType ?? '',
        automergeSchedule: config.automergeSchedule ?? [],
        ignoreTests: config.ignoreTests,
        gitLabIgnoreApprovals: config.gitLabIgnoreApprovals,
      },
      { kind: config.platform, canAutoMerge: true },
    ).enable,
    newDigest: first.newDigest,
    newDigests,
  };
}
