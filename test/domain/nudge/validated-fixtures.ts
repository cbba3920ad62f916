// Inputs for the validated-nudge domain (docs/decisions.md D10): Snapshots as integration-service
// writes them, passing Snapshots as readSnapshot gives them, and the decision's input for one
// (gating group, target) pair, where five operands gated by `operands` nudge `bundle`.
import type { DigestVerification, ValidatedPairInput } from '../../../src/domain/nudge/validated-decision.ts';
import { emptyValidatedRecord } from '../../../src/domain/nudge/validated-record.ts';
import type { PassingSnapshot } from '../../../src/domain/nudge/validated-snapshot.ts';
import { DEFAULT_DISPATCH_POLICY } from '../../../src/domain/nudge/dispatch-policy.ts';
import type { ClusterSnapshot } from '../../../src/schema/snapshot.ts';

export const NAMESPACE = 'my-tenant';
export const GROUP = 'operands';
export const TARGET = 'bundle';
export const OPERANDS = ['operand-a', 'operand-b', 'operand-c', 'operand-d', 'operand-e'] as const;
export const T0 = Date.parse('2025-01-15T10:30:00Z');
export const MINUTE = 60_000;
export const LEASE = 5 * MINUTE;

/** `sha256:` and 64 hex characters made from `seed`. */
export function digest(seed: string | number): string {
  const hex = Buffer.from(String(seed), 'utf8').toString('hex');
  return `sha256:${hex.padEnd(64, '0').slice(0, 64)}`;
}

export function image(component: string, seed: string | number): string {
  return `quay.io/org/${component}@${digest(seed)}`;
}

/** A passing Snapshot of GROUP that carries `images` (component -> digest seed). */
export function passing(
  name: string,
  startTime: number,
  images: Readonly<Record<string, string | number>>,
  extra: Partial<Pick<PassingSnapshot, 'component' | 'buildPipelineRun'>> = {},
): PassingSnapshot {
  return {
    name,
    group: GROUP,
    startTime,
    images: new Map(Object.entries(images).map(([component, seed]) => [component, image(component, seed)])),
    ...extra,
  };
}

/** Every digest verified, by a build named after it, created at `createdAt(seed)`. */
export function verifyAll(createdAt: (seed: string) => number = () => T0 - 60 * MINUTE) {
  return (component: string, img: string): DigestVerification => {
    const hex = img.slice(img.lastIndexOf(':') + 1);
    return {
      ok: true,
      build: {
        name: `${component}-on-push-${hex.slice(0, 6)}`,
        uid: `uid-${hex.slice(0, 6)}`,
        createdAt: createdAt(hex),
      },
    };
  };
}

export function pairInput(overrides: Partial<ValidatedPairInput> = {}): ValidatedPairInput {
  return {
    group: GROUP,
    target: TARGET,
    froms: [...OPERANDS],
    snapshots: [],
    record: emptyValidatedRecord(GROUP, TARGET),
    namespace: NAMESPACE,
    verify: verifyAll(),
    holder: () => undefined,
    released: () => false,
    now: T0,
    fireLeaseMs: LEASE,
    policy: DEFAULT_DISPATCH_POLICY,
    ...overrides,
  };
}

export interface SnapshotOptions {
  readonly name?: string;
  readonly type?: string | null;
  readonly group?: string | null;
  readonly groupLabel?: string;
  readonly startTime?: string | null;
  readonly workflow?: string;
  readonly labels?: Record<string, string>;
  readonly conditions?: NonNullable<NonNullable<ClusterSnapshot['status']>['conditions']>;
  readonly components?: readonly { readonly name: string; readonly containerImage: string }[];
}

/** A Snapshot as integration-service writes it for a push build of operand-a: passed unless told. */
export function clusterSnapshot(options: SnapshotOptions = {}): ClusterSnapshot {
  const labels: Record<string, string> = {
    'appstudio.openshift.io/component': 'operand-a',
    'appstudio.openshift.io/build-pipelinerun': 'operand-a-on-push-x7k2p',
    ...(options.type === null ? {} : { 'test.appstudio.openshift.io/type': options.type ?? 'component' }),
    ...(options.groupLabel === undefined ? {} : { 'appstudio.openshift.io/component-group': options.groupLabel }),
    ...options.labels,
  };
  const annotations: Record<string, string> = {
    ...(options.startTime === null
      ? {}
      : { 'test.appstudio.openshift.io/pipelinerunstarttime': options.startTime ?? '1736937000' }),
    ...(options.workflow === undefined ? {} : { 'test.appstudio.openshift.io/integration-workflow': options.workflow }),
  };
  return {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'Snapshot',
    metadata: { name: options.name ?? 'operands-20250115-abcde', namespace: NAMESPACE, labels, annotations },
    spec: {
      application: 'app',
      ...(options.group === null ? {} : { componentGroup: options.group ?? GROUP }),
      components: [
        ...(options.components ?? OPERANDS.map((name, i) => ({ name, containerImage: image(name, i + 1) }))),
      ],
    },
    status: {
      conditions: options.conditions ?? [
        { type: 'AppStudioTestSucceeded', status: 'True', reason: 'Passed' },
        { type: 'AppStudioIntegrationStatus', status: 'True', reason: 'Finished' },
      ],
    },
  };
}
