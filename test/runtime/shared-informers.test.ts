// One informer per resource and label selector, shared; a leadership term's set shares the
// replica's and keeps its own apart, so they stop with the term.
import { KubeConfig } from '@kubernetes/client-node';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeHttp } from '../../src/adapters/kubernetes/http.ts';
import { COMPONENTS, PIPELINE_RUNS } from '../../src/adapters/kubernetes/resources.ts';
import { silentLogger } from '../../src/runtime/runtime-log.ts';
import { SharedInformers } from '../../src/runtime/shared-informers.ts';

// Nothing here connects: informers only reach the API server when run.
const replica = () => new SharedInformers({ http: new KubeHttp(new KubeConfig()), logger: silentLogger });

describe('SharedInformers', () => {
  it('gives every caller the same informer for a resource and selector', () => {
    const informers = replica();
    const a = informers.informer(COMPONENTS);
    assert.equal(informers.informer(COMPONENTS), a);
    const nudges = informers.informer(PIPELINE_RUNS, { labelSelector: 'type=nudge' });
    assert.notEqual(informers.informer(PIPELINE_RUNS), nudges, 'another selector is another cache');
    assert.equal(informers.own().length, 3);
  });

  it("lets a term share the replica's informers and keep its own apart", () => {
    const informers = replica();
    const components = informers.informer(COMPONENTS);
    const term = informers.forTerm();
    assert.equal(term.informer(COMPONENTS), components);
    const nudges = term.informer(PIPELINE_RUNS, { labelSelector: 'type=nudge' });
    assert.deepEqual(term.own(), [nudges]);
    assert.deepEqual(informers.own(), [components]);
    assert.notEqual(informers.forTerm().informer(PIPELINE_RUNS, { labelSelector: 'type=nudge' }), nudges);
  });
});
