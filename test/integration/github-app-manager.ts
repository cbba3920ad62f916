// A manager whose forge is the GitHub emulator with a GitHub App (docs/decisions.md D9, N23): the
// App's Pipelines-as-Code Secret as build-service's cluster holds it, and the forge settings the
// manager is started with (the emulator's host, the App of that Secret), shared by the ChangeGroup
// controller and the dispatcher's executors.
import { GitHubAppTokens } from '../../src/adapters/forges/github/app-tokens.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import type { ChangeGroupControllerOptions } from '../../src/manager/manager.ts';
import type { GitHubEmulator } from '../../src/sandbox/forges/github-emulator/emulator.ts';

/** build-service's Pipelines-as-Code Secret, where the App's id and private key live. */
export const PAC = { namespace: 'build-service', name: 'pipelines-as-code-secret' };

/** The PAC Secret holding App `appId` and its PEM private key. */
export function pacSecret(appId: number, pem: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: PAC,
    type: 'Opaque',
    data: {
      'github-application-id': Buffer.from(String(appId)).toString('base64'),
      'github-private-key': Buffer.from(pem).toString('base64'),
    },
  } as KubeObject;
}

/** The emulator as the manager's GitHub host, with the App of the PAC Secret and a fresh token cache. */
export function emulatorForges(
  github: GitHubEmulator,
  settings: Omit<ChangeGroupControllerOptions, 'forgeHosts' | 'githubApp'> = {},
): ChangeGroupControllerOptions {
  const host = new URL(github.gitBaseUrl).host;
  return {
    forgeHosts: new Map([[host, { kind: 'github', apiUrl: github.apiUrl, gitBaseUrl: github.gitBaseUrl }]]),
    githubApp: { secret: PAC, tokens: new GitHubAppTokens() },
    ...settings,
  };
}
