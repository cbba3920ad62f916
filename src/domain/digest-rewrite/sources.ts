// Several builds' digests in one commit (docs/decisions.md D6, N10, N28): a ChangeGroup pull request
// and a validated batch each rewrite every build's references in the files that build's own
// fileMatch selects, as its own nudge would have done, and a single nudge is the case of one build.
// Pure: the caller reads the files the union of the fileMatches selects (sourceFileMatchers) and
// writes back the changed ones.
import { compareStrings } from '../compare.ts';
import { compileFileMatch } from './file-match.ts';
import { imageRepository } from './reference.ts';
import { rewriteDigests, type RepositoryFile } from './rewrite.ts';

/** One build whose digest goes into the commit. */
export interface DigestSource {
  /** The nudging component. */
  readonly name: string;
  /** `<repository>@<digest>` of the build: its repository is rewritten. */
  readonly pullSpec: string;
  readonly digest: string;
  /** D6: the other names the component is released under, rewritten like its build repository. */
  readonly distributionRepositories: readonly string[];
  /** D6: the fileMatch in force for this build. */
  readonly fileMatch: readonly string[];
}

export interface SourcesRewrite {
  /** The changed files with their new texts, in path order. */
  readonly files: readonly RepositoryFile[];
  /**
   * Sources none of whose repositories (built or distribution) any file their fileMatch selects
   * references by digest, current or not; sorted.
   */
  readonly unreferenced: readonly string[];
  /** For each source with a rewritten reference: the digest the first one pinned before. */
  readonly previousDigests: ReadonlyMap<string, string>;
}

/** The files to read: those any source's fileMatch selects. */
export function sourceFileMatchers(sources: readonly DigestSource[]): RegExp[] {
  return groupByFileMatch(sources).flatMap((group) => compileFileMatch(group.fileMatch));
}

/** Sources grouped by the fileMatch they share, in a stable order. */
function groupByFileMatch(
  sources: readonly DigestSource[],
): { fileMatch: readonly string[]; sources: DigestSource[] }[] {
  const groups = new Map<string, { fileMatch: readonly string[]; sources: DigestSource[] }>();
  for (const source of sources) {
    const key = JSON.stringify(source.fileMatch);
    const group = groups.get(key) ?? { fileMatch: source.fileMatch, sources: [] };
    group.sources.push(source);
    groups.set(key, group);
  }
  return [...groups.entries()].sort(([a], [b]) => compareStrings(a, b)).map(([, group]) => group);
}

/**
 * Every repository each source's digest goes to: its built repository, then its distribution
 * repositories. A distribution name two sources of one group claim with different digests is left
 * to neither (which release is meant cannot be told); built repositories are never dropped.
 */
function repositoriesOf(sources: readonly DigestSource[]): Map<DigestSource, string[]> {
  const claims = new Map<string, Set<string>>();
  const wanted = new Map<DigestSource, string[]>();
  for (const source of sources) {
    const names = [...new Set([imageRepository(source.pullSpec), ...source.distributionRepositories])];
    wanted.set(source, names);
    for (const name of names.slice(1)) claims.set(name, (claims.get(name) ?? new Set()).add(source.digest));
  }
  for (const [source, names] of wanted) {
    wanted.set(source, [names[0] ?? '', ...names.slice(1).filter((name) => (claims.get(name)?.size ?? 0) <= 1)]);
  }
  return wanted;
}

/**
 * The changed files of the single commit. Each group of sources rewrites the texts the previous
 * groups left, so two digests in one file both land.
 */
export function rewriteDigestSources(
  files: readonly RepositoryFile[],
  sources: readonly DigestSource[],
): SourcesRewrite {
  const texts = new Map(files.map((file) => [file.path, file.text]));
  const unreferenced: string[] = [];
  const previousDigests = new Map<string, string>();
  for (const group of groupByFileMatch(sources)) {
    const repositories = repositoriesOf(group.sources);
    const owner = new Map<string, string>();
    for (const [source, names] of repositories) for (const name of names) owner.set(name, source.name);
    const result = rewriteDigests(
      [...texts].map(([path, text]) => ({ path, text })),
      group.sources.flatMap((s) => (repositories.get(s) ?? []).map((repository) => ({ repository, digest: s.digest }))),
      group.fileMatch,
    );
    for (const change of result.changes) {
      texts.set(change.path, change.after);
      for (const { from } of change.replacements) {
        const name = owner.get(imageRepository(from));
        if (name !== undefined && !previousDigests.has(name)) {
          previousDigests.set(name, from.slice(from.lastIndexOf('@') + 1));
        }
      }
    }
    const unseen = new Set(result.unreferenced);
    for (const source of group.sources) {
      if ((repositories.get(source) ?? []).every((repository) => unseen.has(repository))) {
        unreferenced.push(source.name);
      }
    }
  }
  const original = new Map(files.map((file) => [file.path, file.text]));
  return {
    files: [...texts]
      .filter(([path, text]) => original.get(path) !== text)
      .map(([path, text]) => ({ path, text }))
      .sort((a, b) => compareStrings(a.path, b.path)),
    unreferenced: unreferenced.sort(compareStrings),
    previousDigests,
  };
}
