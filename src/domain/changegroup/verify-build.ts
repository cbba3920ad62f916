// docs/decisions.md D3: a held nudge carries no digest, and labels are easy to forge. The digest comes only
// from the build PipelineRun the nudge names, and only when that run is what a real Konflux push
// build looks like. Messages name objects and fields but never echo result values that failed a
// check: a forged run could put anything there.
import {
  MERGE_QUEUE_BRANCH_PREFIX,
  TARGET_BRANCH_ANNOTATION,
  readBuildPipelineRun,
  IMAGE_DIGEST_RESULT,
  IMAGE_URL_RESULT,
  type NudgePipelineRun,
} from '../nudge-pipelinerun.ts';
import { BUILD_NUDGE_FILES_ANNOTATION } from '../digest-rewrite/file-match.ts';
import { imageRepository } from '../digest-rewrite/reference.ts';
import { dns1123SubdomainProblem } from '../../schema/names.ts';

const DIGEST = /^sha256:[0-9a-f]{64}$/;
/**
 * A repository reference as the OCI distribution grammar allows it: registry host (optional port),
 * one or more lower-case path components, optional tag. Anything else (spaces, markdown, quotes)
 * is refused before it can reach a pull request.
 */
const IMAGE_REFERENCE =
  /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]+)?(\/[a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*)+(:[A-Za-z0-9_][A-Za-z0-9._-]{0,127})?$/;

/** status.components[].newBuildPullSpec allows 512 characters, digest included. */
const MAX_REFERENCE_LENGTH = 512 - '@sha256:'.length - 64;

export const BUILD_REJECTIONS = [
  'no-nudging-pipeline',
  'invalid-build-name',
  'build-lookup-refused',
  'component-not-found',
  'no-container-image',
  'build-not-found',
  'not-a-pipelinerun',
  'name-mismatch',
  'namespace-mismatch',
  'component-mismatch',
  'not-a-push-build',
  'not-a-pull-request-build',
  'merge-queue-build',
  'not-succeeded',
  'missing-image-digest',
  'invalid-image-digest',
  'missing-image-url',
  'invalid-image-url',
  'image-mismatch',
  'foreign-image',
  'unknown-branch',
  'branch-mismatch',
] as const;
export type BuildRejection = (typeof BUILD_REJECTIONS)[number];

export interface VerifiedBuild {
  readonly component: string;
  readonly digest: string;
  /** `<repository>@<digest>`: what the pull request writes. */
  readonly pullSpec: string;
  /** IMAGE_URL as the build reported it (`<repository>:<tag>`). */
  readonly imageUrl: string;
  readonly pipelineRun: string;
  /** The build PipelineRun's creationTimestamp, which orders rebuilds of one component. */
  readonly createdAt?: string;
  /** Its `build-nudge-files` annotation: D6's fileMatch when no Renovate ConfigMap is in force. */
  readonly nudgeFiles?: string;
}

/** What the nudging Component says a build of it must be; read by the caller from the Component. */
export interface NudgingComponentFacts {
  /** `spec.containerImage`: the one repository its builds may push to. */
  readonly containerImage?: string;
  /**
   * `spec.source.git.revision`: the one branch its push builds may come from. Absent when the
   * Component names none: build-service then builds the repository's default branch, which
   * nudger cannot see from the cluster, so any pushed branch is accepted rather than guessing
   * `main` and rejecting every build of a `master` repository (docs/decisions.md N14).
   */
  readonly branch?: string;
}

export type BuildVerification =
  | ({ readonly ok: true } & VerifiedBuild)
  | { readonly ok: false; readonly reason: BuildRejection; readonly message: string };

export { imageRepository };

function reject(reason: BuildRejection, message: string): BuildVerification {
  return { ok: false, reason, message };
}

/**
 * Why the build name a nudge gives cannot be looked up, or undefined when it can. Asked before any
 * request: the API server answers 400 to a name that is not an object name, and one forged nudge
 * must not make every lookup of its ChangeGroup fail.
 */
export function buildNameProblem(nudge: NudgePipelineRun): BuildVerification | undefined {
  const nudgeRef = `nudge PipelineRun ${nudge.namespace}/${nudge.pipelineRun.name}`;
  if (nudge.nudgingPipeline === undefined) {
    return reject('no-nudging-pipeline', `${nudgeRef} names no build PipelineRun (nudging-pipeline annotation)`);
  }
  const problem = dns1123SubdomainProblem(nudge.nudgingPipeline);
  if (problem === undefined) return undefined;
  return reject(
    'invalid-build-name',
    `${nudgeRef}: nudging-pipeline ${JSON.stringify(nudge.nudgingPipeline.slice(0, 64))} is not a PipelineRun name (${problem})`,
  );
}

/**
 * Verifies the build behind `nudge`; `build` is the PipelineRun it names as the API server sent
 * it (decoded here, once), or undefined if not found; `component` is what the nudging Component
 * says, or undefined when it does not exist.
 */
export function verifyNudgeBuild(
  nudge: NudgePipelineRun,
  build: unknown,
  component: NudgingComponentFacts | undefined,
  /**
   * The event the build must have been started by: a push, as for every nudge; `pull-request` only
   * for a pre-merge nudge (docs/decisions.md D11), whose build is of a PR into the tracked branch.
   */
  event: 'push' | 'pull-request' = 'push',
): BuildVerification {
  const nudgeRef = `nudge PipelineRun ${nudge.namespace}/${nudge.pipelineRun.name}`;
  const nameProblem = buildNameProblem(nudge);
  if (nameProblem !== undefined || nudge.nudgingPipeline === undefined) {
    return nameProblem ?? reject('no-nudging-pipeline', `${nudgeRef} names no build PipelineRun`);
  }
  const buildRef = `build PipelineRun ${nudge.namespace}/${nudge.nudgingPipeline}`;
  if (build === undefined) return reject('build-not-found', `${buildRef} named by ${nudgeRef} was not found`);
  const run = readBuildPipelineRun(build);
  if (run === undefined) return reject('not-a-pipelinerun', `${buildRef} is not a tekton.dev PipelineRun`);
  const view = run.pipelineRun;
  if (view.name !== nudge.nudgingPipeline) {
    return reject('name-mismatch', `${nudgeRef} names ${nudge.nudgingPipeline}, but the build found is ${view.name}`);
  }
  if (view.namespace !== nudge.namespace) {
    return reject('namespace-mismatch', `${buildRef} must be in namespace ${nudge.namespace}, like its nudge`);
  }
  if (run.component !== nudge.nudgingComponent) {
    return reject('component-mismatch', `${buildRef} is not labelled as a build of ${nudge.nudgingComponent}`);
  }
  if (event === 'push' && run.eventType !== 'push') {
    return reject('not-a-push-build', `${buildRef} is not a push build`);
  }
  if (event === 'pull-request' && run.eventType !== 'pull-request') {
    return reject('not-a-pull-request-build', `${buildRef} is not a pull-request build`);
  }
  if (run.targetBranch?.startsWith(MERGE_QUEUE_BRANCH_PREFIX) === true) {
    return reject('merge-queue-build', `${buildRef} built a merge-queue branch, not a pushed branch`);
  }
  const componentRef = `Component ${nudge.namespace}/${nudge.nudgingComponent}`;
  if (component === undefined) return reject('component-not-found', `${componentRef} of ${buildRef} does not exist`);
  if (run.targetBranch === undefined) {
    return reject('unknown-branch', `${buildRef} names no branch (${TARGET_BRANCH_ANNOTATION} or Pipelines-as-Code's)`);
  }
  // A push to a release branch builds an image too, but it is not what the Component tracks.
  if (component.branch !== undefined && run.targetBranch !== component.branch) {
    return reject(
      'branch-mismatch',
      `${buildRef} was built from another branch than ${component.branch} (${componentRef} spec.source.git.revision)`,
    );
  }
  if (run.succeeded !== 'True') {
    return reject('not-succeeded', `${buildRef} has not succeeded (Succeeded=${run.succeeded})`);
  }
  if (run.imageDigest === undefined) {
    return reject('missing-image-digest', `${buildRef} has no ${IMAGE_DIGEST_RESULT} result`);
  }
  if (!DIGEST.test(run.imageDigest)) {
    return reject('invalid-image-digest', `${buildRef}: ${IMAGE_DIGEST_RESULT} is not sha256:<64 hex>`);
  }
  if (run.imageUrl === undefined) return reject('missing-image-url', `${buildRef} has no ${IMAGE_URL_RESULT} result`);
  const [reference, embeddedDigest] = run.imageUrl.split('@', 2);
  if (
    reference === undefined ||
    reference.length > MAX_REFERENCE_LENGTH ||
    !IMAGE_REFERENCE.test(reference) ||
    (embeddedDigest !== undefined && embeddedDigest !== run.imageDigest)
  ) {
    return reject('invalid-image-url', `${buildRef}: ${IMAGE_URL_RESULT} is not an image reference of this digest`);
  }
  if (nudge.nudgingImage !== undefined && imageRepository(nudge.nudgingImage) !== imageRepository(reference)) {
    return reject('image-mismatch', `${buildRef}: ${IMAGE_URL_RESULT} is not the image ${nudgeRef} announces`);
  }
  const containerImage = component.containerImage?.trim() ?? '';
  if (containerImage === '') return reject('no-container-image', `${componentRef} has no spec.containerImage`);
  // Whole repositories are compared, so `quay.io/org/a` never accepts `quay.io/org/a-extra`: a
  // build that pushed elsewhere would be marked Ready while its digest rewrites nothing.
  if (imageRepository(containerImage) !== imageRepository(reference)) {
    return reject(
      'foreign-image',
      `${buildRef}: ${IMAGE_URL_RESULT} is not in the repository of ${componentRef} (spec.containerImage ${imageRepository(containerImage)})`,
    );
  }
  const nudgeFiles = view.annotations[BUILD_NUDGE_FILES_ANNOTATION];
  return {
    ok: true,
    component: nudge.nudgingComponent,
    digest: run.imageDigest,
    pullSpec: `${imageRepository(reference)}@${run.imageDigest}`,
    imageUrl: reference,
    pipelineRun: view.name,
    ...(view.creationTimestamp === undefined ? {} : { createdAt: view.creationTimestamp }),
    ...(nudgeFiles === undefined || nudgeFiles.trim() === '' ? {} : { nudgeFiles }),
  };
}
