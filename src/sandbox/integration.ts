// integration-service's part in validated nudges (docs/decisions.md D10), as the sandbox plays it:
// a push Snapshot of a ComponentGroup, made from its members' latest succeeded builds with the
// labels and annotations integration-service gives one, then marked tested (AppStudioTestSucceeded
// True, reason Passed, or False, reason Failed) through the status subresource. Nothing is tested:
// the scenario says how the tests came out. nudger's dispatcher reads these Snapshots exactly as
// it reads integration-service's (src/domain/nudge/validated-snapshot.ts).
//
// `pipelinerunstarttime` is the triggering build's start in Unix seconds, as upstream writes it.
// Builds of a scenario are played back to back, often within one second, and nudger orders a
// group's Snapshots by that time; so each Snapshot this stand-in makes gets a start time strictly
// greater than the one before it (its build's second, else the previous Snapshot's plus one).
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import { PIPELINE_RUNS, SNAPSHOTS } from '../adapters/kubernetes/resources.ts';
import type { KubeObject, ResourceRef } from '../adapters/kubernetes/types.ts';
import { readBuildPipelineRun } from '../domain/nudge-pipelinerun.ts';
import {
  SNAPSHOT_BUILD_LABEL,
  SNAPSHOT_COMPONENT_LABEL,
  SNAPSHOT_EVENT_TYPE_LABEL,
  SNAPSHOT_GROUP_LABEL,
  SNAPSHOT_START_TIME_ANNOTATION,
  SNAPSHOT_TYPE_COMPONENT,
  SNAPSHOT_TYPE_LABEL,
  SNAPSHOT_WORKFLOW_ANNOTATION,
  TEST_SUCCEEDED_CONDITION,
} from '../domain/nudge/validated-snapshot.ts';
import { whenNotFound } from './poll-loop.ts';

export const SNAPSHOT_API_VERSION = 'appstudio.redhat.com/v1alpha1';
/** integration-service's ComponentGroups (v1beta2 only); nudger itself never reads them. */
export const COMPONENT_GROUPS: ResourceRef = {
  group: 'appstudio.redhat.com',
  version: 'v1beta2',
  plural: 'componentgroups',
  kind: 'ComponentGroup',
  namespaced: true,
};
/** The triggering build's completion, in Unix seconds (a label upstream). */
export const SNAPSHOT_FINISH_TIME_LABEL = 'test.appstudio.openshift.io/pipelinerunfinishtime';
/** integration-service's texts for the two outcomes of a Snapshot's required tests. */
export const TESTS_PASSED_MESSAGE = 'All Integration Pipeline tests passed';
export const TESTS_FAILED_MESSAGE = 'Some Integration pipeline tests failed';

/** One member's image in a Snapshot: `repo@sha256:…` from its build's IMAGE_URL and IMAGE_DIGEST. */
export interface SnapshotComponentImage {
  readonly name: string;
  readonly containerImage: string;
}

export interface SnapshotShape {
  readonly namespace: string;
  readonly group: string;
  readonly application?: string;
  /** The member whose build triggered the Snapshot, and that build PipelineRun. */
  readonly component: string;
  readonly build: string;
  /** Unix seconds. */
  readonly startTime: number;
  readonly finishTime: number;
  readonly components: readonly SnapshotComponentImage[];
}

export interface SnapshotObject extends KubeObject {
  readonly apiVersion: typeof SNAPSHOT_API_VERSION;
  readonly kind: 'Snapshot';
  readonly metadata: {
    readonly generateName: string;
    readonly namespace: string;
    readonly labels: Readonly<Record<string, string>>;
    readonly annotations: Readonly<Record<string, string>>;
  };
  readonly spec: {
    readonly application?: string;
    readonly componentGroup: string;
    readonly components: readonly SnapshotComponentImage[];
  };
}

/** A push Snapshot of a group as integration-service creates it (before it is tested). Pure. */
export function snapshotObject(shape: SnapshotShape): SnapshotObject {
  return {
    apiVersion: SNAPSHOT_API_VERSION,
    kind: 'Snapshot',
    metadata: {
      // integration-service names a group's Snapshots after the group, with a random suffix.
      generateName: `${shape.group}-`,
      namespace: shape.namespace,
      labels: {
        [SNAPSHOT_TYPE_LABEL]: SNAPSHOT_TYPE_COMPONENT,
        [SNAPSHOT_COMPONENT_LABEL]: shape.component,
        [SNAPSHOT_GROUP_LABEL]: shape.group,
        [SNAPSHOT_BUILD_LABEL]: shape.build,
        [SNAPSHOT_FINISH_TIME_LABEL]: String(shape.finishTime),
        // Pipelines-as-Code's keys of the build, re-prefixed as integration-service copies them.
        [SNAPSHOT_EVENT_TYPE_LABEL]: 'push',
      },
      annotations: {
        [SNAPSHOT_START_TIME_ANNOTATION]: String(shape.startTime),
        [SNAPSHOT_WORKFLOW_ANNOTATION]: 'push',
      },
    },
    spec: {
      ...(shape.application === undefined ? {} : { application: shape.application }),
      componentGroup: shape.group,
      components: shape.components.map((c) => ({ name: c.name, containerImage: c.containerImage })),
    },
  };
}

/** The status integration-service writes once a Snapshot's required tests have run. */
export function testedStatus(passed: boolean, at: Date): { conditions: Record<string, string>[] } {
  return {
    conditions: [
      {
        type: TEST_SUCCEEDED_CONDITION,
        status: passed ? 'True' : 'False',
        reason: passed ? 'Passed' : 'Failed',
        message: passed ? TESTS_PASSED_MESSAGE : TESTS_FAILED_MESSAGE,
        lastTransitionTime: at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      },
    ],
  };
}

export class IntegrationStandInError extends Error {
  override readonly name = 'IntegrationStandInError';
  readonly namespace: string;
  readonly group: string;
  constructor(namespace: string, group: string, reason: string) {
    super(`Snapshot of ComponentGroup ${namespace}/${group}: ${reason}`);
    this.namespace = namespace;
    this.group = group;
  }
}

/** One build PipelineRun the sandbox made, for picking each member's latest. */
export interface PlayedBuildRef {
  readonly name: string;
  readonly component: string;
}

export interface RecordSnapshotInput {
  readonly namespace: string;
  readonly group: string;
  /** `spec.application`; absent: none. */
  readonly application?: string;
  readonly passed: boolean;
  /** Only these members; default every member of the ComponentGroup. */
  readonly components?: readonly string[];
  /** The namespace's build PipelineRuns, oldest first. */
  readonly builds: readonly PlayedBuildRef[];
}

export interface RecordedSnapshot {
  readonly name: string;
  readonly group: string;
  readonly passed: boolean;
  readonly component: string;
  readonly build: string;
  readonly startTime: number;
  readonly components: readonly SnapshotComponentImage[];
}

interface ComponentGroupResource extends KubeObject {
  spec?: { components?: { name?: unknown; kind?: unknown }[] };
}

interface LatestBuild {
  readonly member: string;
  readonly build: string;
  /** Its position in the played builds: the newest triggers the Snapshot. */
  readonly order: number;
  readonly image: string;
  readonly startSeconds: number;
}

export interface IntegrationStandInOptions {
  /** Default: `new Date()`. */
  readonly now?: () => Date;
}

export class IntegrationStandIn {
  readonly #client: ObjectClient;
  readonly #now: () => Date;
  #lastStartTime = 0;

  constructor(client: ObjectClient, options: IntegrationStandInOptions = {}) {
    this.#client = client;
    this.#now = options.now ?? (() => new Date());
  }

  /**
   * Creates a push Snapshot of `input.group` from its members' latest succeeded builds (a member
   * without one is left out, as integration-service leaves out a member with no promoted image)
   * and marks its tests passed or failed.
   */
  async recordSnapshot(input: RecordSnapshotInput): Promise<RecordedSnapshot> {
    const { namespace, group } = input;
    const fail = (reason: string): never => {
      throw new IntegrationStandInError(namespace, group, reason);
    };
    const object = await this.#client
      .get<ComponentGroupResource>(COMPONENT_GROUPS, namespace, group)
      .catch(whenNotFound(undefined));
    if (object === undefined) return fail('no such ComponentGroup');
    const members = (object.spec?.components ?? [])
      .filter((c) => c.kind === undefined || (typeof c.kind === 'string' && c.kind.toLowerCase() === 'component'))
      .flatMap((c) => (typeof c.name === 'string' ? [c.name] : []));
    const wanted = input.components ?? members;
    const outside = wanted.find((name) => !members.includes(name));
    if (outside !== undefined) fail(`"${outside}" is not a member of the ComponentGroup`);

    const latest: LatestBuild[] = [];
    for (const member of wanted) {
      const found = await this.#latestSucceeded(namespace, member, input.builds);
      if (found !== undefined) latest.push(found);
    }
    const trigger = latest.reduce<LatestBuild | undefined>(
      (newest, build) => (newest === undefined || build.order > newest.order ? build : newest),
      undefined,
    );
    if (trigger === undefined) return fail(`no member of ${wanted.join(', ')} has a succeeded build`);
    // Strictly increasing (see the header): the order nudger reads Snapshots in is the play order.
    const startTime = Math.max(trigger.startSeconds, this.#lastStartTime + 1);
    this.#lastStartTime = startTime;
    const components = latest.map(({ member, image }) => ({ name: member, containerImage: image }));
    const created = await this.#client.create<KubeObject>(
      SNAPSHOTS,
      snapshotObject({
        namespace,
        group,
        ...(input.application === undefined ? {} : { application: input.application }),
        component: trigger.member,
        build: trigger.build,
        startTime,
        finishTime: startTime,
        components,
      }),
    );
    const name = created.metadata?.name ?? '';
    await this.#client.patchStatus(SNAPSHOTS, namespace, name, 'merge', {
      status: testedStatus(input.passed, this.#now()),
    });
    return {
      name,
      group,
      passed: input.passed,
      component: trigger.member,
      build: trigger.build,
      startTime,
      components,
    };
  }

  /** The newest of `member`'s played builds that succeeded with an image, read from the cluster. */
  async #latestSucceeded(
    namespace: string,
    member: string,
    builds: readonly PlayedBuildRef[],
  ): Promise<LatestBuild | undefined> {
    for (let order = builds.length - 1; order >= 0; order -= 1) {
      const played = builds[order];
      if (played?.component !== member) continue;
      const run = await this.#client.get(PIPELINE_RUNS, namespace, played.name).catch(whenNotFound(undefined));
      const build = run === undefined ? undefined : readBuildPipelineRun(run);
      const { imageUrl, imageDigest } = build ?? {};
      if (build?.succeeded !== 'True' || imageUrl === undefined || imageDigest === undefined) continue;
      const started = Date.parse(build.pipelineRun.startTime ?? build.pipelineRun.creationTimestamp ?? '');
      return {
        member,
        build: played.name,
        order,
        image: `${repositoryOf(imageUrl)}@${imageDigest}`,
        startSeconds: Number.isNaN(started) ? 0 : Math.floor(started / 1000),
      };
    }
    return undefined;
  }
}

/** IMAGE_URL without its tag (`<repo>:<tag>`, split at the last `:` after the last `/`). */
function repositoryOf(imageUrl: string): string {
  const colon = imageUrl.lastIndexOf(':');
  return colon > imageUrl.lastIndexOf('/') ? imageUrl.slice(0, colon) : imageUrl;
}
