// The manifest, index and config media types of the OCI image spec and of Docker's v2 schema 2,
// which registries serve side by side. Docker's schema 1 is not read: no builder writes it since
// 2017 and distribution itself refuses new pushes of it.

export const OCI_MANIFEST = 'application/vnd.oci.image.manifest.v1+json';
export const OCI_INDEX = 'application/vnd.oci.image.index.v1+json';
export const OCI_CONFIG = 'application/vnd.oci.image.config.v1+json';
export const OCI_LAYER_GZIP = 'application/vnd.oci.image.layer.v1.tar+gzip';
export const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';
export const DOCKER_MANIFEST_LIST = 'application/vnd.docker.distribution.manifest.list.v2+json';
export const DOCKER_CONFIG = 'application/vnd.docker.container.image.v1+json';
export const DOCKER_LAYER_GZIP = 'application/vnd.docker.image.rootfs.diff.tar.gzip';

export const IMAGE_MANIFEST_TYPES: readonly string[] = [OCI_MANIFEST, DOCKER_MANIFEST];
export const INDEX_TYPES: readonly string[] = [OCI_INDEX, DOCKER_MANIFEST_LIST];
export const CONFIG_TYPES: readonly string[] = [OCI_CONFIG, DOCKER_CONFIG];

/** The Accept header of a manifest GET: every type we read. */
export const MANIFEST_ACCEPT = [OCI_MANIFEST, OCI_INDEX, DOCKER_MANIFEST, DOCKER_MANIFEST_LIST].join(', ');
