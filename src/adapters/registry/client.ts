// The registry client nudger's Korifi controllers read built images with, and the kpack stand-in
// writes them with (issue 13, docs/decisions.md N40). Reading: the manifest by tag or digest (an
// OCI image manifest, a Docker v2 schema 2 manifest, or an index / manifest list, from which the
// linux/amd64 image is taken, else the first), then its config blob; labels and ExposedPorts come
// back with the digests. Writing: blobs by a monolithic upload (POST, then PUT with the digest),
// the config, then the manifest under its tag. Digests of everything read are checked.
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { ImageConfigError, ImageManifestError, ImageNotFoundError, RegistryRequestError } from './errors.ts';
import { parseExposedPorts, portNumbers, type ExposedPort } from './image-metadata.ts';
import {
  CONFIG_TYPES,
  DOCKER_CONFIG,
  DOCKER_LAYER_GZIP,
  DOCKER_MANIFEST,
  DOCKER_MANIFEST_LIST,
  IMAGE_MANIFEST_TYPES,
  INDEX_TYPES,
  MANIFEST_ACCEPT,
  OCI_CONFIG,
  OCI_INDEX,
  OCI_LAYER_GZIP,
  OCI_MANIFEST,
} from './media-types.ts';
import { parseImageReference, withDigest, type ImageReference } from './reference.ts';
import { describeFailure, readLimited, RegistryTransport, type TransportOptions } from './transport.ts';

export interface Platform {
  readonly os: string;
  readonly architecture: string;
  readonly variant?: string;
}

/** What an index is narrowed to: the platform Korifi's workloads run on. */
export const DEFAULT_PLATFORM: Platform = { os: 'linux', architecture: 'amd64' };

export interface RegistryClientOptions extends TransportOptions {
  /** The platform picked from an index; default linux/amd64. */
  readonly platform?: Platform;
  /** Largest manifest or index read; default 4 MiB (distribution's own limit). */
  readonly maxManifestBytes?: number;
  /** Largest config blob read; default 8 MiB. */
  readonly maxConfigBytes?: number;
}

export interface ImageConfig {
  /** The reference as asked. */
  readonly reference: string;
  /** `host/repository@<digest>` of the image manifest read (the platform's, for an index). */
  readonly pinned: string;
  /** Digest of the image manifest read. */
  readonly digest: string;
  /** Digest of the index the tag pointed to, when it pointed to one. */
  readonly indexDigest: string | undefined;
  readonly mediaType: string;
  readonly configDigest: string;
  readonly os: string | undefined;
  readonly architecture: string | undefined;
  /** `config.Labels`; empty when the image has none. */
  readonly labels: Readonly<Record<string, string>>;
  /** `config.ExposedPorts` keys, e.g. `8080/tcp`, sorted. */
  readonly exposedPorts: readonly string[];
  /** The same, parsed and sorted. */
  readonly parsedPorts: readonly ExposedPort[];
  /** The distinct port numbers, ascending: a droplet's `ports`. */
  readonly ports: readonly number[];
}

export interface Descriptor {
  readonly mediaType: string;
  readonly digest: string;
  readonly size: number;
  readonly platform?: Platform;
}

export interface PushImageInput {
  /** `config.Labels`, e.g. `io.buildpacks.build.metadata` and `io.buildpacks.stack.id`. */
  readonly labels?: Readonly<Record<string, string>>;
  /** `8080`, `8080/tcp`, `53/udp`. */
  readonly exposedPorts?: readonly (string | number)[];
  readonly env?: readonly string[];
  readonly entrypoint?: readonly string[];
  /** Uncompressed tar archives (see tarArchive), pushed gzipped; default one empty archive. */
  readonly layers?: readonly Uint8Array[];
  readonly platform?: Platform;
  /** `oci` (default) or `docker` (v2 schema 2). */
  readonly format?: 'oci' | 'docker';
  /** The config's `created`; default 1980-01-01T00:00:01Z, the buildpacks lifecycle's fixed date. */
  readonly created?: string;
}

export interface PushedImage {
  /** `host/repository@<digest>`: what kpack writes as latestImage. */
  readonly pinned: string;
  readonly digest: string;
  readonly mediaType: string;
  /** Size of the manifest in bytes (for an index's descriptor). */
  readonly size: number;
  readonly configDigest: string;
  readonly platform: Platform;
}

export function sha256Digest(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

/** An empty tar archive: two zero blocks. */
const EMPTY_TAR = new Uint8Array(1024);
/** Fixed so equal inputs give equal digests, as reproducible buildpacks builds do. */
const REPRODUCIBLE_CREATED = '1980-01-01T00:00:01Z';

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON with object keys sorted, so equal content is equal bytes whatever the insertion order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isRecord(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : v,
  );
}

export class RegistryClient {
  readonly #transport: RegistryTransport;
  readonly #options: RegistryClientOptions;

  constructor(options: RegistryClientOptions = {}) {
    this.#options = options;
    this.#transport = new RegistryTransport(options);
  }

  /** The image config of `reference` (tag or digest; an index is narrowed to one platform). */
  async readImageConfig(reference: string): Promise<ImageConfig> {
    const ref = parseImageReference(reference);
    const top = await this.#getManifest(ref, ref.digest ?? ref.tag ?? 'latest');
    let manifest = top;
    let indexDigest: string | undefined;
    if (INDEX_TYPES.includes(top.mediaType)) {
      indexDigest = top.digest;
      const chosen = this.#choose(ref, top.document);
      manifest = await this.#getManifest(ref, chosen.digest);
      if (!IMAGE_MANIFEST_TYPES.includes(manifest.mediaType)) {
        throw new ImageManifestError(
          reference,
          `index entry ${chosen.digest} is ${manifest.mediaType}, not an image manifest`,
        );
      }
    }
    const config = manifest.document.config;
    if (!isRecord(config) || typeof config.digest !== 'string') {
      throw new ImageManifestError(reference, `manifest ${manifest.digest} has no config descriptor`);
    }
    if (typeof config.mediaType === 'string' && !CONFIG_TYPES.includes(config.mediaType)) {
      throw new ImageManifestError(reference, `config media type ${config.mediaType} is not an image config`);
    }
    const configBytes = await this.#getBlob(ref, config.digest, this.#options.maxConfigBytes ?? 8 * 1024 * 1024);
    const parsed = parseConfig(reference, configBytes);
    const parsedPorts = parseExposedPorts(reference, parsed.exposedPorts);
    return {
      reference,
      pinned: withDigest(ref, manifest.digest),
      digest: manifest.digest,
      indexDigest,
      mediaType: manifest.mediaType,
      configDigest: config.digest,
      os: parsed.os,
      architecture: parsed.architecture,
      labels: parsed.labels,
      exposedPorts: parsed.exposedPorts,
      parsedPorts,
      ports: portNumbers(parsedPorts),
    };
  }

  /**
   * Pushes an image built from `input` and tags it with `reference`'s tag (`latest` if none; a
   * reference with a digest only is pushed by digest and must match). Equal inputs give equal
   * digests; any difference in labels, ports, layers or platform gives another.
   */
  async pushImage(reference: string, input: PushImageInput = {}): Promise<PushedImage> {
    const ref = parseImageReference(reference);
    const docker = input.format === 'docker';
    const platform = input.platform ?? DEFAULT_PLATFORM;
    const layers = (input.layers ?? [EMPTY_TAR]).map((tar) => {
      const blob = gzipSync(tar, { level: 9 });
      return { blob, diffId: sha256Digest(tar) };
    });
    const exposed = (input.exposedPorts ?? []).map((p) => (typeof p === 'number' ? `${p}/tcp` : p));
    parseExposedPorts(reference, exposed);
    const containerConfig: Record<string, unknown> = {};
    if (input.labels !== undefined && Object.keys(input.labels).length > 0)
      containerConfig.Labels = { ...input.labels };
    if (exposed.length > 0) containerConfig.ExposedPorts = Object.fromEntries(exposed.map((p) => [p, {}]));
    if (input.env !== undefined) containerConfig.Env = [...input.env];
    if (input.entrypoint !== undefined) containerConfig.Entrypoint = [...input.entrypoint];
    const configBlob = new TextEncoder().encode(
      canonicalJson({
        architecture: platform.architecture,
        os: platform.os,
        ...(platform.variant === undefined ? {} : { variant: platform.variant }),
        created: input.created ?? REPRODUCIBLE_CREATED,
        config: containerConfig,
        rootfs: { type: 'layers', diff_ids: layers.map((l) => l.diffId) },
      }),
    );
    const configDigest = await this.pushBlob(reference, configBlob);
    const layerDescriptors: Descriptor[] = [];
    for (const layer of layers) {
      const digest = await this.pushBlob(reference, layer.blob);
      layerDescriptors.push({
        mediaType: docker ? DOCKER_LAYER_GZIP : OCI_LAYER_GZIP,
        digest,
        size: layer.blob.byteLength,
      });
    }
    const mediaType = docker ? DOCKER_MANIFEST : OCI_MANIFEST;
    const manifest = new TextEncoder().encode(
      canonicalJson({
        schemaVersion: 2,
        mediaType,
        config: { mediaType: docker ? DOCKER_CONFIG : OCI_CONFIG, digest: configDigest, size: configBlob.byteLength },
        layers: layerDescriptors,
      }),
    );
    const digest = await this.putManifest(reference, manifest, mediaType);
    return { pinned: withDigest(ref, digest), digest, mediaType, size: manifest.byteLength, configDigest, platform };
  }

  /** Pushes an index (OCI) or manifest list (`docker`) of images already in the repository. */
  async pushIndex(
    reference: string,
    manifests: readonly Descriptor[],
    format: 'oci' | 'docker' = 'oci',
  ): Promise<{ pinned: string; digest: string; mediaType: string }> {
    const ref = parseImageReference(reference);
    const mediaType = format === 'docker' ? DOCKER_MANIFEST_LIST : OCI_INDEX;
    const body = new TextEncoder().encode(canonicalJson({ schemaVersion: 2, mediaType, manifests }));
    const digest = await this.putManifest(reference, body, mediaType);
    return { pinned: withDigest(ref, digest), digest, mediaType };
  }

  /** Uploads `bytes` to `reference`'s repository unless it is there already; its digest. */
  async pushBlob(reference: string, bytes: Uint8Array): Promise<string> {
    const ref = parseImageReference(reference);
    const digest = sha256Digest(bytes);
    const blobPath = `/v2/${ref.repository}/blobs/${digest}`;
    const head = await this.#transport.send(ref, { method: 'HEAD', target: blobPath, access: 'pull,push' });
    await head.body?.cancel();
    if (head.ok) return digest;
    const uploadsPath = `/v2/${ref.repository}/blobs/uploads/`;
    const started = await this.#transport.send(ref, { method: 'POST', target: uploadsPath, access: 'pull,push' });
    const location = started.headers.get('location');
    if (started.status !== 202 || location === null) {
      throw new RegistryRequestError(reference, 'POST', uploadsPath, started.status, await describeFailure(started));
    }
    await started.body?.cancel();
    const target = new URL(location, this.#transport.baseUrl(ref));
    target.searchParams.set('digest', digest);
    const put = await this.#transport.send(ref, {
      method: 'PUT',
      target: target.href,
      headers: { 'content-type': 'application/octet-stream' },
      body: bytes,
      access: 'pull,push',
    });
    if (put.status !== 201) {
      throw new RegistryRequestError(reference, 'PUT', target.pathname, put.status, await describeFailure(put));
    }
    await put.body?.cancel();
    return digest;
  }

  /** PUTs `bytes` as a manifest under `reference`'s tag (or digest, or `latest`); its digest. */
  async putManifest(reference: string, bytes: Uint8Array, mediaType: string): Promise<string> {
    const ref = parseImageReference(reference);
    const digest = sha256Digest(bytes);
    if (ref.digest !== undefined && ref.digest !== digest) {
      throw new ImageManifestError(reference, `the manifest's digest is ${digest}, not the reference's`);
    }
    const path = `/v2/${ref.repository}/manifests/${ref.tag ?? ref.digest ?? 'latest'}`;
    const response = await this.#transport.send(ref, {
      method: 'PUT',
      target: path,
      headers: { 'content-type': mediaType },
      body: bytes,
      access: 'pull,push',
    });
    if (response.status !== 201) {
      throw new RegistryRequestError(reference, 'PUT', path, response.status, await describeFailure(response));
    }
    await response.body?.cancel();
    const answered = response.headers.get('docker-content-digest');
    if (answered !== null && answered !== digest) {
      throw new ImageManifestError(reference, `the registry stored the manifest as ${answered}, we computed ${digest}`);
    }
    return digest;
  }

  async #getManifest(
    ref: ImageReference,
    target: string,
  ): Promise<{ digest: string; mediaType: string; document: Record<string, unknown> }> {
    const path = `/v2/${ref.repository}/manifests/${target}`;
    const response = await this.#transport.send(ref, {
      method: 'GET',
      target: path,
      headers: { accept: MANIFEST_ACCEPT },
      access: 'pull',
    });
    if (response.status === 404) {
      await response.body?.cancel();
      throw new ImageNotFoundError(ref.original, 'manifest', target);
    }
    if (!response.ok) {
      throw new RegistryRequestError(ref.original, 'GET', path, response.status, await describeFailure(response));
    }
    const bytes = await readLimited(ref, 'GET', path, response, this.#options.maxManifestBytes ?? 4 * 1024 * 1024);
    const digest = sha256Digest(bytes);
    if (target.includes(':') && target !== digest) {
      throw new ImageManifestError(ref.original, `asked for ${target}, the registry sent content of digest ${digest}`);
    }
    let document: unknown;
    try {
      document = JSON.parse(new TextDecoder().decode(bytes));
    } catch (error) {
      throw new ImageManifestError(
        ref.original,
        `${target} is not JSON: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
    if (!isRecord(document)) throw new ImageManifestError(ref.original, `${target} is not a JSON object`);
    const header = response.headers.get('content-type')?.split(';')[0]?.trim();
    const mediaType =
      typeof document.mediaType === 'string'
        ? document.mediaType
        : header !== undefined && header !== '' && header !== 'application/json'
          ? header
          : Array.isArray(document.manifests)
            ? OCI_INDEX
            : OCI_MANIFEST;
    if (
      document.schemaVersion === 1 ||
      (!IMAGE_MANIFEST_TYPES.includes(mediaType) && !INDEX_TYPES.includes(mediaType))
    ) {
      throw new ImageManifestError(
        ref.original,
        `${target} has media type ${mediaType}; readable are ${[...IMAGE_MANIFEST_TYPES, ...INDEX_TYPES].join(', ')}`,
      );
    }
    return { digest, mediaType, document };
  }

  #choose(ref: ImageReference, index: Record<string, unknown>): Descriptor {
    const entries = Array.isArray(index.manifests) ? index.manifests.filter(isRecord) : [];
    const usable = entries.filter(
      (e): e is Record<string, unknown> & { digest: string } => typeof e.digest === 'string',
    );
    const first = usable[0];
    if (first === undefined) throw new ImageManifestError(ref.original, 'the index lists no manifests');
    const wanted = this.#options.platform ?? DEFAULT_PLATFORM;
    const matches = (e: Record<string, unknown>): boolean => {
      const p = e.platform;
      return (
        isRecord(p) &&
        p.os === wanted.os &&
        p.architecture === wanted.architecture &&
        (wanted.variant === undefined || p.variant === wanted.variant)
      );
    };
    const chosen = usable.find(matches) ?? first;
    return {
      digest: chosen.digest,
      mediaType: typeof chosen.mediaType === 'string' ? chosen.mediaType : '',
      size: typeof chosen.size === 'number' ? chosen.size : 0,
    };
  }

  async #getBlob(ref: ImageReference, digest: string, limit: number): Promise<Uint8Array> {
    const path = `/v2/${ref.repository}/blobs/${digest}`;
    const response = await this.#transport.send(ref, { method: 'GET', target: path, access: 'pull' });
    if (response.status === 404) {
      await response.body?.cancel();
      throw new ImageNotFoundError(ref.original, 'blob', digest);
    }
    if (!response.ok) {
      throw new RegistryRequestError(ref.original, 'GET', path, response.status, await describeFailure(response));
    }
    const bytes = await readLimited(ref, 'GET', path, response, limit);
    const actual = sha256Digest(bytes);
    if (actual !== digest) {
      throw new ImageManifestError(ref.original, `blob ${digest} came with content of digest ${actual}`);
    }
    return bytes;
  }
}

function parseConfig(
  reference: string,
  bytes: Uint8Array,
): {
  labels: Record<string, string>;
  exposedPorts: string[];
  os: string | undefined;
  architecture: string | undefined;
} {
  let document: unknown;
  try {
    document = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw new ImageConfigError(
      reference,
      'config',
      `not JSON: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  if (!isRecord(document)) throw new ImageConfigError(reference, 'config', 'not a JSON object');
  const container = document.config ?? {};
  if (!isRecord(container)) throw new ImageConfigError(reference, 'config.config', 'not an object');
  const rawLabels = container.Labels ?? {};
  if (!isRecord(rawLabels)) throw new ImageConfigError(reference, 'config.Labels', 'not an object');
  const labels: Record<string, string> = {};
  for (const [key, value] of Object.entries(rawLabels)) {
    if (typeof value !== 'string')
      throw new ImageConfigError(reference, `config.Labels[${JSON.stringify(key)}]`, 'not a string');
    labels[key] = value;
  }
  const rawPorts = container.ExposedPorts ?? {};
  if (!isRecord(rawPorts)) throw new ImageConfigError(reference, 'config.ExposedPorts', 'not an object');
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  return {
    labels,
    exposedPorts: Object.keys(rawPorts).sort(),
    os: text(document.os),
    architecture: text(document.architecture),
  };
}

let defaultClient: RegistryClient | undefined;

function clientFor(options: RegistryClientOptions | undefined): RegistryClient {
  if (options !== undefined) return new RegistryClient(options);
  defaultClient ??= new RegistryClient();
  return defaultClient;
}

/** RegistryClient.readImageConfig with `options` (anonymous access when none). */
export function readImageConfig(reference: string, options?: RegistryClientOptions): Promise<ImageConfig> {
  return clientFor(options).readImageConfig(reference);
}

/** RegistryClient.pushImage with `options` (anonymous access when none). */
export function pushImage(
  reference: string,
  input?: PushImageInput,
  options?: RegistryClientOptions,
): Promise<PushedImage> {
  return clientFor(options).pushImage(reference, input);
}
