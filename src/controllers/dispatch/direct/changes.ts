// The files a `direct` nudge changes (docs/decisions.md D6): every file of the base that the
// fileMatch in force selects (anchored patterns, compiled as the ChangeGroup compiles them), with
// each digest reference to the build's repository or one of its distribution repositories pointed
// at the build's digest. A validated batch (N28) does the same for each of its builds, each in the
// files its own fileMatch selects, in one commit. Tag-only references are never touched; a
// repository that never matches inside a longer name is the rewriter's anchoring.
import type { BaseCheckout, FileText } from '../../../adapters/git/workspace.ts';
import {
  imageRepository,
  pathMatches,
  rewriteDigestSources,
  sourceFileMatchers,
  type DigestSource,
  type SourcesRewrite,
} from '../../../domain/digest-rewrite/index.ts';
import type { ValidatedImage } from '../../../domain/nudge/validated-pull-request.ts';
import type { NudgeRequest, PreMergeTrigger } from '../executor.ts';

export interface NudgeChanges {
  /** New texts of the changed files, in path order. */
  readonly files: readonly FileText[];
  /** The digest the first rewritten reference pinned before: the "Change" column's from. */
  readonly currentDigest: string | undefined;
  /** Some selected file references one of the repositories by digest (current or not). */
  readonly referenced: boolean;
}

type NudgeBuild = Pick<NudgeRequest, 'build' | 'distributionRepositories' | 'fileMatch'>;

/** The build repository first, then the distribution repositories, each once. */
export function nudgedRepositories(request: Pick<NudgeRequest, 'build' | 'distributionRepositories'>): string[] {
  return [...new Set([imageRepository(request.build.pullSpec), ...request.distributionRepositories])];
}

function sourceOf(nudge: NudgeBuild): DigestSource {
  return {
    name: nudge.build.component,
    pullSpec: nudge.build.pullSpec,
    digest: nudge.build.digest,
    distributionRepositories: nudge.distributionRepositories,
    fileMatch: nudge.fileMatch,
  };
}

async function rewrite(
  checkout: Pick<BaseCheckout, 'readFiles'>,
  sources: DigestSource[],
  commit?: string,
): Promise<SourcesRewrite> {
  const matchers = sourceFileMatchers(sources);
  return rewriteDigestSources(await checkout.readFiles((path) => pathMatches(path, matchers), commit), sources);
}

export async function nudgeChanges(
  checkout: Pick<BaseCheckout, 'readFiles'>,
  request: NudgeBuild,
): Promise<NudgeChanges> {
  const source = sourceOf(request);
  const result = await rewrite(checkout, [source]);
  return {
    files: result.files,
    currentDigest: result.previousDigests.get(source.name),
    referenced: result.unreferenced.length === 0,
  };
}

/**
 * What the digest commit of a pre-merge nudge changes (N34): each pinned trigger's image in the
 * files its own fileMatch selects, named by its component; read on `commit` (a monorepo's
 * synthetic commit, N36), default the base tip.
 */
export async function preMergeChanges(
  checkout: Pick<BaseCheckout, 'readFiles'>,
  images: readonly NonNullable<PreMergeTrigger['image']>[],
  commit?: string,
): Promise<SourcesRewrite> {
  return rewrite(checkout, images.map(sourceOf), commit);
}

/** What one commit of a validated batch changes (N28): each image in the files its fileMatch selects. */
export async function batchChanges(
  checkout: Pick<BaseCheckout, 'readFiles'>,
  images: readonly ValidatedImage[],
): Promise<SourcesRewrite> {
  return rewrite(
    checkout,
    images.map((image) => ({ ...image, name: image.component })),
  );
}
