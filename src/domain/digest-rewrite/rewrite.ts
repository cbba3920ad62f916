// Rewrites image digest references in repository files (docs/decisions.md D6). Pure: the caller reads the
// files (ideally only those `selectMatchingPaths` returns) and writes back the changes.
import { compileFileMatch, pathMatches } from './file-match.ts';
import { indexUpdates, referenceRegex, type DigestUpdateRequest } from './reference.ts';

export interface RepositoryFile {
  /** Repository-relative, `/`-separated. */
  readonly path: string;
  readonly text: string;
}

export interface Replacement {
  /** 1-based line of the reference. */
  readonly line: number;
  readonly from: string;
  readonly to: string;
}

export interface FileChange {
  readonly path: string;
  readonly before: string;
  readonly after: string;
  readonly replacements: readonly Replacement[];
}

export type SkipReason = 'binary' | 'too-large';

export interface SkippedFile {
  readonly path: string;
  readonly reason: SkipReason;
}

export interface RewriteResult {
  /** Files whose text changed, in input order. */
  readonly changes: readonly FileChange[];
  /** Files matched by fileMatch but not examined. */
  readonly skipped: readonly SkippedFile[];
  /**
   * Repositories with no digest reference in any examined file (whether already current or not):
   * the nudged repository does not use them, or uses them in a form nudges do not update.
   */
  readonly unreferenced: readonly string[];
}

export interface RewriteOptions {
  /** Files longer than this many UTF-16 code units are skipped. Default 4 Mi. */
  readonly maxFileChars?: number;
}

export const DEFAULT_MAX_FILE_CHARS = 4 * 1024 * 1024;

interface TextRewrite {
  readonly after: string;
  readonly replacements: Replacement[];
  readonly seen: Set<string>;
}

function rewriteText(text: string, regex: RegExp, digests: ReadonlyMap<string, string>): TextRewrite {
  const replacements: Replacement[] = [];
  const seen = new Set<string>();
  // Every reference contains this; most matched files (any YAML) have none, so skip the regex.
  if (!text.includes('@sha256:')) return { after: text, replacements, seen };
  let out = '';
  let copied = 0;
  let line = 1;
  let lineCounted = 0;
  for (const match of text.matchAll(regex)) {
    const [whole, repository = '', tag = '', digest = ''] = match;
    seen.add(repository);
    const wanted = digests.get(repository);
    if (wanted === undefined || wanted === digest) continue;
    const index = match.index;
    for (let i = text.indexOf('\n', lineCounted); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) line += 1;
    lineCounted = index;
    const to = `${repository}${tag}@${wanted}`;
    out += text.slice(copied, index) + to;
    copied = index + whole.length;
    replacements.push({ line, from: whole, to });
  }
  if (replacements.length === 0) return { after: text, replacements, seen };
  return { after: out + text.slice(copied), replacements, seen };
}

/**
 * Points every digest reference to an updated repository, in every file fileMatch selects, at the
 * new digest. Tags, quoting, whitespace and line endings are kept; tag-only references are never
 * touched; running it twice changes nothing the second time.
 */
export function rewriteDigests(
  files: readonly RepositoryFile[],
  updates: readonly DigestUpdateRequest[],
  fileMatch: readonly string[],
  options: RewriteOptions = {},
): RewriteResult {
  const digests = indexUpdates(updates);
  const regex = referenceRegex(digests.keys());
  const matchers = compileFileMatch(fileMatch);
  const maxFileChars = options.maxFileChars ?? DEFAULT_MAX_FILE_CHARS;
  const changes: FileChange[] = [];
  const skipped: SkippedFile[] = [];
  const referenced = new Set<string>();
  for (const file of files) {
    if (regex === undefined || !pathMatches(file.path, matchers)) continue;
    if (file.text.length > maxFileChars) {
      skipped.push({ path: file.path, reason: 'too-large' });
      continue;
    }
    if (file.text.includes('\u0000')) {
      skipped.push({ path: file.path, reason: 'binary' });
      continue;
    }
    const result = rewriteText(file.text, regex, digests);
    for (const repository of result.seen) referenced.add(repository);
    if (result.replacements.length > 0) {
      changes.push({ path: file.path, before: file.text, after: result.after, replacements: result.replacements });
    }
  }
  return { changes, skipped, unreferenced: [...digests.keys()].filter((r) => !referenced.has(r)) };
}
