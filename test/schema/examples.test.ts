// The example trees say what they show: the valid ones validate cleanly (for nudger and for the
// CRD's CEL rules), each invalid file breaks exactly the rule its README names, and the bundle
// repository really holds a digest reference for every operand.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { parse, parseAllDocuments } from 'yaml';
import type { ManifestSet } from '../../src/domain/model.ts';
import { validateManifestSet } from '../../src/domain/validate.ts';
import { parseManifestSet } from '../../src/manifest/parse.ts';
import { NUDGE_CONFIG_CRD, toCustomResourceDefinition } from '../../src/schema/crd.ts';
import { evaluateCelRules, findListMapDuplicates, openApiSchemaOf } from './cel-evaluator.ts';

const EXAMPLES = new URL('../../examples/', import.meta.url);
const BUNDLE = 'stellar-operator-bundle';
const TENANT_IMAGES = 'quay.io/redhat-user-workloads/stellar-tenant/';

async function yamlFilesUnder(dir: string): Promise<{ path: string; text: string }[]> {
  const names = (await readdir(new URL(dir, EXAMPLES), { recursive: true })).filter((n) => /\.ya?ml$/.test(n)).sort();
  return Promise.all(
    names.map(async (name) => ({
      path: `${dir}${name}`,
      text: await readFile(new URL(`${dir}${name}`, EXAMPLES), 'utf8'),
    })),
  );
}

async function manifestsOf(dir: string): Promise<ManifestSet> {
  return parseManifestSet(await yamlFilesUnder(dir));
}

function edgesOf(set: ManifestSet): string[] {
  const fromConfigs = set.nudgeConfigs.flatMap((c) => c.entries.map((e) => `${e.from} -> ${e.to}`));
  const fromRefs = set.components.flatMap((c) => c.buildNudgesRef.map((r) => `${c.ref.name} -> ${r.name}`));
  return [...fromConfigs, ...fromRefs].sort();
}

function fakeDigest(name: string): string {
  return `sha256:${createHash('sha256').update(name).digest('hex')}`;
}

/** The `| file | rule |` rows of examples/invalid/README.md. */
async function invalidReadmeTable(): Promise<Map<string, string>> {
  const readme = await readFile(new URL('invalid/README.md', EXAMPLES), 'utf8');
  const rows = [...readme.matchAll(/^\| `([^`]+\.yaml)` \| `([a-z-]+)` \|/gm)];
  return new Map(rows.map((m) => [m[1] ?? '', m[2] ?? '']));
}

describe('examples/invalid', () => {
  it('has one file per rule id, as its README lists', async () => {
    const table = await invalidReadmeTable();
    const files = (await readdir(new URL('invalid/', EXAMPLES))).filter((n) => n.endsWith('.yaml')).sort();
    assert.deepEqual([...table.keys()].sort(), files);
    assert.equal(new Set(table.values()).size, files.length);
  });

  it('breaks exactly the named rule, exactly once, in each file', async () => {
    for (const [file, rule] of await invalidReadmeTable()) {
      const set = parseManifestSet([
        { path: file, text: await readFile(new URL(`invalid/${file}`, EXAMPLES), 'utf8') },
      ]);
      const rules = validateManifestSet(set).findings.map((f) => f.rule);
      assert.deepEqual(rules, [rule], file);
    }
  });

  it('keeps the files independent: together they give the same one finding per file', async () => {
    const findings = validateManifestSet(await manifestsOf('invalid/')).findings;
    const byFile = findings.map((f) => [f.location?.file.replace('invalid/', ''), f.rule]);
    assert.deepEqual(new Map(byFile as [string, string][]), await invalidReadmeTable());
    assert.equal(findings.length, (await invalidReadmeTable()).size);
  });

  it('too-many-edges is one over the generated CRD maxItems', async () => {
    const [config] = (await manifestsOf('invalid/')).nudgeConfigs.filter((c) => c.ref.namespace === 'too-many-edges');
    const schema = openApiSchemaOf(toCustomResourceDefinition(NUDGE_CONFIG_CRD));
    const nudges = (
      (schema.properties as Record<string, Record<string, unknown>>).spec?.properties as Record<
        string,
        Record<string, unknown>
      >
    ).nudges;
    assert.equal(config?.entries.length, Number(nudges?.maxItems) + 1);
  });
});

describe('examples/olm-operator', () => {
  it('is valid: 31 Components and one NudgeConfig with 30 immediate edges into the bundle', async () => {
    const set = await manifestsOf('olm-operator/');
    assert.deepEqual(validateManifestSet(set).findings, []);
    assert.equal(set.components.length, 31);
    assert.ok(set.components.every((c) => c.buildNudgesRef.length === 0));
    const [config, ...others] = set.nudgeConfigs;
    assert.deepEqual(others, []);
    assert.equal(config?.entries.length, 30);
    assert.ok(config.entries.every((e) => e.to === BUNDLE && e.mode === 'immediate'));
  });

  it('passes the CRD CEL rules and list-map key as the API server would apply them', async () => {
    const text = await readFile(new URL('olm-operator/nudge-config.yaml', EXAMPLES), 'utf8');
    const object: unknown = parse(text);
    const schema = openApiSchemaOf(toCustomResourceDefinition(NUDGE_CONFIG_CRD));
    assert.deepEqual(evaluateCelRules(schema, object), []);
    assert.deepEqual(findListMapDuplicates(schema, object), []);
  });

  it('lists every manifest in kustomization.yaml, and nothing from bundle-repo/', async () => {
    const kustomization = parse(await readFile(new URL('olm-operator/kustomization.yaml', EXAMPLES), 'utf8')) as {
      resources: string[];
    };
    const manifests = (await yamlFilesUnder('olm-operator/'))
      .map((f) => f.path.replace('olm-operator/', ''))
      .filter((p) => !p.startsWith('bundle-repo/') && p !== 'kustomization.yaml');
    assert.deepEqual([...kustomization.resources].sort(), manifests.sort());
  });

  it('has the same edges as the legacy build-nudges-ref tree (the migration demo)', async () => {
    const legacy = await manifestsOf('olm-operator-legacy/');
    assert.deepEqual(validateManifestSet(legacy).findings, []);
    assert.deepEqual(legacy.nudgeConfigs, []);
    assert.deepEqual(edgesOf(legacy), edgesOf(await manifestsOf('olm-operator/')));
  });

  it('has a digest reference for every operand in the CSV, update_bundle.sh and relatedImages', async () => {
    const set = await manifestsOf('olm-operator/');
    const operands = set.components.map((c) => c.ref.name).filter((n) => n !== BUNDLE);
    const read = (p: string) => readFile(new URL(`olm-operator/bundle-repo/${p}`, EXAMPLES), 'utf8');
    const csvText = await read('bundle/manifests/stellar-operator.clusterserviceversion.yaml');
    const script = await read('bundle-hack/update_bundle.sh');
    const dockerfile = await read('Dockerfile');
    const [csvDoc] = parseAllDocuments(csvText);
    const csv = csvDoc?.toJS() as { spec: { relatedImages: { name: string; image: string }[] } };
    for (const name of operands) {
      const ref = `${TENANT_IMAGES}${name}@${fakeDigest(name)}`;
      assert.ok(csvText.includes(ref), `CSV lacks ${name}`);
      assert.ok(script.includes(`_IMAGE_PULLSPEC="${ref}"`), `update_bundle.sh lacks ${name}`);
      assert.ok(
        csv.spec.relatedImages.some((r) => r.name === name && r.image === ref),
        `relatedImages lacks ${name}`,
      );
    }
    assert.equal(csv.spec.relatedImages.length, 30);
    assert.match(csvText, /--api-server-image=quay\.io\/\S+@sha256:[a-f0-9]{64}$/m);
    assert.match(
      dockerfile,
      new RegExp(`^FROM ${TENANT_IMAGES}stellar-operator@${fakeDigest('stellar-operator')} AS operator$`, 'm'),
    );
    // Each Component's containerImage is the repository those references point into.
    for (const c of set.components) assert.equal(c.containerImage, `${TENANT_IMAGES}${c.ref.name}`);
  });
});

describe('examples/parent-image', () => {
  it('is valid: a parent nudging 5 children, each nudging the one bundle', async () => {
    const set = await manifestsOf('parent-image/');
    assert.deepEqual(validateManifestSet(set).findings, []);
    const children = ['catalog-api', 'notifications-worker', 'orders-api', 'payments-api', 'reports-worker'];
    assert.deepEqual(
      edgesOf(set),
      [...children.map((c) => `python-base -> ${c}`), ...children.map((c) => `${c} -> shop-operator-bundle`)].sort(),
    );
  });
});
