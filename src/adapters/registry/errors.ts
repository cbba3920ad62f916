// Errors of the OCI registry client (docs/decisions.md N40). Every one names the image reference
// it was about, and is built only from the reference, the request path, HTTP statuses and the
// registry's own error codes: never from a credential or an Authorization header.

/** Base class: anything the registry client refuses or could not do for `reference`. */
export class RegistryError extends Error {
  override readonly name: string = 'RegistryError';
  /** The image reference as the caller wrote it. */
  readonly reference: string;

  constructor(reference: string, message: string) {
    super(`image ${reference}: ${message}`);
    this.reference = reference;
  }
}

/** The reference is not a valid image reference (`host[:port]/repository[:tag][@digest]`). */
export class ImageReferenceError extends RegistryError {
  override readonly name = 'ImageReferenceError';
  readonly reason: string;

  constructor(reference: string, reason: string) {
    super(reference, `not a valid image reference: ${reason}`);
    this.reason = reason;
  }
}

/** Plain HTTP was asked for (or a token realm served over it) on a host that is not loopback. */
export class InsecureRegistryError extends RegistryError {
  override readonly name = 'InsecureRegistryError';
  readonly host: string;

  constructor(reference: string, host: string) {
    super(reference, `plain HTTP to ${host} refused: only loopback registries may be spoken to without TLS`);
    this.host = host;
  }
}

/** The manifest or blob does not exist (HTTP 404, or the registry's *_UNKNOWN codes). */
export class ImageNotFoundError extends RegistryError {
  override readonly name = 'ImageNotFoundError';
  /** `manifest` or `blob`. */
  readonly kind: 'manifest' | 'blob';
  /** The tag or digest looked up. */
  readonly target: string;

  constructor(reference: string, kind: 'manifest' | 'blob', target: string) {
    super(reference, `${kind} ${target} not found in the registry`);
    this.kind = kind;
    this.target = target;
  }
}

/** The registry refused our credentials, or asked for some and we had none for its host. */
export class RegistryAuthError extends RegistryError {
  override readonly name = 'RegistryAuthError';
  readonly host: string;
  /** HTTP status of the refusal (401, 403), when one arrived. */
  readonly status: number | undefined;

  constructor(reference: string, host: string, status: number | undefined, reason: string) {
    super(reference, `${host} refused access${status === undefined ? '' : ` (HTTP ${status})`}: ${reason}`);
    this.host = host;
    this.status = status;
  }
}

/** A request failed for another reason: no response, or an unexpected status. */
export class RegistryRequestError extends RegistryError {
  override readonly name = 'RegistryRequestError';
  readonly method: string;
  /** The request's path on the registry (no query, no credentials). */
  readonly path: string;
  /** HTTP status, or undefined when no response arrived. */
  readonly status: number | undefined;
  readonly reason: string;

  constructor(reference: string, method: string, path: string, status: number | undefined, reason: string) {
    super(reference, `${method} ${path}: ${status === undefined ? 'no response' : `HTTP ${status}`}: ${reason}`);
    this.method = method;
    this.path = path;
    this.status = status;
    this.reason = reason;
  }
}

/** A manifest or index that cannot be used: bad JSON, unknown media type, digest mismatch, ... */
export class ImageManifestError extends RegistryError {
  override readonly name = 'ImageManifestError';
  readonly reason: string;

  constructor(reference: string, reason: string) {
    super(reference, `manifest: ${reason}`);
    this.reason = reason;
  }
}

/** The image config blob, or one of its fields, is not what the OCI image spec says. */
export class ImageConfigError extends RegistryError {
  override readonly name = 'ImageConfigError';
  /** The field at fault, e.g. `config.ExposedPorts`, or `config` for the blob as a whole. */
  readonly field: string;
  readonly reason: string;

  constructor(reference: string, field: string, reason: string) {
    super(reference, `image config ${field}: ${reason}`);
    this.field = field;
    this.reason = reason;
  }
}

/** The buildpacks build metadata label is missing or does not say what a buildpacks build writes. */
export class BuildMetadataError extends RegistryError {
  override readonly name = 'BuildMetadataError';
  /** The label, `io.buildpacks.build.metadata`. */
  readonly label: string;
  /** Where in the label's JSON, e.g. `processes[1].type`, or `` for the label as a whole. */
  readonly field: string;
  readonly reason: string;

  constructor(reference: string, label: string, field: string, reason: string) {
    super(reference, `label ${label}${field === '' ? '' : ` ${field}`}: ${reason}`);
    this.label = label;
    this.field = field;
    this.reason = reason;
  }
}
