// docs/decisions.md D3 against the API server: the build PipelineRun a held nudge names is read live (the
// manager caches only nudge runs, not every build) and checked by the pure verifyNudgeBuild.
// A succeeded build never changes again, so verified builds are remembered; rejections are not,
// because a build that has not finished yet is rejected now and may verify later.
// A lookup that fails because of what one nudge says (a name the API server refuses, a build it
// may not read) rejects that nudge alone; only failures of the API server itself are thrown, so
// that the reconcile retries.
import type { ObjectClient } from '../../adapters/kubernetes/client.ts';
import { isNotFound, KubeApiError } from '../../adapters/kubernetes/errors.ts';
import { PIPELINE_RUNS } from '../../adapters/kubernetes/resources.ts';
import type { CollectedBuild, RejectedBuild } from '../../domain/changegroup/state.ts';
import {
  buildNameProblem,
  verifyNudgeBuild,
  type NudgingComponentFacts,
  type VerifiedBuild,
} from '../../domain/changegroup/verify-build.ts';
import type { NudgePipelineRun } from '../../domain/nudge-pipelinerun.ts';

/** The nudging Component as D3 needs it; undefined when it does not exist. */
export type NudgingComponentOf = (namespace: string, name: string) => NudgingComponentFacts | undefined;

/**
 * Answers caused by the request itself, which retrying cannot change: 400 (a name the server
 * refuses), 403, 404, 422 and other client errors. 408 and 429 are the server asking for patience.
 */
function isRefusal(error: unknown): error is KubeApiError {
  if (!(error instanceof KubeApiError)) return false;
  const code = error.statusCode;
  return code >= 400 && code < 500 && code !== 408 && code !== 429;
}

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

  async verifyAll(
    nudges: readonly NudgePipelineRun[],
    componentOf: NudgingComponentOf,
    signal: AbortSignal,
  ): Promise<VerifiedNudges> {
    const results = await Promise.all(
      nudges.map((nudge) => this.verify(nudge, componentOf(nudge.namespace, nudge.nudgingComponent), signal)),
    );
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
    component: NudgingComponentFacts | undefined,
    signal: AbortSignal,
  ): Promise<{ ok: true; build: CollectedBuild } | { ok: false; reason: string; message: string }> {
    const refused = buildNameProblem(nudge);
    if (refused !== undefined && !refused.ok) return { ok: false, reason: refused.reason, message: refused.message };
    const buildName = nudge.nudgingPipeline ?? '';
    // The cached verdict only stands for the same claim: a second nudge naming the same build on
    // behalf of another component (or after the Component's image or branch changed) is checked
    // on its own.
    const key = JSON.stringify([nudge.namespace, buildName, nudge.nudgingComponent, component ?? null]);
    const remembered = this.#verified.get(key);
    if (remembered !== undefined) {
      this.#verified.delete(key);
      this.#verified.set(key, remembered);
      return { ok: true, build: remembered };
    }
    // Raw, as the API server sent it: verifyNudgeBuild decodes it once, with the PipelineRun decoder.
    let build: unknown;
    try {
      build = await this.#client.get(PIPELINE_RUNS, nudge.namespace, buildName, signal);
    } catch (error) {
      if (isRefusal(error) && !isNotFound(error)) {
        return {
          ok: false,
          reason: 'build-lookup-refused',
          message: `nudge PipelineRun ${nudge.namespace}/${nudge.pipelineRun.name}: the API server refused to read its build (${String(error.statusCode)} ${error.reason})`,
        };
      }
      if (!isNotFound(error)) throw error;
    }
    const verification = verifyNudgeBuild(nudge, build, component);
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
