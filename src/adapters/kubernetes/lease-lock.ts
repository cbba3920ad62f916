// The LeaseLock of leader election on a real coordination.k8s.io/v1 Lease.
import { isNotFound } from './errors.ts';
import type { ObjectClient } from './client.ts';
import { LEASES } from './resources.ts';
import type { KubeObject } from './types.ts';

interface LeaseRecordFields {
  readonly holderIdentity: string;
  readonly leaseDurationSeconds: number;
  readonly acquireTime?: string;
  readonly renewTime?: string;
  readonly leaseTransitions: number;
}

interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string;
    leaseDurationSeconds?: number;
    acquireTime?: string;
    renewTime?: string;
    leaseTransitions?: number;
  };
}

export class KubeLeaseLock {
  readonly description: string;
  readonly #client: ObjectClient;
  readonly #namespace: string;
  readonly #name: string;

  constructor(client: ObjectClient, namespace: string, name: string) {
    this.#client = client;
    this.#namespace = namespace;
    this.#name = name;
    this.description = `${namespace}/${name}`;
  }

  async get(signal: AbortSignal): Promise<{ record: LeaseRecordFields; resourceVersion: string } | undefined> {
    try {
      return toObserved(await this.#client.get<Lease>(LEASES, this.#namespace, this.#name, signal));
    } catch (error) {
      if (isNotFound(error)) return undefined;
      throw error;
    }
  }

  async create(
    record: LeaseRecordFields,
    signal: AbortSignal,
  ): Promise<{ record: LeaseRecordFields; resourceVersion: string }> {
    const lease: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { namespace: this.#namespace, name: this.#name },
      spec: { ...record },
    };
    return toObserved(await this.#client.create(LEASES, lease, { signal }));
  }

  async update(
    record: LeaseRecordFields,
    resourceVersion: string,
    signal: AbortSignal,
  ): Promise<{ record: LeaseRecordFields; resourceVersion: string }> {
    const lease: Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { namespace: this.#namespace, name: this.#name, resourceVersion },
      spec: { ...record },
    };
    return toObserved(await this.#client.replace(LEASES, lease, { signal }));
  }
}

function toObserved(lease: Lease): { record: LeaseRecordFields; resourceVersion: string } {
  const spec = lease.spec ?? {};
  return {
    resourceVersion: lease.metadata?.resourceVersion ?? '',
    record: {
      holderIdentity: spec.holderIdentity ?? '',
      leaseDurationSeconds: spec.leaseDurationSeconds ?? 0,
      leaseTransitions: spec.leaseTransitions ?? 0,
      ...(spec.acquireTime === undefined ? {} : { acquireTime: spec.acquireTime }),
      ...(spec.renewTime === undefined ? {} : { renewTime: spec.renewTime }),
    },
  };
}
