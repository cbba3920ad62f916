// One informer per resource and label selector, shared; a leadership term's set shares the
// replica's and keeps its own apart, so they stop with the term.
import { KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeHttp } from '../../src/adapters/kubernetes/http.ts';
import { COMPONENTS_KIND, PIPELINE_RUNS_KIND, RELEASE_PLAN_ADMISSIONS_KIND } from '../../src/cluster/watched-kinds.ts';
import { silentLogger } from '../../src/runtime/runtime-log.ts';
import { SharedInformers } from '../../src/runtime/shared-informers.ts';

// Nothing here connects: informers only reach the API server when run.
const replica = () => new SharedInformers({ http: new KubeHttp(new KubeConfig()), logger: silentLogger });

describe('SharedInformers', () => {
  it('gives every caller the same informer for a resource and selector', () => {
    const informers = replica();
    const a = informers.informer(COMPONENTS_KIND);
    assert.equal(informers.informer(COMPONENTS_KIND), a);
    const nudges = informers.informer(PIPELINE_RUNS_KIND, { labelSelector: 'type=nudge' });
    assert.notEqual(informers.informer(PIPELINE_RUNS_KIND), nudges, 'another selector is another cache');
    assert.equal(informers.own().length, 3);
  });

  it('keeps a field-selected informer apart from the label-selected and unselected ones', () => {
    const informers = replica();
    const named = informers.informer(PIPELINE_RUNS_KIND, { fieldSelector: 'metadata.name=type=nudge' });
    assert.equal(informers.informer(PIPELINE_RUNS_KIND, { fieldSelector: 'metadata.name=type=nudge' }), named);
    assert.notEqual(informers.informer(PIPELINE_RUNS_KIND, { labelSelector: 'metadata.name=type=nudge' }), named);
    assert.notEqual(informers.informer(PIPELINE_RUNS_KIND), named);
    assert.equal(informers.own().length, 3);
  });

  it("lets a term share the replica's informers and keep its own apart", () => {
    const informers = replica();
    const components = informers.informer(COMPONENTS_KIND);
    const term = informers.forTerm();
    assert.equal(term.informer(COMPONENTS_KIND), components);
    const nudges = term.informer(PIPELINE_RUNS_KIND, { labelSelector: 'type=nudge' });
    assert.deepEqual(term.own(), [nudges]);
    assert.deepEqual(informers.own(), [components]);
    assert.notEqual(informers.forTerm().informer(PIPELINE_RUNS_KIND, { labelSelector: 'type=nudge' }), nudges);
  });

  it('refuses to hand one cache out as two types: a second kind descriptor for a resource is a programming error', () => {
    const informers = replica();
    informers.informer(COMPONENTS_KIND);
    const impostor = { ...COMPONENTS_KIND };
    assert.throws(() => informers.informer(impostor), /asked for with two kind descriptors/);
    assert.throws(() => informers.forTerm().informer(impostor), /two kind descriptors/);
  });

  it('leaves an informer its caller runs out of run(), and refuses to have it both ways', async () => {
    const informers = replica();
    const rpas = informers.informer(RELEASE_PLAN_ADMISSIONS_KIND, { runByCaller: true });
    assert.equal(informers.informer(RELEASE_PLAN_ADMISSIONS_KIND, { runByCaller: true }), rpas);
    assert.throws(() => informers.informer(RELEASE_PLAN_ADMISSIONS_KIND), /run by its caller/);
    const components = informers.informer(COMPONENTS_KIND);
    const started: string[] = [];
    for (const informer of [rpas, components]) {
      informer.run = () => {
        started.push(informer.resource);
        return Promise.resolve();
      };
    }
    await informers.run(new AbortController().signal);
    assert.deepEqual(started, [components.resource]);
  });
});
