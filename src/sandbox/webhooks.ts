// Registers nudger's admission webhooks with a sandbox kube-apiserver, pointing at the manager
// running in process on 127.0.0.1. The webhooks themselves (names, rules, failure policies,
// object selector, timeouts) are read from deploy/webhook/, so the sandbox exercises exactly what
// a cluster gets; only the clientConfig (URL instead of Service, CA instead of cert-manager's
// injection) and the object names change.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'yaml';
import type { ObjectClient } from '../adapters/kubernetes/client.ts';
import { isAlreadyExists } from '../adapters/kubernetes/errors.ts';
import type { KubeObject, ResourceRef } from '../adapters/kubernetes/types.ts';
import {
  CHANGEGROUP_VALIDATING_PATH,
  NUDGECONFIG_VALIDATING_PATH,
  PIPELINERUN_MUTATING_PATH,
} from '../webhooks/paths.ts';
import { REPO_ROOT } from './control-plane/paths.ts';
import { isRecord } from '../domain/records.ts';

const admissionRegistration = (plural: string, kind: string): ResourceRef => ({
  group: 'admissionregistration.k8s.io',
  version: 'v1',
  plural,
  kind,
  namespaced: false,
});
export const VALIDATING_WEBHOOK_CONFIGURATIONS = admissionRegistration(
  'validatingwebhookconfigurations',
  'ValidatingWebhookConfiguration',
);
export const MUTATING_WEBHOOK_CONFIGURATIONS = admissionRegistration(
  'mutatingwebhookconfigurations',
  'MutatingWebhookConfiguration',
);

export const WEBHOOK_MANIFEST_DIR = join(REPO_ROOT, 'deploy', 'webhook');
/** The label every namespace carries from Kubernetes 1.21 on; the sandbox sets it itself on 1.20. */
export const NAMESPACE_NAME_LABEL = 'kubernetes.io/metadata.name';

export class WebhookManifestError extends Error {
  override readonly name = 'WebhookManifestError';
  readonly file: string;
  /** Which part of the manifest is wrong, e.g. `webhooks[0].clientConfig.service.path`. */
  readonly field: string;
  readonly reason: string;

  constructor(file: string, field: string, reason: string) {
    super(`${file}: ${field}: ${reason}`);
    this.file = file;
    this.field = field;
    this.reason = reason;
  }
}

export interface RegisterWebhooksOptions {
  /** The manager's webhook URL for a path, e.g. `https://127.0.0.1:<port><path>`. */
  readonly url: (path: string) => string;
  /** PEM of the CA that signed the manager's serving certificate. */
  readonly caPem: string;
  /**
   * Only objects in this namespace go to the webhooks (selector on NAMESPACE_NAME_LABEL, which the
   * caller must set on the namespace under Kubernetes 1.20). Default: every namespace.
   */
  readonly namespace?: string;
  /** Prefix of the two configurations' names; default `nudger-sandbox`. */
  readonly namePrefix?: string;
  /** Where deploy/webhook/ is; default the package's. */
  readonly manifestDirectory?: string;
}

export interface RegisteredWebhooks {
  readonly validating: KubeObject;
  readonly mutating: KubeObject;
  /** Every webhook name and the URL it calls. */
  readonly urls: Readonly<Record<string, string>>;
}

/** Every path the manager serves; a manifest naming another one is refused. */
const KNOWN_PATHS = new Set([NUDGECONFIG_VALIDATING_PATH, CHANGEGROUP_VALIDATING_PATH, PIPELINERUN_MUTATING_PATH]);

/**
 * A deploy/webhook configuration rewritten for a manager on `url`: each webhook's Service
 * reference becomes a URL with the CA inline, and the optional namespace selector is added.
 */
export function localWebhookConfiguration(
  manifest: unknown,
  file: string,
  options: RegisterWebhooksOptions,
  name: string,
): { object: KubeObject; urls: Record<string, string> } {
  if (!isRecord(manifest) || !Array.isArray(manifest.webhooks)) {
    throw new WebhookManifestError(file, 'webhooks', 'is missing or not a list');
  }
  const urls: Record<string, string> = {};
  const webhooks = (manifest.webhooks as unknown[]).map((webhook, index) => {
    const field = `webhooks[${String(index)}]`;
    if (!isRecord(webhook) || typeof webhook.name !== 'string') {
      throw new WebhookManifestError(file, `${field}.name`, 'is missing');
    }
    const clientConfig = isRecord(webhook.clientConfig) ? webhook.clientConfig : {};
    const service = isRecord(clientConfig.service) ? clientConfig.service : {};
    const path = service.path;
    if (typeof path !== 'string' || !KNOWN_PATHS.has(path)) {
      throw new WebhookManifestError(
        file,
        `${field}.clientConfig.service.path`,
        `${JSON.stringify(path)} is not a path the manager serves (src/webhooks/paths.ts)`,
      );
    }
    const url = options.url(path);
    urls[webhook.name] = url;
    return {
      ...webhook,
      clientConfig: { url, caBundle: Buffer.from(options.caPem).toString('base64') },
      ...(options.namespace === undefined
        ? {}
        : {
            namespaceSelector: {
              matchExpressions: [{ key: NAMESPACE_NAME_LABEL, operator: 'In', values: [options.namespace] }],
            },
          }),
    };
  });
  const metadata = isRecord(manifest.metadata) ? manifest.metadata : {};
  const labels = isRecord(metadata.labels) ? metadata.labels : {};
  return {
    object: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: typeof manifest.kind === 'string' ? manifest.kind : '',
      // No cert-manager annotation: nothing would inject a CA, and the CA is inline.
      metadata: { name, labels: labels as Record<string, string> },
      webhooks,
    } as KubeObject,
    urls,
  };
}

async function readManifest(path: string, kind: string): Promise<unknown> {
  const manifest: unknown = parse(await readFile(path, 'utf8'));
  if (!isRecord(manifest) || manifest.kind !== kind) {
    throw new WebhookManifestError(path, 'kind', `expected ${kind}`);
  }
  return manifest;
}

async function createOrReplace(client: ObjectClient, ref: ResourceRef, object: KubeObject): Promise<KubeObject> {
  try {
    return await client.create(ref, object);
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
    const current = await client.get(ref, '', object.metadata?.name ?? '');
    return client.replace(ref, {
      ...object,
      metadata: { ...object.metadata, resourceVersion: current.metadata?.resourceVersion ?? '' },
    });
  }
}

/**
 * Creates (or replaces) the ValidatingWebhookConfiguration (NudgeConfig, ChangeGroup) and the
 * MutatingWebhookConfiguration (nudge PipelineRuns) of deploy/webhook/, calling `options.url`.
 * The apiserver starts calling them a moment later: probe before relying on them.
 */
export async function registerWebhooks(
  client: ObjectClient,
  options: RegisterWebhooksOptions,
): Promise<RegisteredWebhooks> {
  const directory = options.manifestDirectory ?? WEBHOOK_MANIFEST_DIR;
  const prefix = options.namePrefix ?? 'nudger-sandbox';
  const validatingFile = join(directory, 'validating_webhook_configuration.yaml');
  const mutatingFile = join(directory, 'mutating_webhook_configuration.yaml');
  const validating = localWebhookConfiguration(
    await readManifest(validatingFile, VALIDATING_WEBHOOK_CONFIGURATIONS.kind),
    validatingFile,
    options,
    `${prefix}-validating`,
  );
  const mutating = localWebhookConfiguration(
    await readManifest(mutatingFile, MUTATING_WEBHOOK_CONFIGURATIONS.kind),
    mutatingFile,
    options,
    `${prefix}-mutating`,
  );
  return {
    validating: await createOrReplace(client, VALIDATING_WEBHOOK_CONFIGURATIONS, validating.object),
    mutating: await createOrReplace(client, MUTATING_WEBHOOK_CONFIGURATIONS, mutating.object),
    urls: { ...validating.urls, ...mutating.urls },
  };
}
