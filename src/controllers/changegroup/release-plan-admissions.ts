// The ReleasePlanAdmission cache behind D6's distribution repositories. Release-service is optional
// for nudger: where its CRD is not installed (or RBAC does not allow a cluster-wide list, as in the
// namespaced deployment), distribution names are simply not rewritten. An optional kind
// (src/runtime/optional-kind.ts): asked for first, said once when it cannot be listed, asked again
// now and then, never failing or blocking the ChangeGroup controller.
import { RELEASE_PLAN_ADMISSIONS_KIND } from '../../cluster/watched-kinds.ts';
import { OptionalKindCache, type OptionalKindCacheOptions } from '../../runtime/optional-kind.ts';
import type { ReleasePlanAdmission } from '../../schema/release-plan-admission.ts';

/**
 * With `namespace` (`--namespace`), only the RPAs of that namespace (its Role grants nothing
 * wider); else every namespace, as build-service reads them.
 */
export type ReleasePlanAdmissionCacheOptions = Omit<
  OptionalKindCacheOptions<ReleasePlanAdmission>,
  'kind' | 'request' | 'unavailableMessage' | 'availableMessage'
>;

export class ReleasePlanAdmissionCache extends OptionalKindCache<ReleasePlanAdmission> {
  constructor(options: ReleasePlanAdmissionCacheOptions) {
    super({
      ...options,
      kind: RELEASE_PLAN_ADMISSIONS_KIND,
      unavailableMessage:
        'ReleasePlanAdmissions cannot be listed; ChangeGroup pull requests rewrite build repositories only, not distribution repositories (D6). Checking again every few minutes.',
      availableMessage: 'ReleasePlanAdmissions can be listed now; distribution repositories are rewritten',
    });
  }
}
