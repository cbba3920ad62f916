// D6: the names a component is released under, read from ReleasePlanAdmissions as build-service
// reads them (konflux-distribution-repos.md §1-2), with the improvements nudger makes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  distributionRepositories,
  registryRedHatIoName,
} from '../../../src/domain/digest-rewrite/distribution-repositories.ts';

const TENANT = 'netobserv-tenant';

/** A ReleasePlanAdmission in a managed namespace, in the shape release-service stores. */
function rpa(name: string, spec: Record<string, unknown>): Record<string, unknown> {
  return {
    apiVersion: 'appstudio.redhat.com/v1alpha1',
    kind: 'ReleasePlanAdmission',
    metadata: { name, namespace: 'rhtap-releng-tenant' },
    spec: { applications: ['netobserv-1-9'], policy: 'registry-standard', pipeline: {}, ...spec },
  };
}

const prod = rpa('netobserv-prod', {
  origin: TENANT,
  data: {
    mapping: {
      defaults: { tags: ['{{ git_sha }}'] },
      components: [
        {
          name: 'netobserv-operator',
          repositories: [
            {
              url: 'quay.io/redhat-prod/network-observability----network-observability-rhel9-operator',
              tags: ['v1.9'],
            },
          ],
        },
        {
          name: 'netobserv-agent',
          repositories: [{ url: 'quay.io/redhat-prod/network-observability----netobserv-agent-rhel9' }],
        },
      ],
    },
  },
});

describe('registryRedHatIoName', () => {
  it("maps build-service's two patterns, prod first, splitting at the last ----", () => {
    assert.equal(
      registryRedHatIoName('quay.io/redhat-prod/multiarch-tuning----multiarch-tuning-rhel9-operator'),
      'registry.redhat.io/multiarch-tuning/multiarch-tuning-rhel9-operator',
    );
    assert.equal(registryRedHatIoName('quay.io/redhat-pending/a----b'), 'registry.stage.redhat.io/a/b');
    assert.equal(registryRedHatIoName('quay.io/redhat-prod/a/b----c----d'), 'registry.redhat.io/a/b----c/d');
    assert.equal(registryRedHatIoName('quay.io/redhat-user-workloads/t/c'), undefined);
    assert.equal(registryRedHatIoName('quay.io/redhat-prod/no-separator'), undefined);
  });
});

describe('distributionRepositories', () => {
  it('gives the RPA URL and its registry.redhat.io name for the nudging component only', () => {
    assert.deepEqual(distributionRepositories([prod], TENANT, 'netobserv-operator'), {
      repositories: [
        'quay.io/redhat-prod/network-observability----network-observability-rhel9-operator',
        'registry.redhat.io/network-observability/network-observability-rhel9-operator',
      ],
      ignored: [],
    });
    assert.deepEqual(distributionRepositories([prod], TENANT, 'netobserv-ebpf').repositories, []);
    assert.deepEqual(
      distributionRepositories([prod], TENANT, 'netobserv').repositories,
      [],
      'names match exactly, not by prefix',
    );
  });

  it('reads only RPAs released from the build namespace, with spec.data set', () => {
    const elsewhere = rpa('other-tenant', { origin: 'other-tenant', data: prod.spec });
    const noData = rpa('no-data', { origin: TENANT });
    const copy = structuredClone(prod) as { spec: Record<string, unknown> };
    assert.deepEqual(distributionRepositories([elsewhere, noData], TENANT, 'netobserv-operator').repositories, []);
    assert.equal(distributionRepositories([copy], 'other-tenant', 'netobserv-operator').repositories.length, 0);
  });

  it('matches keys under spec.data case-insensitively, as encoding/json does', () => {
    const shouting = rpa('shouting', {
      origin: TENANT,
      data: {
        Mapping: {
          COMPONENTS: [{ Name: 'netobserv-operator', Repositories: [{ URL: 'quay.io/redhat-pending/no----op' }] }],
        },
      },
    });
    assert.deepEqual(distributionRepositories([shouting], TENANT, 'netobserv-operator').repositories, [
      'quay.io/redhat-pending/no----op',
      'registry.stage.redhat.io/no/op',
    ]);
  });

  it('skips malformed entries without dropping the RPA, and reports URLs that are not repositories', () => {
    const messy = rpa('messy', {
      origin: TENANT,
      data: {
        mapping: {
          components: [
            'not-an-object',
            { name: 42, repositories: [{ url: 'quay.io/ignored/x' }] },
            { name: 'netobserv-operator', repositories: 'not-a-list' },
            {
              name: 'netobserv-operator',
              repositories: [null, { url: 7 }, { url: '' }, { url: 'Not A Repo!' }, { url: 'quay.io/acme/kept' }],
            },
          ],
        },
      },
    });
    assert.deepEqual(distributionRepositories([messy], TENANT, 'netobserv-operator'), {
      repositories: ['quay.io/acme/kept'],
      ignored: [{ releasePlanAdmission: 'rhtap-releng-tenant/messy', url: 'Not A Repo!' }],
    });
  });

  it('strips a tag or digest from an RPA URL and de-duplicates across RPAs', () => {
    const tagged = rpa('tagged', {
      origin: TENANT,
      data: {
        mapping: {
          components: [
            {
              name: 'netobserv-operator',
              repositories: [
                { url: 'quay.io/redhat-prod/network-observability----network-observability-rhel9-operator:v1.9' },
                {
                  url: `quay.io/redhat-prod/network-observability----network-observability-rhel9-operator@sha256:${'a'.repeat(64)}`,
                },
              ],
            },
          ],
        },
      },
    });
    assert.deepEqual(distributionRepositories([prod, tagged], TENANT, 'netobserv-operator').repositories, [
      'quay.io/redhat-prod/network-observability----network-observability-rhel9-operator',
      'registry.redhat.io/network-observability/network-observability-rhel9-operator',
    ]);
  });
});
