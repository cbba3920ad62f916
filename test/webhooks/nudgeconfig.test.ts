// The NudgeConfig webhook judges each request by the rules of the version its client wrote
// (issue 8, D1): v1alpha1 is nudger's (ADR 67), v1beta2 is upstream's; any other version is denied.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { decideNudgeConfigAdmission } from '../../src/domain/nudgeconfig-admission.ts';
import { manifestSetFromObjects } from '../../src/manifest/parse.ts';
import { SERVED_NUDGE_CONFIG_API_VERSIONS } from '../../src/schema/api-versions.ts';
import { NUDGE_CONFIG_CRD, toCustomResourceDefinition } from '../../src/schema/crd.ts';
import type { AdmissionDecision, AdmissionRequest, GroupVersionKind } from '../../src/webhooks/admission.ts';
import { changeGroupValidator } from '../../src/webhooks/changegroup.ts';
import { nudgeConfigValidator, type ComponentLookup } from '../../src/webhooks/nudgeconfig.ts';

/** Every component of the checkout tenant exists; the lookup records what it was asked. */
class TenantComponents implements ComponentLookup {
  readonly asked: string[][] = [];
  readonly #existing = new Set(['checkout-api', 'checkout-ui', 'checkout-bundle']);
  missing(_namespace: string, names: readonly string[]): Promise<ReadonlySet<string>> {
    this.asked.push([...names]);
    return Promise.resolve(new Set(names.filter((n) => !this.#existing.has(n))));
  }
}

const kind = (version: string, group = 'konflux-ci.dev', k = 'NudgeConfig'): GroupVersionKind => ({
  group,
  version,
  kind: k,
});

function nudgeConfig(apiVersion: string, nudges: object[]): Record<string, unknown> {
  return { apiVersion, kind: 'NudgeConfig', metadata: { name: 'nudge-config' }, spec: { nudges } };
}

function request(
  object: Record<string, unknown>,
  options: { kind?: GroupVersionKind; requestKind?: GroupVersionKind } = {},
): AdmissionRequest {
  const [group = '', version = ''] = String(object.apiVersion).split('/');
  const objectKind = options.kind ?? kind(version, group);
  return {
    uid: '6f1c7d2e-checkout',
    kind: objectKind,
    resource: { group: objectKind.group, version: objectKind.version, resource: 'nudgeconfigs' },
    ...(options.requestKind === undefined ? {} : { requestKind: options.requestKind }),
    namespace: 'checkout',
    operation: 'CREATE',
    userInfo: { username: 'alice' },
    object,
  };
}

async function admit(
  req: AdmissionRequest,
  lookup: ComponentLookup = new TenantComponents(),
): Promise<AdmissionDecision> {
  return nudgeConfigValidator(lookup)(req, new AbortController().signal);
}

/** The denial's message; an admission fails the test. */
function messageOf(decision: AdmissionDecision): string {
  if (decision.allowed) assert.fail('expected a denial');
  return decision.message;
}

const UNGATED = [
  { from: 'checkout-api', to: 'checkout-bundle', mode: 'validated' },
  { from: 'checkout-ui', to: 'checkout-bundle' },
];

describe('NudgeConfig webhook: per-version rules', () => {
  it('admits an ungated validated entry in v1beta2, with a warning that nudger will not fire it', async () => {
    const decision = await admit(request(nudgeConfig('konflux-ci.dev/v1beta2', UNGATED)));
    assert.ok(decision.allowed);
    assert.equal(decision.warnings?.length, 1);
    assert.match(decision.warnings[0] ?? '', /spec\.nudges\[0\].*konflux-ci\.dev\/v1beta2 allows it/);
  });

  it('denies the same entry in v1alpha1', async () => {
    const decision = await admit(request(nudgeConfig('konflux-ci.dev/v1alpha1', UNGATED)));
    assert.equal(decision.allowed, false);
    assert.match(messageOf(decision), /\[missing-gating-group\] spec\.nudges\[0\]/);
  });

  it('holds v1beta2 to 360 entries and v1alpha1 to 5000', async () => {
    const many = Array.from({ length: 361 }, (_, i) => ({ from: `checkout-lib-${String(i)}`, to: 'checkout-api' }));
    const none: ComponentLookup = { missing: () => Promise.resolve(new Set<string>()) };
    const beta = await admit(request(nudgeConfig('konflux-ci.dev/v1beta2', many)), none);
    assert.equal(beta.allowed, false);
    assert.match(messageOf(beta), /\[too-many-edges\].*361 entries exceed the limit of 360/);
    const alpha = await admit(request(nudgeConfig('konflux-ci.dev/v1alpha1', many)), none);
    assert.equal(alpha.allowed, true);
  });

  it('applies the rules of the version the client wrote when the object arrives converted', async () => {
    // matchPolicy: Equivalent converted a v1beta2 write to v1alpha1 (as if only v1alpha1 were registered).
    const converted = request(nudgeConfig('konflux-ci.dev/v1alpha1', UNGATED), {
      requestKind: kind('v1beta2'),
    });
    assert.equal((await admit(converted)).allowed, true);
    const other = request(nudgeConfig('konflux-ci.dev/v1beta2', UNGATED), { requestKind: kind('v1alpha1') });
    assert.equal((await admit(other)).allowed, false);
  });

  it('still checks that every named component exists, in both versions', async () => {
    const lookup = new TenantComponents();
    const decision = await admit(
      request(nudgeConfig('konflux-ci.dev/v1beta2', [{ from: 'checkout-api', to: 'checkout-pdf' }])),
      lookup,
    );
    assert.equal(decision.allowed, false);
    assert.match(messageOf(decision), /component "checkout-pdf" does not exist in namespace checkout/);
    assert.deepEqual(lookup.asked, [['checkout-api', 'checkout-pdf']]);
  });
});

describe('NudgeConfig webhook: versions it does not know', () => {
  it('denies a request for a version nudger does not serve, naming it, without looking anything up', async () => {
    const lookup = new TenantComponents();
    const decision = await admit(request(nudgeConfig('konflux-ci.dev/v1', UNGATED)), lookup);
    assert.deepEqual(decision, {
      allowed: false,
      code: 400,
      reason: 'BadRequest',
      message:
        "nudger's NudgeConfig webhook judges konflux-ci.dev/v1alpha1 and konflux-ci.dev/v1beta2 NudgeConfigs only; this request is for konflux-ci.dev/v1 NudgeConfig, whose rules nudger does not know (is the webhook registered for a version nudger does not serve?)",
    });
    assert.deepEqual(lookup.asked, []);
  });

  it('denies another group’s NudgeConfig sent to it', async () => {
    const decision = await admit(request(nudgeConfig('appstudio.redhat.com/v1beta2', UNGATED)));
    assert.equal(decision.allowed, false);
    assert.match(messageOf(decision), /this request is for appstudio\.redhat\.com\/v1beta2/);
  });

  it('the ChangeGroup webhook likewise denies a version it does not know, asking nothing', async () => {
    const asked: string[] = [];
    const handler = changeGroupValidator({
      components: {
        missing: (_ns, names) => {
          asked.push(...names);
          return Promise.resolve(new Set<string>());
        },
      },
      edges: { withoutEdge: () => Promise.resolve(new Set<string>()) },
      changeGroups: { inNamespace: () => [] },
    });
    const changeGroup = {
      apiVersion: 'appstudio.redhat.com/v1beta1',
      kind: 'ChangeGroup',
      metadata: { name: 'checkout-release' },
      spec: { nudgedComponent: 'checkout-bundle', nudgingComponents: [{ name: 'checkout-api' }] },
    };
    const beta = await handler(
      request(changeGroup, { kind: kind('v1beta1', 'appstudio.redhat.com', 'ChangeGroup') }),
      new AbortController().signal,
    );
    assert.match(
      messageOf(beta),
      /^nudger's ChangeGroup webhook judges appstudio\.redhat\.com\/v1alpha1 ChangeGroups only; this request is for appstudio\.redhat\.com\/v1beta1 ChangeGroup/,
    );
    assert.deepEqual(asked, []);
    const alpha = await handler(
      request(
        { ...changeGroup, apiVersion: 'appstudio.redhat.com/v1alpha1' },
        { kind: kind('v1alpha1', 'appstudio.redhat.com', 'ChangeGroup') },
      ),
      new AbortController().signal,
    );
    assert.deepEqual(alpha, { allowed: true });
  });

  it('the decision itself refuses an object it could not read as a NudgeConfig', () => {
    const decision = decideNudgeConfigAdmission({
      operation: 'CREATE',
      incoming: manifestSetFromObjects([
        { value: nudgeConfig('konflux-ci.dev/v2', UNGATED), origin: 'admission request 1' },
      ]),
      missingComponents: new Set(),
    });
    assert.equal(decision.allowed, false);
    assert.match(
      decision.message,
      /^not a NudgeConfig nudger can read: .*apiVersion "konflux-ci\.dev\/v2": not a version nudger reads/,
    );
  });
});

describe('served versions agree everywhere', () => {
  it('the CRD, the webhook registration and the webhook handler name the same versions', async () => {
    const crd = toCustomResourceDefinition(NUDGE_CONFIG_CRD) as {
      spec: { group: string; versions: { name: string }[] };
    };
    const fromCrd = crd.spec.versions.map((v) => `${crd.spec.group}/${v.name}`);
    assert.deepEqual(fromCrd, [...SERVED_NUDGE_CONFIG_API_VERSIONS]);
    const registration = parse(
      await readFile(new URL('../../deploy/webhook/validating_webhook_configuration.yaml', import.meta.url), 'utf8'),
    ) as { webhooks: { name: string; rules: { apiGroups: string[]; apiVersions: string[] }[] }[] };
    const webhook = registration.webhooks.find((w) => w.name === 'vnudgeconfig.konflux-ci.dev');
    const registered = webhook?.rules.flatMap((r) => r.apiGroups.flatMap((g) => r.apiVersions.map((v) => `${g}/${v}`)));
    assert.deepEqual(registered, fromCrd);
  });
});
