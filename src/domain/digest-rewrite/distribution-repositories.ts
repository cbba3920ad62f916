// docs/decisions.md D6: the names a component is released under (its distribution repositories), read from
// ReleasePlanAdmissions the way build-service reads them (github.com/konflux-ci/build-service,
// its release-service mapping), so that a bundle pinning `registry.redhat.io/<a>/<b>@sha256:…`
// gets the new digest like one pinning the build repository.
//
// Parity with build-service: every RPA whose `spec.origin` is the build's namespace and whose
// `spec.data` is set, whatever its own namespace, applications or status; entries of
// `spec.data.mapping.components[]` whose `name` equals the nudging component exactly; every
// non-empty `repositories[].url`, plus its `registry[.stage].redhat.io` name. The RPA comes decoded
// (src/schema/release-plan-admission.ts), but `spec.data` is free-form: keys under it are matched
// case-insensitively and malformed entries are skipped without dropping the RPA, as Go's
// encoding/json would leave them.
//
// Better than build-service (noted in docs/decisions.md D6): a `:tag` or `@digest` on an RPA URL is
// stripped before mapping (build-service would look for `…/b:1.0@sha256:`, which never matches);
// names are de-duplicated and sorted (build-service repeats them in cache order); a URL that is not
// an image repository even then is ignored and reported, instead of reaching a regex.
import { imageRepository, isImageRepository } from './reference.ts';
import { isRecord } from '../records.ts';
import type { ReleasePlanAdmission } from '../../schema/release-plan-admission.ts';

/** build-service's patterns, verbatim semantics (unescaped `.`, greedy split at the last `----`). */
const PROD_PATTERN = /^quay.io\/redhat-prod\/(.*)----(.*)$/;
const STAGE_PATTERN = /^quay.io\/redhat-pending\/(.*)----(.*)$/;

/** `quay.io/redhat-prod/<a>----<b>` → `registry.redhat.io/<a>/<b>`; the stage twin; else undefined. */
export function registryRedHatIoName(url: string): string | undefined {
  const prod = PROD_PATTERN.exec(url);
  if (prod !== null) return `registry.redhat.io/${prod[1] ?? ''}/${prod[2] ?? ''}`;
  const stage = STAGE_PATTERN.exec(url);
  if (stage !== null) return `registry.stage.redhat.io/${stage[1] ?? ''}/${stage[2] ?? ''}`;
  return undefined;
}

type Json = Record<string, unknown>;

/** Go encoding/json's key rule: the exact key, else any key equal ignoring case. */
function field(object: Json, key: string): unknown {
  if (key in object) return object[key];
  const lower = key.toLowerCase();
  for (const [name, value] of Object.entries(object)) if (name.toLowerCase() === lower) return value;
  return undefined;
}

function arrayOf(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export interface IgnoredDistributionUrl {
  /** `namespace/name` of the ReleasePlanAdmission. */
  readonly releasePlanAdmission: string;
  /** The URL as written, cut to 128 characters. */
  readonly url: string;
}

export interface DistributionRepositories {
  /** Sorted, without duplicates; never a tag or digest. */
  readonly repositories: readonly string[];
  /** URLs of matching entries that are not image repositories. */
  readonly ignored: readonly IgnoredDistributionUrl[];
}

/** The URLs one RPA lists for `component`, or none when it does not release from `namespace`. */
function urlsOf(rpa: ReleasePlanAdmission, namespace: string, component: string): string[] {
  const { origin, data } = rpa.spec ?? {};
  if (origin !== namespace || data === undefined) return [];
  const mapping = field(data, 'mapping');
  if (!isRecord(mapping)) return [];
  const urls: string[] = [];
  for (const entry of arrayOf(field(mapping, 'components'))) {
    if (!isRecord(entry) || field(entry, 'name') !== component) continue;
    for (const repository of arrayOf(field(entry, 'repositories'))) {
      const url = isRecord(repository) ? field(repository, 'url') : undefined;
      if (typeof url === 'string' && url.trim() !== '') urls.push(url.trim());
    }
  }
  return urls;
}

function nameOf(rpa: ReleasePlanAdmission): string {
  return `${rpa.metadata?.namespace ?? ''}/${rpa.metadata?.name ?? ''}`;
}

/**
 * The distribution repositories of `component`, built in `namespace`, from every
 * ReleasePlanAdmission in the cluster (`rpas`, decoded). The build repository itself is not
 * included; the caller adds it.
 */
export function distributionRepositories(
  rpas: Iterable<ReleasePlanAdmission>,
  namespace: string,
  component: string,
): DistributionRepositories {
  const repositories = new Set<string>();
  const ignored: IgnoredDistributionUrl[] = [];
  for (const rpa of rpas) {
    for (const url of urlsOf(rpa, namespace, component)) {
      const repository = imageRepository(url);
      if (!isImageRepository(repository)) {
        ignored.push({ releasePlanAdmission: nameOf(rpa), url: url.slice(0, 128) });
        continue;
      }
      repositories.add(repository);
      const mapped = registryRedHatIoName(repository);
      if (mapped !== undefined && isImageRepository(mapped)) repositories.add(mapped);
    }
  }
  return { repositories: [...repositories].sort(), ignored };
}
