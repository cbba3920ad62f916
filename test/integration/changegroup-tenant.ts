// Shared by the ChangeGroup integration tests against a forge emulator (GitHub, GitLab): a real
// control plane, the manager at debug level with its webhooks registered for the tenant's
// namespace and its log captured, the NudgeConfig admitted, a ChangeGroup filled from the graph,
// and the operands' builds recorded one at a time, each held by the webhook and collected.
import assert from 'node:assert/strict';
import { KubeClient } from '../../src/adapters/kubernetes/client.ts';
import { CHANGE_GROUPS, NAMESPACES, NUDGE_CONFIGS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import type { ChangeGroupControllerOptions } from '../../src/manager/manager.ts';
import { SANDBOX_CRDS, startControlPlane, type ControlPlane } from '../../src/sandbox/control-plane/control-plane.ts';
import { KonfluxStandIn } from '../../src/sandbox/konflux.ts';
import { NAMESPACE_NAME_LABEL, registerWebhooks } from '../../src/sandbox/webhooks.ts';
import type { ChangeGroupStatus } from '../../src/schema/changegroup.ts';
import { captureLog, type CapturedLog } from '../support/secret-leaks.ts';
import { startTestManager, type TestManager } from './manager-fixture.ts';
import { eventually } from './wait.ts';

export interface ChangeGroupTenant {
  readonly plane: ControlPlane;
  readonly client: KubeClient;
  readonly manager: TestManager;
  readonly log: CapturedLog;
  /** The tenant's namespace, where the methods below work. */
  readonly namespace: string;
  admitNudgeConfig(operands: readonly string[], to: string): Promise<void>;
  changeGroupStatus(name: string): Promise<ChangeGroupStatus | undefined>;
  createChangeGroupFromGraph(name: string, nudged: string, expected: readonly string[]): Promise<void>;
  collectHeldBuilds(
    changeGroup: string,
    operands: readonly string[],
    afterEach: (index: number) => Promise<void> | void,
  ): Promise<Map<string, string>>;
  stop(): Promise<void>;
}

/**
 * The manager on a fresh control plane, logging at debug level; `namespaces` are created and the
 * first is the tenant's, whose objects the webhooks see.
 */
export async function startChangeGroupTenant(
  namespaces: readonly [string, ...string[]],
  changeGroups: ChangeGroupControllerOptions,
): Promise<ChangeGroupTenant> {
  const log = captureLog();
  const plane = await startControlPlane({ crds: SANDBOX_CRDS });
  const client = new KubeClient(plane.kubeConfig);
  const manager = await startTestManager(plane.kubeConfig, {
    logLevel: 'debug',
    logDestination: log.destination,
    changeGroups,
  });
  for (const name of namespaces) {
    await client.create(NAMESPACES, {
      apiVersion: 'v1',
      kind: 'Namespace',
      metadata: { name, labels: { [NAMESPACE_NAME_LABEL]: name } },
    });
  }
  await registerWebhooks(client, {
    url: (path) => manager.webhookUrl(path),
    caPem: manager.caPem,
    namespace: namespaces[0],
  });
  const namespace = namespaces[0];
  return {
    plane,
    client,
    manager,
    log,
    namespace,
    admitNudgeConfig: (operands, to) => admitNudgeConfig(client, namespace, operands, to),
    changeGroupStatus: (name) => changeGroupStatus(client, namespace, name),
    createChangeGroupFromGraph: (name, nudged, expected) =>
      createChangeGroupFromGraph(client, namespace, name, nudged, expected),
    collectHeldBuilds: (changeGroup, operands, afterEach) =>
      collectHeldBuilds(client, namespace, changeGroup, operands, afterEach),
    async stop() {
      await manager.stop();
      client.close();
      await plane.close();
    },
  };
}

/** The tenant's SCM Secret for `host` (Konflux's labels); without `username` git goes as the forge's default. */
export function scmSecret(namespace: string, host: string, token: string, username?: string): KubeObject {
  const b64 = (text: string): string => Buffer.from(text).toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: 'scm-token',
      namespace,
      labels: { 'appstudio.redhat.com/credentials': 'scm', 'appstudio.redhat.com/scm.host': host },
    },
    type: 'kubernetes.io/basic-auth',
    data: { ...(username === undefined ? {} : { username: b64(username) }), password: b64(token) },
  } as KubeObject;
}

/** A NudgeConfig `from` each of `operands` `to` one component, created once the webhook admits it. */
export async function admitNudgeConfig(
  client: KubeClient,
  namespace: string,
  operands: readonly string[],
  to: string,
): Promise<void> {
  await eventually('the NudgeConfig to be admitted', () =>
    client.create(NUDGE_CONFIGS, {
      apiVersion: 'konflux-ci.dev/v1alpha1',
      kind: 'NudgeConfig',
      metadata: { name: 'nudge-config', namespace },
      spec: { nudges: operands.map((from) => ({ from, to })) },
    } as KubeObject),
  );
}

export async function changeGroupStatus(
  client: KubeClient,
  namespace: string,
  name: string,
): Promise<ChangeGroupStatus | undefined> {
  return (await client.get<KubeObject & { status?: ChangeGroupStatus }>(CHANGE_GROUPS, namespace, name)).status;
}

/** A ChangeGroup on `nudged` with no nudgingComponents, waited for until the graph fills them in. */
export async function createChangeGroupFromGraph(
  client: KubeClient,
  namespace: string,
  name: string,
  nudged: string,
  expected: readonly string[],
): Promise<void> {
  await client.create(CHANGE_GROUPS, {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'ChangeGroup',
    metadata: { name, namespace },
    spec: { nudgedComponent: nudged },
  } as KubeObject);
  await eventually('the empty nudgingComponents to be filled from the graph', async () => {
    const cg = await client.get<KubeObject & { spec: { nudgingComponents?: { name: string }[] } }>(
      CHANGE_GROUPS,
      namespace,
      name,
    );
    assert.deepEqual(
      cg.spec.nudgingComponents?.map((c) => c.name),
      expected,
    );
    return true;
  });
}

/**
 * Records one build per operand, in order; each nudge is held by the webhook and waited for until
 * the ChangeGroup has collected it and pushed it; then `afterEach(index)` checks the forge. Answers
 * each operand's new digest.
 */
export async function collectHeldBuilds(
  client: KubeClient,
  namespace: string,
  changeGroup: string,
  operands: readonly string[],
  afterEach: (index: number) => Promise<void> | void,
): Promise<Map<string, string>> {
  const konflux = new KonfluxStandIn(client);
  const digests = new Map<string, string>();
  for (const [index, operand] of operands.entries()) {
    const build = await konflux.recordBuild({ namespace, component: operand });
    assert.equal(build.nudge?.specStatus, 'Cancelled', 'the webhook holds the nudge');
    digests.set(operand, build.digest);
    await eventually(`${operand} to be collected`, async () => {
      const status = await changeGroupStatus(client, namespace, changeGroup);
      assert.equal(status?.components?.filter((c) => c.state === 'Ready').length, index + 1);
      assert.equal(status.pullRequest?.pushedBuilds.length, index + 1);
      return true;
    });
    await afterEach(index);
  }
  return digests;
}
