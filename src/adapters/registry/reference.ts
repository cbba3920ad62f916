// Image references, parsed with the grammar of the distribution project's `reference` package:
// `[host[:port]/]path[:tag][@digest]`. The first path component is a host when it holds a `.` or a
// `:` or is `localhost`; otherwise the image is on Docker Hub (`docker.io`, `library/` for a
// one-component name), as every container tool reads it.
import { ImageReferenceError, InsecureRegistryError } from './errors.ts';

export interface ImageReference {
  /** What the caller wrote, for messages. */
  readonly original: string;
  /** `host[:port]` as written (`docker.io` for Docker Hub). */
  readonly registry: string;
  /** The repository path inside the registry, e.g. `apps/my-app` or `library/busybox`. */
  readonly repository: string;
  readonly tag: string | undefined;
  /** `sha256:<64 hex>`, when the reference pins one. */
  readonly digest: string | undefined;
}

const DOCKER_HUB = 'docker.io';
const DOCKER_HUB_API = 'registry-1.docker.io';
const PATH_COMPONENT = /^[a-z0-9]+(?:(?:[._]|__|-+)[a-z0-9]+)*$/;
const TAG = /^\w[\w.-]{0,127}$/;
const DIGEST = /^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/;
const SHA256 = /^sha256:[a-f0-9]{64}$/;
const HOST =
  /^(?:\[[a-fA-F0-9:]+\]|[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]*[a-zA-Z0-9])?)*)(?::\d{1,5})?$/;

export function parseImageReference(reference: string): ImageReference {
  const fail = (reason: string): never => {
    throw new ImageReferenceError(reference, reason);
  };
  if (reference.length === 0) fail('it is empty');
  if (reference.length > 4096) fail('it is longer than 4096 characters');
  let rest = reference;
  let digest: string | undefined;
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!DIGEST.test(digest)) fail(`digest ${JSON.stringify(digest)} is not <algorithm>:<hex>`);
    if (digest.startsWith('sha256:') && !SHA256.test(digest)) fail('a sha256 digest has 64 lowercase hex digits');
  }
  const slash = rest.indexOf('/');
  const first = slash < 0 ? '' : rest.slice(0, slash);
  const isHost = first !== '' && (first.includes('.') || first.includes(':') || first === 'localhost');
  const registry = isHost ? first : DOCKER_HUB;
  let path = isHost ? rest.slice(slash + 1) : rest;
  if (isHost && !HOST.test(registry)) fail(`registry host ${JSON.stringify(registry)} is not host[:port]`);
  let tag: string | undefined;
  const colon = path.lastIndexOf(':');
  if (colon >= 0 && !path.slice(colon).includes('/')) {
    tag = path.slice(colon + 1);
    path = path.slice(0, colon);
    if (!TAG.test(tag)) fail(`tag ${JSON.stringify(tag)} is not [A-Za-z0-9_][A-Za-z0-9_.-]{0,127}`);
  }
  if (path === '') fail('it names no repository');
  for (const component of path.split('/')) {
    if (!PATH_COMPONENT.test(component)) {
      fail(
        `repository component ${JSON.stringify(component)} must be lowercase letters and digits, separated by . _ __ or -`,
      );
    }
  }
  const repository = registry === DOCKER_HUB && !path.includes('/') ? `library/${path}` : path;
  return { original: reference, registry, repository, tag, digest };
}

/** `host[:port]/repository[:tag][@digest]`, with Docker Hub's host spelt out. */
export function formatImageReference(ref: Omit<ImageReference, 'original'>): string {
  return `${ref.registry}/${ref.repository}${ref.tag === undefined ? '' : `:${ref.tag}`}${ref.digest === undefined ? '' : `@${ref.digest}`}`;
}

/** The same repository, pinned to `digest` (no tag): what kpack writes as an Image's latestImage. */
export function withDigest(ref: ImageReference, digest: string): string {
  return formatImageReference({ registry: ref.registry, repository: ref.repository, tag: undefined, digest });
}

/** The host without its port, brackets removed for IPv6. */
export function hostName(registry: string): string {
  if (registry.startsWith('[')) return registry.slice(1, registry.indexOf(']'));
  const colon = registry.lastIndexOf(':');
  return colon < 0 ? registry : registry.slice(0, colon);
}

/** 127.0.0.0/8, ::1 and localhost: the only hosts spoken to over plain HTTP. */
export function isLoopbackHost(registry: string): boolean {
  const host = hostName(registry).toLowerCase();
  return host === 'localhost' || host === '::1' || /^127(?:\.\d{1,3}){3}$/.test(host);
}

export type RegistryScheme = 'http' | 'https';

/**
 * The API base URL of `ref`'s registry: HTTPS, except plain HTTP for a loopback host unless
 * `loopbackScheme` says otherwise. A plain HTTP URL to any other host is refused.
 */
export function registryBaseUrl(ref: ImageReference, loopbackScheme: RegistryScheme = 'http'): URL {
  const host = ref.registry === DOCKER_HUB ? DOCKER_HUB_API : ref.registry;
  const scheme = isLoopbackHost(host) ? loopbackScheme : 'https';
  return new URL(`${scheme}://${host}/`);
}

/** Refuses `url` when it is plain HTTP to a host that is not loopback. */
export function assertSecureUrl(reference: string, url: URL): void {
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:' && isLoopbackHost(url.host)) return;
  throw new InsecureRegistryError(reference, url.host);
}
