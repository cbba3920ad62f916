// Renders deploy/ the way an operator does, with a real kubectl: the one the provisioning script
// puts beside etcd and kube-apiserver (v1.20.2, whose built-in kustomize is v2.0.3, the oldest the
// manifests must render with). Never skips: without kubectl the deploy tests fail and say why.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { controlPlaneBinDirectory } from '../integration/harness/binaries.ts';

export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');
export const DEPLOY_DIR = join(REPO_ROOT, 'deploy');

/** No executable kubectl where the provisioned control plane lives. */
export class KubectlUnavailableError extends Error {
  readonly directory: string;
  constructor(directory: string) {
    super(
      `no executable kubectl in ${directory}: run scripts/provision-control-plane.sh, or point ` +
        'KUBEBUILDER_ASSETS at a directory that also holds kubectl',
    );
    this.name = 'KubectlUnavailableError';
    this.directory = directory;
  }
}

/** kubectl exited non-zero; carries its stderr, which names the offending file or object. */
export class KubectlFailedError extends Error {
  readonly args: readonly string[];
  readonly status: number | null;
  readonly stderr: string;
  constructor(args: readonly string[], status: number | null, stderr: string) {
    super(`kubectl ${args.join(' ')} exited ${String(status)}: ${stderr.trim()}`);
    this.name = 'KubectlFailedError';
    this.args = args;
    this.status = status;
    this.stderr = stderr;
  }
}

/** A rendered document that is not a Kubernetes object (no apiVersion, kind or metadata.name). */
export class RenderedObjectError extends Error {
  readonly source: string;
  readonly index: number;
  constructor(source: string, index: number, reason: string) {
    super(`${source}: document ${String(index)}: ${reason}`);
    this.name = 'RenderedObjectError';
    this.source = source;
    this.index = index;
  }
}

export interface ObjectMeta {
  readonly name: string;
  readonly namespace?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface KubeObject {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: ObjectMeta;
  readonly [field: string]: unknown;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

let cachedKubectl: string | undefined;

/** The kubectl beside the control plane binaries (KUBEBUILDER_ASSETS, else the provisioner's). */
export function kubectlPath(): string {
  if (cachedKubectl !== undefined) return cachedKubectl;
  const directory = controlPlaneBinDirectory();
  const kubectl = join(directory, 'kubectl');
  try {
    accessSync(kubectl, constants.X_OK);
  } catch {
    throw new KubectlUnavailableError(directory);
  }
  cachedKubectl = kubectl;
  return kubectl;
}

export interface KubectlResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs kubectl with `args`; never throws on a non-zero exit (callers assert on it). */
export function runKubectl(args: readonly string[], input?: string): KubectlResult {
  const result = spawnSync(kubectlPath(), args, {
    input,
    encoding: 'utf8',
    cwd: REPO_ROOT,
    // A developer's own kubeconfig must never be reached: every call names --kubeconfig itself.
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', KUBECONFIG: '/dev/null' },
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error !== undefined) throw result.error;
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Throws KubectlFailedError unless kubectl exits 0; returns stdout. */
export function kubectlOrThrow(args: readonly string[], input?: string): string {
  const result = runKubectl(args, input);
  if (result.status !== 0) throw new KubectlFailedError(args, result.status, result.stderr);
  return result.stdout;
}

/** Parses a multi-document YAML stream into Kubernetes objects, in order. */
export function parseObjects(yamlText: string, source: string): KubeObject[] {
  const objects: KubeObject[] = [];
  parseAllDocuments(yamlText).forEach((doc, index) => {
    if (doc.errors.length > 0)
      throw new RenderedObjectError(source, index, doc.errors.map((e) => e.message).join('; '));
    const value: unknown = doc.toJS();
    if (value === null) return; // an empty document, e.g. after a trailing '---'
    if (!isRecord(value)) throw new RenderedObjectError(source, index, 'not a mapping');
    const { apiVersion, kind, metadata } = value;
    if (typeof apiVersion !== 'string' || typeof kind !== 'string') {
      throw new RenderedObjectError(source, index, 'apiVersion and kind must be strings');
    }
    if (!isRecord(metadata) || typeof metadata.name !== 'string') {
      throw new RenderedObjectError(source, index, `${kind} has no metadata.name`);
    }
    objects.push(value as KubeObject);
  });
  return objects;
}

/** `kubectl kustomize <dir>` (dir relative to deploy/), parsed. */
export function kustomize(directory: string): KubeObject[] {
  const path = join(DEPLOY_DIR, directory);
  return parseObjects(kubectlOrThrow(['kustomize', path]), relative(REPO_ROOT, path));
}

/** `Kind/namespace/name`, or `Kind/name` for objects without a namespace. */
export function objectKey(object: KubeObject): string {
  const { namespace, name } = object.metadata;
  return namespace === undefined ? `${object.kind}/${name}` : `${object.kind}/${namespace}/${name}`;
}
