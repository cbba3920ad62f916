// Installs CRD files into the fixture's apiserver: adapt for v1.20, create or update, then wait
// until each is Established and every served version shows the resource in discovery (only then
// can clients, informers and RESTMappers use it without a race).
import { readFile } from 'node:fs/promises';
import { parseAllDocuments } from 'yaml';
import { adaptCrdForV120 } from './crd-adapt.ts';
import { ControlPlaneRequestError, CrdInstallError } from './errors.ts';
import { delay, rawRequest, requestJson, type RestTarget } from './rest.ts';
import { isRecord } from '../../domain/records.ts';

const CRD_PATH = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const POLL_MS = 100;
const SERVED_ATTEMPTS = 600; // x 100 ms, plus request time: about a minute on a loaded machine

interface LoadedCrd {
  readonly file: string;
  readonly name: string;
  readonly object: Record<string, unknown>;
}

async function loadCrds(file: string): Promise<LoadedCrd[]> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CrdInstallError(
      file,
      undefined,
      `cannot read: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const crds: LoadedCrd[] = [];
  for (const doc of parseAllDocuments(text)) {
    if (doc.errors.length > 0)
      throw new CrdInstallError(file, undefined, `invalid YAML: ${doc.errors[0]?.message ?? ''}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) continue;
    if (
      !isRecord(value) ||
      value.kind !== 'CustomResourceDefinition' ||
      value.apiVersion !== 'apiextensions.k8s.io/v1'
    ) {
      throw new CrdInstallError(
        file,
        undefined,
        'a document is not an apiextensions.k8s.io/v1 CustomResourceDefinition',
      );
    }
    const name = isRecord(value.metadata) ? value.metadata.name : undefined;
    if (typeof name !== 'string') throw new CrdInstallError(file, undefined, 'a CRD has no metadata.name');
    crds.push({ file, name, object: adaptCrdForV120(value) });
  }
  return crds;
}

async function createOrUpdate(target: RestTarget, crd: LoadedCrd): Promise<void> {
  const path = `${CRD_PATH}/${crd.name}`;
  const fail = (error: unknown): never => {
    const reason =
      error instanceof ControlPlaneRequestError ? `${error.status ?? 'no response'}: ${error.body}` : String(error);
    throw new CrdInstallError(crd.file, crd.name, `refused by kube-apiserver: ${reason}`);
  };
  const created = await rawRequest(target, 'POST', CRD_PATH, crd.object).catch(fail);
  if (created.status === 201) return;
  if (created.status !== 409) fail(new ControlPlaneRequestError('POST', CRD_PATH, created.status, created.body));
  // Already there (a second install, or an earlier test): replace it, retrying on write conflicts.
  for (let attempt = 1; ; attempt++) {
    const current = await requestJson(target, 'GET', path).catch(fail);
    const resourceVersion =
      isRecord(current) && isRecord(current.metadata) ? current.metadata.resourceVersion : undefined;
    const metadata = isRecord(crd.object.metadata) ? crd.object.metadata : {};
    const body = { ...crd.object, metadata: { ...metadata, resourceVersion } };
    const replaced = await rawRequest(target, 'PUT', path, body).catch(fail);
    if (replaced.status === 200) return;
    if (replaced.status !== 409 || attempt >= 5)
      fail(new ControlPlaneRequestError('PUT', path, replaced.status, replaced.body));
  }
}

interface CrdState {
  readonly established: boolean;
  readonly refusal: string | undefined;
  readonly group: string;
  readonly plural: string;
  readonly servedVersions: readonly string[];
}

function crdState(value: unknown): CrdState | undefined {
  if (!isRecord(value) || !isRecord(value.spec) || !isRecord(value.spec.names)) return undefined;
  const { group, versions } = value.spec;
  const { plural } = value.spec.names;
  if (typeof group !== 'string' || typeof plural !== 'string' || !Array.isArray(versions)) return undefined;
  const conditions = isRecord(value.status) && Array.isArray(value.status.conditions) ? value.status.conditions : [];
  const condition = (type: string): Record<string, unknown> | undefined =>
    (conditions as unknown[]).filter(isRecord).find((c) => c.type === type);
  const namesAccepted = condition('NamesAccepted');
  return {
    established: condition('Established')?.status === 'True',
    refusal: namesAccepted?.status === 'False' ? `names not accepted: ${String(namesAccepted.message)}` : undefined,
    group,
    plural,
    servedVersions: (versions as unknown[])
      .filter(isRecord)
      .filter((v) => v.served === true && typeof v.name === 'string')
      .map((v) => String(v.name)),
  };
}

async function servedInDiscovery(target: RestTarget, state: CrdState, version: string): Promise<boolean> {
  const response = await rawRequest(target, 'GET', `/apis/${state.group}/${version}`);
  if (response.status !== 200) return false;
  const list: unknown = JSON.parse(response.body);
  return (
    isRecord(list) &&
    Array.isArray(list.resources) &&
    (list.resources as unknown[]).some((r) => isRecord(r) && r.name === state.plural)
  );
}

async function waitUntilServed(target: RestTarget, crd: LoadedCrd): Promise<void> {
  let last = 'not yet Established';
  for (let attempt = 0; attempt < SERVED_ATTEMPTS; attempt++) {
    const state = crdState(await requestJson(target, 'GET', `${CRD_PATH}/${crd.name}`));
    if (state === undefined) throw new CrdInstallError(crd.file, crd.name, 'kube-apiserver returned a malformed CRD');
    if (state.refusal !== undefined) throw new CrdInstallError(crd.file, crd.name, state.refusal);
    if (state.established) {
      const served = await Promise.all(state.servedVersions.map((v) => servedInDiscovery(target, state, v)));
      if (served.every(Boolean)) return;
      last = `Established, but not yet in discovery for ${state.servedVersions.filter((_, i) => served[i] !== true).join(', ')}`;
    }
    await delay(POLL_MS);
  }
  throw new CrdInstallError(crd.file, crd.name, `not served after ${SERVED_ATTEMPTS} polls: ${last}`);
}

export async function installCrdFiles(target: RestTarget, files: readonly string[]): Promise<void> {
  const crds = (await Promise.all(files.map(loadCrds))).flat();
  for (const crd of crds) await createOrUpdate(target, crd);
  await Promise.all(crds.map((crd) => waitUntilServed(target, crd)));
}
