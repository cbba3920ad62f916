// Errors of the control-plane fixture. Messages are one paragraph a test failure can show as is:
// what failed, where (binary, file, object) and, for a server that would not start, the tail of
// its log, which is where the real reason always is.

/** The etcd / kube-apiserver binaries cannot be found or run. Integration tests must fail on it. */
export class ControlPlaneBinariesError extends Error {
  override readonly name = 'ControlPlaneBinariesError';
  /** The directory looked in, or undefined when none could even be determined. */
  readonly directory: string | undefined;
  readonly reason: string;

  constructor(directory: string | undefined, reason: string) {
    super(
      `control-plane binaries${directory === undefined ? '' : ` in ${directory}`}: ${reason}. ` +
        'Set KUBEBUILDER_ASSETS to a directory holding executable etcd and kube-apiserver, ' +
        'or run `bash scripts/provision-control-plane.sh` (see docs/control-plane.md).',
    );
    this.directory = directory;
    this.reason = reason;
  }
}

/** etcd or kube-apiserver exited or did not become ready in time. */
export class ControlPlaneStartError extends Error {
  override readonly name = 'ControlPlaneStartError';
  readonly component: string;
  readonly reason: string;
  readonly logPath: string;
  readonly logTail: string;

  constructor(component: string, reason: string, logPath: string, logTail: string) {
    super(`${component} did not start: ${reason}. Last lines of ${logPath}:\n${logTail}`);
    this.component = component;
    this.reason = reason;
    this.logPath = logPath;
    this.logTail = logTail;
  }
}

/** A request the fixture itself makes to kube-apiserver failed (CRD install, discovery, ...). */
export class ControlPlaneRequestError extends Error {
  override readonly name = 'ControlPlaneRequestError';
  readonly method: string;
  readonly path: string;
  /** HTTP status, or undefined when no response arrived. */
  readonly status: number | undefined;
  readonly body: string;

  constructor(method: string, path: string, status: number | undefined, body: string) {
    super(`${method} ${path}: ${status === undefined ? 'no response' : `HTTP ${status}`}: ${body.slice(0, 2000)}`);
    this.method = method;
    this.path = path;
    this.status = status;
    this.body = body;
  }
}

/** A CRD file cannot be read, parsed, installed or does not become served. */
export class CrdInstallError extends Error {
  override readonly name = 'CrdInstallError';
  readonly file: string;
  /** `metadata.name` of the CRD, when known. */
  readonly crd: string | undefined;
  readonly reason: string;

  constructor(file: string, crd: string | undefined, reason: string) {
    super(`${file}${crd === undefined ? '' : ` (CustomResourceDefinition ${crd})`}: ${reason}`);
    this.file = file;
    this.crd = crd;
    this.reason = reason;
  }
}

/** tokenFor / kubeconfigPathFor asked for an identity the token file was not generated with. */
export class UnknownIdentityError extends Error {
  override readonly name = 'UnknownIdentityError';
  readonly user: string;
  readonly groups: readonly string[] | undefined;

  constructor(user: string, groups: readonly string[] | undefined, available: readonly string[]) {
    super(
      `no token for user ${user}${groups === undefined ? '' : ` with groups [${groups.join(', ')}]`}; ` +
        `available: ${available.join('; ')}. Add it to ControlPlaneOptions.users.`,
    );
    this.user = user;
    this.groups = groups;
  }
}
