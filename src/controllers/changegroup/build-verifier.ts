// DECISIONS D3 against the API server: the build PipelineRun a held nudge names is read live (the
// manager caches only nudge runs, not every build) and checked by the pure verifyNudgeBuild.
// A succeeded build never changes again, so verified builds are remembered; rejections are not,
// because a build that has not finished yet is rejected now and may verify later.
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { isNotFound } from '../../adapters/kubernetes/errors.ts';
import { PIPELINE_RUNS } from '../../adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../adapters/kubernetes/types.ts';
import type { CollectedBuild, RejectedBuild } from '../../domain/changegroup/state.ts';
import { verifyNudgeBuild, type VerifiedBuild } from '../../domain/changegroup/verify-build.ts';
import type { NudgePipelineRun } from '../../domain/nudge-pipelinerun.ts';

const DEFAULT_CAPACITY = 10_000;

export interface VerifiedNudges {
  readonly builds: CollectedBuild[];
  readonly rejected: RejectedBuild[];
}

export class BuildVerifier {
  readonly #client: ObjectClient;
  readonly #capacity: number;
  /** `namespace/build` → verified build; insertion order doubles as LRU order. */
  readonly #verified = new Map<string, VerifiedBuild>();

  constructor(client: ObjectClient, capacity = DEFAULT_CAPACITY) {
    this.#client = client;
    this.#capacity = capacity;
  }

  async verifyAll(nudges: readonly NudgePipelineRun[], signal: AbortSignal): Promise<VerifiedNudges> {
    const results = await Promise.all(nudges.map((nudge) => this.verify(nudge, signal)));
    const builds: CollectedBuild[] = [];
    const rejected: RejectedBuild[] = [];
    for (const [index, result] of results.entries()) {
      const nudge = nudges[index];
      if (nudge === undefined) continue;
      if (result.ok) builds.push({ ...result.build, nudgePipelineRun: nudge.pipelineRun.name });
      else {
        rejected.push({
          component: nudge.nudgingComponent,
          pipelineRun: nudge.pipelineRun.name,
          reason: result.reason,
          message: result.message,
        });
      }
    }
    return { builds, rejected };
  }

  async verify(
    nudge: NudgePipelineRun,
    signal: AbortSignal,
  ): Promise<{ ok: true; build: CollectedBuild } | { ok: false; reason: string; message: string }> {
    const buildName = nudge.nudgingPipeline;
    const key = `${nudge.namespace}/${buildName ?? ''}`;
    const remembered = buildName === undefined ? undefined : this.#verified.get(key);
    // The cached verdict only stands for the same claim: a second nudge naming the same build on
    // behalf of another component must be checked on its own.
    if (remembered?.component === nudge.nudgingComponent) {
      this.#verified.delete(key);
      this.#verified.set(key, remembered);
      return { ok: true, build: remembered };
    }
    let build: KubeObject | undefined;
    if (buildName !== undefined) {
      try {
        build = await this.#client.get<KubeObject>(PIPELINE_RUNS, nudge.namespace, buildName, signal);
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    }
    const verification = verifyNudgeBuild(
      nudge,
      build === undefined
        ? undefined
        : { apiVersion: `${PIPELINE_RUNS.group}/${PIPELINE_RUNS.version}`, kind: PIPELINE_RUNS.kind, ...build },
    );
    if (!verification.ok) return { ok: false, reason: verification.reason, message: verification.message };
    const { ok: _ok, ...verified } = verification;
    this.#verified.set(key, verified);
    if (this.#verified.size > this.#capacity) {
      const oldest = this.#verified.keys().next();
      if (oldest.done !== true) this.#verified.delete(oldest.value);
    }
    return { ok: true, build: verified };
  }
}
