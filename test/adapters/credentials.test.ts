import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { describe, it } from 'node:test';
import { Credentials } from '../../src/adapters/credentials/credentials.ts';
import { ForgeError } from '../../src/adapters/forges/errors.ts';

const TOKEN = 'glpat-VerySecret-0123456789';

describe('Credentials', () => {
  const credentials = new Credentials({ token: TOKEN });

  it('gives the token out only through revealToken()', () => {
    assert.equal(credentials.revealToken(), TOKEN);
    assert.equal(credentials.username, 'x-access-token');
  });

  it('never shows the token when turned into text', () => {
    const renderings = [
      String(credentials),
      // eslint-disable-next-line @typescript-eslint/restrict-template-expressions -- the accident under test
      `${credentials}`,
      credentials.toString(),
      JSON.stringify(credentials),
      JSON.stringify({ nested: { credentials } }),
      inspect(credentials),
      inspect({ deep: { deeper: { credentials } } }, { depth: 10, showHidden: true }),
      inspect([credentials], { getters: true }),
      new Error(`cannot push with ${String(credentials)}`).message,
      new ForgeError({
        forge: 'github',
        operation: 'createPullRequest',
        repo: 'o/r',
        status: 401,
        reason: credentials.redact(`bad token ${TOKEN}`),
      }).message,
      Object.keys(credentials).join(','),
      // eslint-disable-next-line @typescript-eslint/no-misused-spread -- copying fields is the accident under test
      JSON.stringify(structuredClone({ ...credentials })),
    ];
    for (const text of renderings) assert.ok(!text.includes(TOKEN), text);
    assert.equal(String(credentials), 'Credentials(x-access-token:[redacted])');
    assert.deepEqual(JSON.parse(JSON.stringify(credentials)), { username: 'x-access-token', token: '[redacted]' });
  });

  it('redacts the token and its Basic encoding from text', () => {
    const basic = Buffer.from(`oauth2:${TOKEN}`).toString('base64');
    const gitlab = new Credentials({ token: TOKEN, username: 'oauth2' });
    assert.equal(gitlab.redact(`a ${TOKEN} b Basic ${basic} c`), 'a [redacted] b Basic [redacted] c');
  });

  it('refuses an empty token', () => {
    assert.throws(() => new Credentials({ token: '' }), TypeError);
  });
});
