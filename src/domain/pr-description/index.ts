// The PR description and commit message of a ChangeGroup pull request (ADR 59, docs/decisions.md D4).
export {
  commitMessage,
  CommitMessageError,
  type CommitMessage,
  type CommitMessageInput,
  type DigestUpdate,
} from './commit-message.ts';
export { draftTitle, readyTitle, isDraftTitle, FORGE_KINDS, type ForgeKind } from './draft-title.ts';
export { escapeMarkdown, unescapeMarkdown } from './escape.ts';
export { BEGIN_MARKER, BUILD_NOW_LABEL, REBASE_LABEL } from './managed-block.ts';
export { parseDescription } from './parse.ts';
export { renderDescription, updateDescription, DescriptionInputError } from './render.ts';
export { SKIP_MARKERS, SKIP_CI, hasSkipMarker, neutraliseSkipMarkers, type SkipMarker } from './skip-markers.ts';
export * from './types.ts';
