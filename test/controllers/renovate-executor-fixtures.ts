// A nudge request as the dispatcher hands it to the `renovate` executor: tenant `tenant`, where a
// push build of operand-a nudges operator-bundle (github.com/acme/operator-bundle), and forge access
// whose token the tests look for everywhere it must not be.
import assert from 'node:assert/strict';
import { Credentials } from '../../src/adapters/credentials/credentials.ts';
import type { RenovateForgeAccessResolver } from '../../src/controllers/dispatch/renovate/forge-access.ts';
import type { NudgeRequest } from '../../src/controllers/dispatch/executor.ts';
import { decodeComponent, decodePipelineRun } from '../../src/domain/cluster-objects.ts';
import { scmTokenGitAuthor } from '../../src/domain/nudge/git-author.ts';
import { NO_RENOVATE_SETTINGS } from '../../src/domain/nudge/renovate-settings.ts';

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

export function buildRun() {
  const decoded = decodePipelineRun({
    apiVersion: 'tekton.dev/v1',
    kind: 'PipelineRun',
    metadata: {
      name: BUILD_NAME,
      namespace: NS,
      uid: 'b6f0d6a8-0000-4000-8000-000000000001',
      labels: {
        'appstudio.openshift.io/component': 'operand-a',
        'pipelines.appstudio.openshift.io/type': 'build',
        'pipelinesascode.tekton.dev/event-type': 'push',
      },
      annotations: { 'build.appstudio.openshift.io/repo': LINK },
    },
    status: {
      conditions: [{ type: 'Succeeded', status: 'True' }],
      results: [
        { name: 'IMAGE_URL', value: IMAGE_URL },
        { name: 'IMAGE_DIGEST', value: DIGEST },
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
