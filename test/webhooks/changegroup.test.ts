import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChangeGroupView } from '../../src/domain/changegroup/hold-decision.ts';
import type { AdmissionRequest } from '../../src/webhooks/admission.ts';
import {
  changeGroupView,
  decideChangeGroupAdmission,
  nudgersToCheck,
  type ChangeGroupAdmissionInput,
} from '../../src/domain/changegroup/admission.ts';
import { decodeChangeGroup } from '../../src/domain/cluster-objects.ts';
import { changeGroupValidator } from '../../src/webhooks/changegroup.ts';
import { hasNudgeEdge } from '../../src/webhooks/changegroup-lookup.ts';

const NS = 'tenant';
const view = (
  name: string,
  nudged: string,
  nudging: string[],
  extra: Partial<ChangeGroupView> = {},
): ChangeGroupView => ({
  name,
  namespace: NS,
  nudgedComponent: nudged,
  nudgingComponents: nudging,
  ...extra,
});

const input = (overrides: Partial<ChangeGroupAdmissionInput> = {}): ChangeGroupAdmissionInput => ({
  operation: 'CREATE',
  changeGroup: view('cg', 'bundle', ['a', 'b']),
  nudgedExists: true,
  nudgersWithoutEdge: new Set(),
  changeGroups: [],
  ...overrides,
});

function denied(decision: ReturnType<typeof decideChangeGroupAdmission>): string {
  if (decision.allowed) assert.fail('the ChangeGroup was admitted');
  return decision.message;
}

describe('decideChangeGroupAdmission', () => {
  it('admits a ChangeGroup whose target exists and whose nudgers all have edges', () => {
    assert.deepEqual(decideChangeGroupAdmission(input()), { allowed: true });
  });

  it('denies a missing nudged component, naming it and the field', () => {
    const message = denied(decideChangeGroupAdmission(input({ nudgedExists: false })));
    assert.match(message, /spec\.nudgedComponent: component "bundle" does not exist in namespace tenant/);
  });

  it('does not re-check the nudged component on update (it is immutable)', () => {
    assert.equal(decideChangeGroupAdmission(input({ operation: 'UPDATE', nudgedExists: false })).allowed, true);
  });

  it('denies a nudging component without an edge, naming it and its index', () => {
    const message = denied(decideChangeGroupAdmission(input({ nudgersWithoutEdge: new Set(['b']) })));
    assert.match(message, /spec\.nudgingComponents\[1\]\.name: component "b" does not nudge "bundle"/);
    assert.doesNotMatch(message, /"a"/);
  });

  it('denies a timeout that does not parse', () => {
    const changeGroup = { ...view('cg', 'bundle', ['a']), timeout: '0s' };
    assert.match(denied(decideChangeGroupAdmission(input({ changeGroup }))), /spec\.timeout: must be longer than zero/);
    const ok = { ...view('cg', 'bundle', ['a']), timeout: '1h30m' };
    assert.equal(decideChangeGroupAdmission(input({ changeGroup: ok })).allowed, true);
  });

  it('denies a pair already held by another active ChangeGroup, naming it and the shared nudgers', () => {
    const message = denied(decideChangeGroupAdmission(input({ changeGroups: [view('first', 'bundle', ['b', 'c'])] })));
    assert.match(message, /active ChangeGroup "first" already holds the nudges of "bundle" from b/);
  });

  it('treats an empty nudgingComponents as every nudger, on either side', () => {
    const one = input({ changeGroups: [view('first', 'bundle', [])] });
    assert.match(denied(decideChangeGroupAdmission(one)), /"first".*from every nudging component/);
    const other = input({ changeGroup: view('cg', 'bundle', []), changeGroups: [view('first', 'bundle', ['z'])] });
    assert.match(denied(decideChangeGroupAdmission(other)), /"first"/);
  });

  it('ignores terminal ChangeGroups, other targets, other namespaces, disjoint nudgers and itself', () => {
    const changeGroups = [
      view('done', 'bundle', ['a'], { phase: 'Completed' }),
      view('failed', 'bundle', [], { phase: 'Failed' }),
      view('cancelled', 'bundle', ['b'], { phase: 'Cancelled' }),
      view('elsewhere', 'other', ['a']),
      { ...view('foreign', 'bundle', ['a']), namespace: 'other-ns' },
      view('disjoint', 'bundle', ['c']),
      view('cg', 'bundle', ['a']),
    ];
    assert.deepEqual(decideChangeGroupAdmission(input({ changeGroups })), { allowed: true });
  });

  it('counts a ChangeGroup in Ready or without status as active', () => {
    for (const phase of [undefined, 'Initialized', 'Waiting', 'Ready'] as const) {
      const other = view('first', 'bundle', ['a'], phase === undefined ? {} : { phase });
      assert.equal(decideChangeGroupAdmission(input({ changeGroups: [other] })).allowed, false, String(phase));
    }
  });

  it('lets a terminal ChangeGroup be updated even though another active one holds the pair', () => {
    const changeGroup = view('cg', 'bundle', ['a'], { phase: 'Completed' });
    const decision = decideChangeGroupAdmission(
      input({ operation: 'UPDATE', changeGroup, changeGroups: [view('new', 'bundle', ['a'])] }),
    );
    assert.equal(decision.allowed, true);
  });
});

describe('nudgersToCheck', () => {
  it('checks every name on create and only added names on update', () => {
    const now = view('cg', 'bundle', ['a', 'b', 'c']);
    assert.deepEqual(nudgersToCheck('CREATE', now, undefined), ['a', 'b', 'c']);
    assert.deepEqual(nudgersToCheck('UPDATE', now, view('cg', 'bundle', ['a', 'c'])), ['b']);
  });
});

describe('changeGroupView', () => {
  it('reads names, phase and timeout, with the request namespace winning', () => {
    const object = {
      metadata: { name: 'cg', namespace: 'ignored' },
      spec: { nudgedComponent: 'bundle', nudgingComponents: [{ name: 'a' }], timeout: '24h' },
      status: { phase: 'Waiting' as const },
    };
    assert.deepEqual(changeGroupView(object, NS), {
      name: 'cg',
      namespace: NS,
      nudgedComponent: 'bundle',
      nudgingComponents: ['a'],
      phase: 'Waiting',
      timeout: '24h',
    });
  });

  it('never sees a ChangeGroup its decoder refuses, which names the field', () => {
    const paths = (object: unknown): string[] => {
      const result = decodeChangeGroup(object);
      return result.ok ? [] : result.problems.map((problem) => problem.path);
    };
    assert.deepEqual(paths({ spec: {} }), ['spec.nudgedComponent']);
    assert.deepEqual(paths({ spec: { nudgedComponent: 'x' }, status: { phase: 'Bogus' } }), ['status.phase']);
    assert.deepEqual(paths({ spec: { nudgedComponent: 'bundle', nudgingComponents: [{ bad: 1 }] } }), [
      'spec.nudgingComponents[0].name',
    ]);
  });
});

describe('hasNudgeEdge', () => {
  const config = { metadata: { name: 'nudge-config', namespace: NS }, spec: { nudges: [{ from: 'a', to: 'bundle' }] } };
  it('finds an edge in the NudgeConfig or in build-nudges-ref, and nowhere else', () => {
    assert.equal(hasNudgeEdge(config, undefined, 'a', 'bundle'), true);
    assert.equal(hasNudgeEdge(undefined, { spec: { 'build-nudges-ref': ['bundle'] } }, 'b', 'bundle'), true);
    assert.equal(hasNudgeEdge(config, { spec: { 'build-nudges-ref': ['other'] } }, 'b', 'bundle'), false);
    assert.equal(hasNudgeEdge(config, undefined, 'bundle', 'a'), false);
  });
});

describe('changeGroupValidator', () => {
  const request = (operation: 'CREATE' | 'UPDATE', object: unknown, oldObject?: unknown): AdmissionRequest => ({
    uid: 'u1',
    kind: { group: 'appstudio.redhat.com', version: 'v1alpha1', kind: 'ChangeGroup' },
    resource: { group: 'appstudio.redhat.com', version: 'v1alpha1', resource: 'changegroups' },
    namespace: NS,
    operation,
    userInfo: {},
    object,
    ...(oldObject === undefined ? {} : { oldObject }),
  });
  const cg = (nudging: string[]) => ({
    metadata: { name: 'cg' },
    spec: { nudgedComponent: 'bundle', nudgingComponents: nudging.map((name) => ({ name })) },
  });

  it('asks the lookups only what it must, and denies with 422 naming the component', async () => {
    const asked: string[][] = [];
    const handler = changeGroupValidator({
      components: { missing: (_ns, names) => Promise.resolve(new Set(names.filter((n) => n === 'ghost'))) },
      edges: {
        withoutEdge: (_ns, _nudged, nudging) => {
          asked.push([...nudging]);
          return Promise.resolve(new Set(nudging.filter((n) => n === 'lonely')));
        },
      },
      changeGroups: { inNamespace: () => [] },
    });
    const signal = new AbortController().signal;
    assert.deepEqual(await handler(request('CREATE', cg(['a'])), signal), { allowed: true });
    const decision = await handler(request('CREATE', cg(['a', 'lonely'])), signal);
    if (decision.allowed) assert.fail('the ChangeGroup was admitted');
    assert.equal(decision.code, 422);
    assert.match(decision.message, /"lonely"/);
    // An update that only removes a component asks about no edge at all.
    assert.deepEqual(await handler(request('UPDATE', cg(['a']), cg(['a', 'lonely'])), signal), { allowed: true });
    assert.deepEqual(asked, [['a'], ['a', 'lonely']]);
    assert.deepEqual(await handler({ ...request('CREATE', cg([])), operation: 'DELETE' }, signal), { allowed: true });
  });
});
