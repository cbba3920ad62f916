// What the sandbox's stand-in tests share: a Component on a local-forge repository, as the sandbox
// creates it, and a file as a branch of the forge holds it.
import type { LocalForge } from '../../src/adapters/forges/local/local-forge.ts';
import type { RepositoryRef } from '../../src/adapters/forges/repository-url.ts';
import { localGitRun } from '../../src/adapters/git/plumbing.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';

/** Component `name` of application `app`, image quay.io/acme/<name>, building `gitUrl`'s main. */
export function sandboxComponent(namespace: string, name: string, gitUrl: string): KubeObject {
  return {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Component',
    metadata: { name, namespace },
    spec: {
      componentName: name,
      application: 'app',
      containerImage: `quay.io/acme/${name}`,
      source: { git: { url: gitUrl, revision: 'main' } },
    },
  } as KubeObject;
}

export async function fileOnBranch(
  forge: LocalForge,
  repo: RepositoryRef,
  branch: string,
  path: string,
): Promise<string> {
  return localGitRun(forge.gitDirectory(repo))('show', ['show', `refs/heads/${branch}:${path}`]);
}
