// The "repo at sha" link of a build, which a nudge quotes in its commit body and pull request
// header ("Image created from '<link>'"). build-service copies the build PipelineRun's annotation
// as it is, and writes '' when there is none; Pipelines-as-Code fills it in
// (`https://github.com/<org>/<repo>?rev=<sha>`, GitLab `<url>/-/tree/<sha>`). nudger reads the new
// component model's spelling too (docs/decisions.md D1), and refuses a value that could break the
// quoted text or the Markdown around it, or that carries credentials.
import { NudgeInputError } from './errors.ts';

export const REPO_AT_SHA_ANNOTATION = 'build.appstudio.openshift.io/repo';
export const REPO_AT_SHA_ANNOTATION_V2 = 'build.konflux-ci.dev/repo';

const MAX_LINK_LENGTH = 2048;
// RFC 3986 characters, without the quote, parentheses and brackets that would end the quoted
// text or a Markdown link early.
const LINK_CHARACTERS = /^[A-Za-z0-9\-._~:/?#@!$&*+,;=%]+$/;

/** Throws NudgeInputError when `link` (non-empty) may not be quoted in a commit or pull request. */
export function checkRepoAtShaLink(link: string, field = 'repoAtShaLink'): void {
  if (link === '') return;
  if (link.length > MAX_LINK_LENGTH)
    throw new NudgeInputError(field, `is longer than ${String(MAX_LINK_LENGTH)} characters`);
  if (!LINK_CHARACTERS.test(link)) {
    throw new NudgeInputError(field, 'holds a character a URL does not need (space, quote, bracket or control)');
  }
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw new NudgeInputError(field, 'is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new NudgeInputError(field, 'is not an http(s) URL');
  // Never quote a credential into a commit or a pull request.
  if (url.username !== '' || url.password !== '') throw new NudgeInputError(field, 'carries user information');
}

/** The build's repo-at-sha link: the annotation (old model, then new), else ''. */
export function repoAtShaLink(buildAnnotations: Readonly<Record<string, string>>): string {
  const old = buildAnnotations[REPO_AT_SHA_ANNOTATION];
  const link = old === undefined || old === '' ? (buildAnnotations[REPO_AT_SHA_ANNOTATION_V2] ?? '') : old;
  checkRepoAtShaLink(link);
  return link;
}

/** The build's link as a nudge may quote it: '' and why, when the annotation's value is refused. */
export function quotableRepoAtShaLink(buildAnnotations: Readonly<Record<string, string>>): {
  readonly link: string;
  /** Why the annotation's link is not quoted (NudgeInputError's reason), when it is not. */
  readonly ignored?: string;
} {
  try {
    return { link: repoAtShaLink(buildAnnotations) };
  } catch (error) {
    if (!(error instanceof NudgeInputError)) throw error;
    return { link: '', ignored: error.reason };
  }
}
