// The kinds nudger reads, the API groups they live in, and the apiVersions nudger understands. An
// object of one of these kinds in one of these groups, in a version not listed, is one nudger would
// otherwise skip in silence (a newer upstream version, or a typo): readers report it instead. A
// kind of the same name in another group (kustomize's `Component`) is another API's business.
import { CHANGE_GROUP_API_VERSION, CHANGE_GROUP_GROUP, CHANGE_GROUP_KIND } from './changegroup.ts';
import { COMPONENT_API_VERSION, COMPONENT_GROUP, COMPONENT_KIND } from './component.ts';
import { NUDGE_CONFIG_API_VERSION, NUDGE_CONFIG_GROUP, NUDGE_CONFIG_KIND } from './nudgeconfig.ts';
import {
  UPSTREAM_KONFLUX_NUDGE_CONFIG_API_VERSION,
  UPSTREAM_NUDGE_CONFIG_API_VERSION,
  UPSTREAM_NUDGE_CONFIG_GROUP,
} from './upstream-nudgeconfig.ts';

/**
 * The versions nudger's NudgeConfig CRD serves (one stored object, conversion `None`), which the
 * admission webhook is registered for and judges each by its own rules.
 */
export const SERVED_NUDGE_CONFIG_API_VERSIONS: readonly string[] = [
  NUDGE_CONFIG_API_VERSION,
  UPSTREAM_KONFLUX_NUDGE_CONFIG_API_VERSION,
];

interface ReadKind {
  /** The groups where this kind is the Konflux kind nudger reads. */
  readonly groups: readonly string[];
  /** The apiVersions nudger reads it in. */
  readonly apiVersions: readonly string[];
}

const READ_KINDS: Readonly<Record<string, ReadKind>> = {
  // konflux-ci.dev/v1alpha1 is upstream's new component model, which nudger does not read yet.
  [COMPONENT_KIND]: { groups: [COMPONENT_GROUP, NUDGE_CONFIG_GROUP], apiVersions: [COMPONENT_API_VERSION] },
  [NUDGE_CONFIG_KIND]: {
    groups: [NUDGE_CONFIG_GROUP, UPSTREAM_NUDGE_CONFIG_GROUP],
    apiVersions: [
      NUDGE_CONFIG_API_VERSION,
      UPSTREAM_KONFLUX_NUDGE_CONFIG_API_VERSION,
      UPSTREAM_NUDGE_CONFIG_API_VERSION,
    ],
  },
  [CHANGE_GROUP_KIND]: { groups: [CHANGE_GROUP_GROUP], apiVersions: [CHANGE_GROUP_API_VERSION] },
};

/**
 * For an object of a kind nudger reads, in one of that kind's groups but in an apiVersion nudger
 * does not know: the apiVersions it does know. Otherwise undefined (known, or not nudger's kind).
 */
export function unknownApiVersion(kind: unknown, apiVersion: unknown): readonly string[] | undefined {
  if (typeof kind !== 'string' || typeof apiVersion !== 'string' || !Object.hasOwn(READ_KINDS, kind)) {
    return undefined;
  }
  const read = READ_KINDS[kind];
  if (read === undefined || read.apiVersions.includes(apiVersion)) return undefined;
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  return read.groups.includes(group) ? read.apiVersions : undefined;
}
