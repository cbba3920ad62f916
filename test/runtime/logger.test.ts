import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { REDACTED, SECRET_KEY, createLogger, redactSecrets, ref } from '../../src/runtime/logger.ts';

function capture(level = 'info') {
  const lines: string[] = [];
  const logger = createLogger({
    level,
    destination: {
      write(line: string) {
        lines.push(line);
      },
    },
  });
  return { lines, logger };
}

describe('createLogger', () => {
  it('writes one JSON line per entry with an ISO time and a level label', () => {
    const { lines, logger } = capture();
    logger.info({ webhook: '/validate' }, 'hello');
    logger.debug('hidden at info');
    assert.equal(lines.length, 1);
    const entry = JSON.parse(lines[0]!) as Record<string, unknown>;
    assert.equal(entry.level, 'info');
    assert.equal(entry.msg, 'hello');
    assert.equal(entry.webhook, '/validate');
    assert.match(String(entry.time), /^\d{4}-\d\d-\d\dT/);
  });

  it('masks secret-named keys at any depth, in fields, child bindings and errors', () => {
    const { lines, logger } = capture();
    const error = Object.assign(new Error('request failed'), {
      response: { headers: { Authorization: 'Bearer abc.def', 'set-cookie': ['s=1'] }, status: 401 },
    });
    logger.child({ bearerToken: 'child-secret' }).error(
      {
        err: error,
        config: { clusters: [{ user: { token: 'tok-1', 'client-private-key': 'pk', private_key: 'pk2', name: 'u' } }] },
        deep: { a: { b: { c: { d: { password: 'p4ss', keep: 'visible' } } } } },
        secretRef: { name: 'over-masked-but-harmless' },
      },
      'boom',
    );
    const text = lines.join('');
    for (const secret of ['child-secret', 'abc.def', 's=1', 'tok-1', '"pk"', 'pk2', 'p4ss']) {
      assert.ok(!text.includes(secret), `${secret} leaked: ${text}`);
    }
    const entry = JSON.parse(lines[0]!) as {
      err: {
        type: string;
        message: string;
        stack: string;
        response: { status: number; headers: Record<string, unknown> };
      };
      deep: { a: { b: { c: { d: Record<string, unknown> } } } };
      bearerToken: string;
    };
    assert.equal(entry.err.type, 'Error');
    assert.equal(entry.err.message, 'request failed');
    assert.match(entry.err.stack, /request failed/);
    assert.equal(entry.err.response.status, 401);
    assert.equal(entry.err.response.headers.Authorization, REDACTED);
    assert.deepEqual(entry.deep.a.b.c.d, { password: REDACTED, keep: 'visible' });
    assert.equal(entry.bearerToken, REDACTED);
  });

  it("masks credentials an error's text quotes, by shape", () => {
    const { lines, logger } = capture();
    const error = new Error('clone of https://x-access-token:ghs_0123456789abcdefghij@github.com/a/b failed');
    logger.error({ err: error }, 'failed');
    const entry = JSON.parse(lines[0]!) as { err: { message: string; stack: string } };
    assert.equal(entry.err.message, 'clone of https://***@github.com/a/b failed');
    assert.ok(!lines[0]!.includes('ghs_0123456789abcdefghij'), lines[0]);
  });

  it('masks bindings of grandchildren too', () => {
    const { lines, logger } = capture();
    logger
      .child({ controller: 'nudgeconfig' })
      .child({ auth: { password: 'grand-secret' } })
      .info('x');
    assert.ok(!lines[0]!.includes('grand-secret'));
    assert.match(lines[0]!, /"controller":"nudgeconfig"/);
  });

  it('survives cycles and keeps __proto__ keys as plain fields', () => {
    const cyclic: Record<string, unknown> = { name: 'a' };
    cyclic.self = cyclic;
    const parsed = JSON.parse('{"__proto__":{"token":"t"},"x":1}') as unknown;
    const { lines, logger } = capture();
    logger.info({ cyclic, parsed }, 'ok');
    const entry = JSON.parse(lines[0]!) as { cyclic: { self: unknown }; parsed: Record<string, unknown> };
    assert.equal(entry.cyclic.self, '[Circular]');
    assert.ok(!lines[0]!.includes('"t"'));
    assert.equal(({} as Record<string, unknown>).token, undefined);
  });
});

describe('redactSecrets', () => {
  it('never lets a value under a secret-named key through', () => {
    const secretKey = fc.constantFrom(
      'token',
      'Password',
      'clientSecret',
      'authorization',
      'Cookie',
      'private-key',
      'privateKey',
    );
    const tree = fc.letrec<{ node: unknown }>((tie) => ({
      node: fc.oneof(
        { depthSize: 'small' },
        fc.string(),
        fc.integer(),
        fc.array(tie('node'), { maxLength: 3 }),
        fc.dictionary(fc.oneof(fc.string(), secretKey), tie('node'), { maxKeys: 4 }),
      ),
    }));
    fc.assert(
      fc.property(tree.node, (value) => {
        const masked = redactSecrets(value);
        const walk = (node: unknown): void => {
          if (Array.isArray(node)) node.forEach(walk);
          else if (typeof node === 'object' && node !== null) {
            for (const [key, field] of Object.entries(node)) {
              if (SECRET_KEY.test(key)) assert.equal(field, REDACTED);
              else walk(field);
            }
          }
        };
        walk(masked);
      }),
      { numRuns: 300 },
    );
  });
});

describe('ref', () => {
  it('names an object by kind, namespace and name only', () => {
    assert.deepEqual(
      ref({ kind: 'Secret', metadata: { namespace: 'ns', name: 'creds', labels: { a: 'b' } }, data: { token: 'x' } }),
      { kind: 'Secret', namespace: 'ns', name: 'creds' },
    );
    assert.deepEqual(ref({ metadata: { name: 'cluster-scoped' } }), { name: 'cluster-scoped' });
    assert.deepEqual(ref(null), {});
    assert.deepEqual(ref('text'), {});
  });
});
