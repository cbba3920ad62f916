// Recognising `<repository>(:<tag>)?@sha256:<64 hex>` for a known set of repositories, in one
// pass over a file: a single regex alternating the escaped repositories (longest first).
import { InvalidDigestUpdateError } from './errors.ts';

export interface DigestUpdateRequest {
  /** The nudging Component's `spec.containerImage`, e.g. `quay.io/org/tenant/operand-a`. */
  readonly repository: string;
  /** `sha256:<64 lower-case hex>` */
  readonly digest: string;
}

export const DIGEST_PATTERN = /^sha256:[0-9a-f]{64}$/;

// The distribution reference grammar: an optional registry host (with port), then lower-case
// path components separated by `/`. No tag and no digest: those are what gets matched.
const PATH_COMPONENT = '[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*';
const REPOSITORY_PATTERN = new RegExp(
  `^(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*(?::[0-9]+)?/)?${PATH_COMPONENT}(?:/${PATH_COMPONENT})*$`,
);

/** True when `name` is a bare image repository: registry host optional, no tag, no digest. */
export function isImageRepository(name: string): boolean {
  return REPOSITORY_PATTERN.test(name);
}

/** Splits `repo[:tag][@digest]` into its repository, ignoring a port in the registry host. */
export function imageRepository(reference: string): string {
  const withoutDigest = reference.split('@', 1)[0] ?? '';
  const lastSlash = withoutDigest.lastIndexOf('/');
  const colon = withoutDigest.lastIndexOf(':');
  return colon > lastSlash ? withoutDigest.slice(0, colon) : withoutDigest;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
}

/** Validated updates as a repository → digest map; the same repository twice must agree. */
export function indexUpdates(updates: readonly DigestUpdateRequest[]): Map<string, string> {
  const byRepository = new Map<string, string>();
  updates.forEach((update, i) => {
    if (!REPOSITORY_PATTERN.test(update.repository)) {
      throw new InvalidDigestUpdateError(
        `updates[${String(i)}].repository`,
        `${JSON.stringify(update.repository)} is not an image repository (no tag, no digest)`,
      );
    }
    if (!DIGEST_PATTERN.test(update.digest)) {
      throw new InvalidDigestUpdateError(
        `updates[${String(i)}].digest`,
        `${JSON.stringify(update.digest)} is not sha256: followed by 64 lower-case hex digits`,
      );
    }
    const known = byRepository.get(update.repository);
    if (known !== undefined && known !== update.digest) {
      throw new InvalidDigestUpdateError(
        `updates[${String(i)}].repository`,
        `${update.repository} is given two different digests (${known} and ${update.digest})`,
      );
    }
    byRepository.set(update.repository, update.digest);
  });
  return byRepository;
}

/**
 * The combined reference regex. Before the repository: start of text, `://`, or any character
 * that cannot continue an image name, so `evil.io/quay.io/org/a` and `xquay.io/org/a` are not
 * references to `quay.io/org/a`. After it: a tag and `@`, or `@` at once, so `quay.io/org/a-extra`
 * and `quay.io/org/a/sub` are not either. After the 64 hex digits: no further word character.
 * Groups: 1 repository, 2 `:tag` or undefined, 3 digest.
 */
export function referenceRegex(repositories: Iterable<string>): RegExp | undefined {
  const sorted = [...repositories].sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return undefined;
  const alternation = sorted.map(escapeRegExp).join('|');
  return new RegExp(
    `(?:(?<=:\\/\\/)|(?<![A-Za-z0-9_.\\-/]))(${alternation})(:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127})?@(sha256:[0-9a-f]{64})(?![A-Za-z0-9_])`,
    'g',
  );
}
