// Which files a nudge may rewrite (docs/decisions.md D6), with the precedence Konflux's build-service and
// integration-service use when they generate the Renovate config for a nudge.
import { InvalidFileMatchError } from './errors.ts';

/** build-service and integration-service `DefaultNudgeFiles`, verbatim. */
export const DEFAULT_NUDGE_FILES = '.*Dockerfile.*, .*.yaml, .*Containerfile.*';
/** Annotation on the nudging component's push build PipelineRun. */
export const BUILD_NUDGE_FILES_ANNOTATION = 'build.appstudio.openshift.io/build-nudge-files';
/** Annotation on the nudged Component naming a ConfigMap that replaces the namespace-wide one. */
export const NUDGE_RENOVATE_CONFIG_MAP_ANNOTATION = 'build.appstudio.openshift.io/nudge_renovate_config_map';
export const NAMESPACE_WIDE_RENOVATE_CONFIG_MAP = 'namespace-wide-nudging-renovate-config';
/** ConfigMap data key; the value is a comma-separated list of regexes. */
export const FILE_MATCH_KEY = 'fileMatch';

/**
 * Splits a comma-separated list and trims each entry, as upstream does. Unlike upstream, empty
 * entries are dropped: upstream passes `""` to Renovate, where it matches every file, which a
 * trailing comma in a ConfigMap should not silently do.
 */
export function splitFileMatch(list: string): string[] {
  return list
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

export interface FileMatchSources {
  /** Data of `namespace-wide-nudging-renovate-config`, when it exists. */
  readonly renovateConfigMap?: Readonly<Record<string, string>>;
  /**
   * Data of the ConfigMap the nudged Component names in `nudge_renovate_config_map`. Giving it,
   * even as `null` (named but missing), means the namespace-wide ConfigMap is not read at all:
   * upstream replaces it rather than merging or falling back.
   */
  readonly perComponentConfigMap?: Readonly<Record<string, string>> | null;
  /** `build-nudge-files` of the nudging component's push build PipelineRun. */
  readonly buildNudgeFilesAnnotation?: string;
}

/** The fileMatch regexes in force: the ConfigMap in force, else the annotation, else the default. */
export function resolveFileMatch(sources: FileMatchSources): string[] {
  const configMap =
    sources.perComponentConfigMap === undefined
      ? sources.renovateConfigMap
      : (sources.perComponentConfigMap ?? undefined);
  const fromConfigMap = splitFileMatch(configMap?.[FILE_MATCH_KEY] ?? '');
  if (fromConfigMap.length > 0) return fromConfigMap;
  const fromAnnotation = splitFileMatch(sources.buildNudgeFilesAnnotation ?? '');
  if (fromAnnotation.length > 0) return fromAnnotation;
  return splitFileMatch(DEFAULT_NUDGE_FILES);
}

/** A compiled fileMatch list; throws InvalidFileMatchError naming the first bad pattern. */
export function compileFileMatch(patterns: readonly string[]): RegExp[] {
  return patterns.map((pattern) => {
    try {
      return new RegExp(pattern);
    } catch (error: unknown) {
      throw new InvalidFileMatchError(pattern, error instanceof Error ? error.message : String(error));
    }
  });
}

/**
 * Renovate tests each regex, unanchored, against the repository-relative path: so `.*.yaml` also
 * matches `a.yaml.orig` and `docs/yaml/x`. Kept that way so nudger touches what a nudge would.
 */
export function pathMatches(path: string, fileMatch: readonly RegExp[]): boolean {
  return fileMatch.some((regex) => regex.test(path));
}

/** The paths worth reading at all: lets the I/O side read only matched files of a large tree. */
export function selectMatchingPaths(paths: Iterable<string>, patterns: readonly string[]): string[] {
  const compiled = compileFileMatch(patterns);
  const out: string[] = [];
  for (const path of paths) if (pathMatches(path, compiled)) out.push(path);
  return out;
}
