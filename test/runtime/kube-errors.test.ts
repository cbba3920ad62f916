import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { resourcePath } from '../../src/adapters/kubernetes/client.ts';
import {
  errorFromResponse,
  isAlreadyExists,
  isConflict,
  isGone,
  isNotFound,
  KubeApiError,
  toKubeApiError,
} from '../../src/adapters/kubernetes/errors.ts';
import { COMPONENTS, CONFIG_MAPS, NAMESPACES } from '../../src/adapters/kubernetes/resources.ts';
import { stripForCache } from '../../src/runtime/store.ts';

const target = { verb: 'get', resource: 'components.appstudio.redhat.com', namespace: 'team', name: 'api' };

describe('KubeApiError', () => {
  it('names the verb, object, status and server message on one line', () => {
    const error = errorFromResponse(target, 404, {
      kind: 'Status',
      reason: 'NotFound',
      message: 'components.appstudio.redhat.com "api" not found',
    });
    assert.equal(
      error.message,
      'get components.appstudio.redhat.com team/api: 404 NotFound: components.appstudio.redhat.com "api" not found',
    );
    assert.equal(isNotFound(error), true);
    assert.equal(isConflict(error), false);
  });

  it('tells conflicts from AlreadyExists and recognises 410 Gone', () => {
    assert.equal(isConflict(errorFromResponse(target, 409, { kind: 'Status', reason: 'Conflict' })), true);
    const exists = errorFromResponse(target, 409, { kind: 'Status', reason: 'AlreadyExists' });
    assert.equal(isAlreadyExists(exists), true);
    assert.equal(isConflict(exists), false);
    assert.equal(isGone(errorFromResponse(target, 410, undefined)), true);
  });

  it('maps client-node ApiException-shaped errors without copying headers', () => {
    const apiException = Object.assign(new Error('HTTP-Code: 409'), {
      code: 409,
      body: JSON.stringify({ kind: 'Status', reason: 'Conflict', message: 'the object has been modified' }),
      headers: { authorization: 'Bearer secret-token' },
    });
    const error = toKubeApiError(target, apiException);
    assert.ok(error instanceof KubeApiError);
    assert.equal(error.statusCode, 409);
    assert.doesNotMatch(JSON.stringify(Object.entries(error)) + error.message, /secret-token/);
    const transport = toKubeApiError(
      target,
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:6443'), { code: 'ECONNREFUSED' }),
    );
    assert.equal(transport.statusCode, 0);
    assert.equal(transport.reason, 'ECONNREFUSED');
  });
});

describe('resourcePath', () => {
  it('builds core, group, cluster-scoped and subresource paths', () => {
    assert.equal(resourcePath(CONFIG_MAPS, 'ns', 'x'), '/api/v1/namespaces/ns/configmaps/x');
    assert.equal(resourcePath(CONFIG_MAPS), '/api/v1/configmaps');
    assert.equal(
      resourcePath(COMPONENTS, 'ns', 'c', 'status'),
      '/apis/appstudio.redhat.com/v1alpha1/namespaces/ns/components/c/status',
    );
    assert.equal(resourcePath(NAMESPACES, '', 'team'), '/api/v1/namespaces/team');
  });
});

describe('stripForCache', () => {
  it('drops managedFields and last-applied without touching the input', () => {
    const input = {
      metadata: {
        name: 'a',
        managedFields: [{ manager: 'x' }],
        annotations: { 'kubectl.kubernetes.io/last-applied-configuration': '{}', other: '1' },
      },
    };
    const stripped = stripForCache(input);
    assert.deepEqual(stripped, { metadata: { name: 'a', annotations: { other: '1' } } });
    assert.equal(input.metadata.managedFields.length, 1);
  });
});
