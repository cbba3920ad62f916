// A nudge request as the dispatcher hands it to the `renovate` executor: tenant `tenant`, where a
// push build of operand-a nudges operator-bundle (github.com/acme/operator-bundle), and forge access
// whose token the tests look for everywhere it must not be.
import assert from 'node:assert/strict';
import { Credentials } from '../../src/adapters/credentials/credentials.ts';
import type { RenovateForgeAccessResolver } from '../../src/controllers/dispatch/renovate/forge-access.ts';
import type { BatchEntry, BatchNudgeRequest, NudgeRequest } from '../../src/controllers/dispatch/executor.ts';
import { decodeComponent, decodePipelineRun } from '../../src/domain/cluster-objects.ts';
import { scmTokenGitAuthor } from '../../src/domain/nudge/git-author.ts';
import { NO_RENOVATE_SETTINGS } from '../../src/domain/nudge/renovate-settings.ts';
import { validatedBatchKey } from '../../src/domain/nudge/validated-text.ts';

export const NS = 'tenant';
export const SHA = '0123456789abcdef0123456789abcdef01234567';
export const DIGEST = `sha256:${'62f4ce6'.padEnd(64, 'a')}`;
export const BUILD_NAME = 'operand-a-on-push-x7k2p';
export const IMAGE_URL = `quay.io/acme/operand-a:${SHA}`;
export const LINK = `https://github.com/acme/operand-a?rev=${SHA}`;
/** Looks like a GitHub token so that a leak is unmistakable. */
export const TOKEN = 'ghp_S3cr3tT0k3nTh4tMustN0tL34k0123456';
export const KEY = '0a1b2c3d4e5f6071';

export function component(name: string, gitUrl: string, annotations: Record<string, string> = {}) {
  const decoded = decodeComponent({
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { name, namespace: NS, annotations },
    spec: {
      componentName: name,
      application: 'app',
      containerImage: `quay.io/acme/${name}`,
      source: { git: { url: gitUrl, revision: 'main' } },
    },
  });
  assert.ok(decoded.ok);
  return decoded.object;
}

export function buildRun(of = { component: 'operand-a', name: BUILD_NAME, imageUrl: IMAGE_URL, digest: DIGEST }) {
  const decoded = decodePipelineRun({
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: {
      name: of.name,
      namespace: NS,
      uid: 'b6f0d6a8-0000-4000-8000-000000000001',
      labels: {
        'appstudio.openshift.io/component': of.component,
        'pipelines.appstudio.openshift.io/type': 'build',
        'pipelinesascode.tekton.dev/event-type': 'push',
      },
      annotations: { 'build.appstudio.openshift.io/repo': LINK.replace('operand-a', of.component) },
    },
    status: {
      conditions: [{ type: 'Succeeded', status: 'True' }],
      results: [
        { name: 'IMAGE_URL', value: of.imageUrl },
        { name: 'IMAGE_DIGEST', value: of.digest },
      ],
    },
  });
  assert.ok(decoded.ok);
  return decoded.object;
}

export function renovateRequest(overrides: Partial<NudgeRequest> = {}): NudgeRequest {
  return {
    key: KEY,
    attempt: 1,
    namespace: NS,
    build: {
      component: 'operand-a',
      digest: DIGEST,
      pullSpec: `quay.io/acme/operand-a@${DIGEST}`,
      imageUrl: IMAGE_URL,
      pipelineRun: BUILD_NAME,
    },
    buildRun: buildRun(),
    nudging: component('operand-a', 'https://github.com/acme/operand-a'),
    nudged: component('operator-bundle', 'https://github.com/acme/operator-bundle'),
    settings: NO_RENOVATE_SETTINGS,
    settingProblems: [],
    fileMatch: ['.*Dockerfile.*', '.*.yaml', '.*Containerfile.*'],
    distributionRepositories: [],
    simpleBranch: false,
    ...overrides,
  };
}

/** The gating group of the validated batch fixtures. */
export const GROUP = 'operators';
export const DIGEST_B = `sha256:${'b0b0b0b'.padEnd(64, 'b')}`;
export const BUILD_NAME_B = 'operand-b-on-push-q9w8e';
export const IMAGE_URL_B = `quay.io/acme/operand-b:${SHA}`;

/** One validated entry: `component`'s push build, validated by Snapshot `<GROUP>-<snapshot>`. */
export function batchEntry(
  of: { component: string; name: string; imageUrl: string; digest: string },
  snapshot: string,
  overrides: Partial<BatchEntry> = {},
): BatchEntry {
  const repository = of.imageUrl.slice(0, of.imageUrl.lastIndexOf(':'));
  return {
    snapshot,
    build: {
      component: of.component,
      digest: of.digest,
      pullSpec: `${repository}@${of.digest}`,
      imageUrl: of.imageUrl,
      pipelineRun: of.name,
    },
    buildRun: buildRun(of),
    nudging: component(of.component, `https://github.com/acme/${of.component}`),
    fileMatch: ['.*Dockerfile.*', '.*.yaml', '.*Containerfile.*'],
    distributionRepositories: [],
    ...overrides,
  };
}

/** A validated batch of operand-a and operand-b into operator-bundle, gated by GROUP. */
export function batchRequest(overrides: Partial<BatchNudgeRequest> = {}): BatchNudgeRequest {
  const entries = [
    batchEntry({ component: 'operand-a', name: BUILD_NAME, imageUrl: IMAGE_URL, digest: DIGEST }, 'operators-8x2kq'),
    batchEntry(
      { component: 'operand-b', name: BUILD_NAME_B, imageUrl: IMAGE_URL_B, digest: DIGEST_B },
      'operators-m4n7z',
    ),
  ];
  const digests = entries.map((e) => ({ component: e.build.component, digest: e.build.digest }));
  return {
    key: validatedBatchKey(NS, GROUP, 'operator-bundle', digests),
    attempt: 1,
    namespace: NS,
    gatingGroup: GROUP,
    nudged: component('operator-bundle', 'https://github.com/acme/operator-bundle'),
    settings: NO_RENOVATE_SETTINGS,
    settingProblems: [],
    entries,
    ...overrides,
  };
}

/** GitHub access for any repository, with TOKEN; `fail` makes resolve reject instead. */
export function fakeForgeAccess(fail?: () => Error): RenovateForgeAccessResolver & { calls: number } {
  const access = {
    calls: 0,
    resolve(gitUrl: string) {
      access.calls += 1;
      if (fail !== undefined) return Promise.reject(fail());
      const path = new URL(gitUrl).pathname.replace(/^\/|\.git$/g, '');
      return Promise.resolve({
        platform: 'github' as const,
        endpoint: 'https://api.github.com/',
        username: 'red-hat-konflux',
        gitAuthor: scmTokenGitAuthor(undefined, 'github.com'),
        repository: path,
        credentials: new Credentials({ token: TOKEN }),
      });
    },
  };
  return access;
}
