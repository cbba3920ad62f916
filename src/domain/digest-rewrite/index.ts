// Digest rewriting for ChangeGroup pull requests (docs/decisions.md D6).
export { InvalidDigestUpdateError, InvalidFileMatchError } from './errors.ts';
export {
  BUILD_NUDGE_FILES_ANNOTATION,
  DEFAULT_NUDGE_FILES,
  FILE_MATCH_KEY,
  NAMESPACE_WIDE_RENOVATE_CONFIG_MAP,
  NUDGE_RENOVATE_CONFIG_MAP_ANNOTATION,
  compileFileMatch,
  pathMatches,
  resolveFileMatch,
  selectMatchingPaths,
  splitFileMatch,
  type FileMatchSources,
} from './file-match.ts';
export {
  distributionRepositories,
  registryRedHatIoName,
  type DistributionRepositories,
  type IgnoredDistributionUrl,
} from './distribution-repositories.ts';
export {
  DIGEST_PATTERN,
  imageRepository,
  isImageRepository,
  referenceRegex,
  type DigestUpdateRequest,
} from './reference.ts';
export {
  DEFAULT_MAX_FILE_CHARS,
  rewriteDigests,
  type FileChange,
  type Replacement,
  type RepositoryFile,
  type RewriteOptions,
  type RewriteResult,
  type SkipReason,
  type SkippedFile,
} from './rewrite.ts';
export { rewriteDigestSources, sourceFileMatchers, type DigestSource, type SourcesRewrite } from './sources.ts';
