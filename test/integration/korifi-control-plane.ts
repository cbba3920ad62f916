// Shared by the Korifi integration tests (docs/decisions.md D13, N39): a real control plane with
// Korifi's and kpack's CRDs (and, on request, everything the sandbox installs: nudger's, the Konflux
// and Tekton ones), an admin client, and
// CF spaces (namespaces) created on demand. Each test file starts its own, as every integration
// test does; `stop()` closes the client and the control plane.
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { NAMESPACES } from '../../src/adapters/kubernetes/resources.ts';
import {
  KORIFI_CRDS,
  SANDBOX_CRDS,
  startControlPlane,
  type ControlPlane,
} from '../../src/sandbox/control-plane/control-plane.ts';

export interface KorifiControlPlane {
  readonly plane: ControlPlane;
  /** cluster-admin. */
  readonly client: KubeClient;
  /** Creates the namespace of a CF space; returns its name. */
  createSpace(name: string): Promise<string>;
  stop(): Promise<void>;
}

export async function startKorifiControlPlane(
  options: {
    /** Also install nudger's CRDs and the Konflux and Tekton ones, for a manager running every group. */
    withKonflux?: boolean;
  } = {},
): Promise<KorifiControlPlane> {
  const crds = options.withKonflux === true ? SANDBOX_CRDS : KORIFI_CRDS;
  const plane = await startControlPlane({ crds });
  const client = new KubeClient(plane.kubeConfig);
  return {
    plane,
    client,
    async createSpace(name) {
      await client.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
      return name;
    },
    async stop() {
      client.close();
      await plane.close();
    },
  };
}
