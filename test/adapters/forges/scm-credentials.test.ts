// Choosing a tenant's SCM Secret for a repository (the Konflux convention): ranking, host
// matching, and that neither the reason nor the Credentials ever show a secret value.
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  chooseScmSecret,
  repositoryMatch,
  scmSecretSelector,
  SCM_HOST_LABEL,
  SCM_REPOSITORY_ANNOTATION,
  type SecretObject,
} from '../../../src/adapters/forges/scm-credentials.ts';

const HOST = 'github.com';
const REPO = 'acme/bundle';
const b64 = (text: string): string => Buffer.from(text, 'utf8').toString('base64');

function secret(
  name: string,
  options: { host?: string; repos?: string; data?: Record<string, string> } = {},
): SecretObject {
  return {
    metadata: {
      name,
      labels: { 'appstudio.redhat.com/credentials': 'scm', [SCM_HOST_LABEL]: options.host ?? HOST },
      ...(options.repos === undefined ? {} : { annotations: { [SCM_REPOSITORY_ANNOTATION]: options.repos } }),
    },
    type: 'kubernetes.io/basic-auth',
    data: options.data ?? { password: b64(`token-of-${name}`) },
  };
}

function chosen(secrets: readonly SecretObject[], repository = REPO): string {
  const choice = chooseScmSecret(secrets, HOST, repository);
  assert.ok(choice.ok, choice.ok ? '' : choice.reason);
  return choice.secret;
}

describe('scmSecretSelector', () => {
  it('selects the SCM credentials label and the host label', () => {
    assert.equal(
      scmSecretSelector('ghe.example.com'),
      'appstudio.redhat.com/credentials=scm,appstudio.redhat.com/scm.host=ghe.example.com',
    );
  });
});

describe('repositoryMatch', () => {
  it('ranks exact 3, owner/* 2, unannotated 1, other repositories 0', () => {
    assert.equal(repositoryMatch('acme/bundle', REPO), 3);
    assert.equal(repositoryMatch('acme/*', REPO), 2);
    assert.equal(repositoryMatch(undefined, REPO), 1);
    assert.equal(repositoryMatch('   ', REPO), 1);
    assert.equal(repositoryMatch('acme/other', REPO), 0);
    assert.equal(repositoryMatch('other/*', REPO), 0);
    assert.equal(repositoryMatch('acme/bundle-operator', REPO), 0);
  });

  it('reads comma-separated lists, slashes and .git suffixes', () => {
    assert.equal(repositoryMatch('acme/other, /acme/bundle.git/', REPO), 3);
    assert.equal(repositoryMatch('other/x,acme/*', REPO), 2);
    assert.equal(repositoryMatch('acme/*,acme/bundle', REPO), 3);
  });

  it('does not let owner/* of a prefix owner match', () => {
    assert.equal(repositoryMatch('acm/*', REPO), 0);
  });
});

describe('chooseScmSecret', () => {
  it('prefers an exact repository over owner/* over an unannotated Secret', () => {
    const exact = secret('z-exact', { repos: 'acme/bundle' });
    const owner = secret('a-owner', { repos: 'acme/*' });
    const wide = secret('a-wide');
    assert.equal(chosen([wide, owner, exact]), 'z-exact');
    assert.equal(chosen([exact, wide, owner]), 'z-exact');
    assert.equal(chosen([wide, owner]), 'a-owner');
    assert.equal(chosen([owner, wide]), 'a-owner');
    assert.equal(chosen([wide]), 'a-wide');
  });

  it('chooses the same Secret in any listing order (ties broken by name)', () => {
    const secrets = [
      secret('b-wide'),
      secret('a-wide'),
      secret('c-owner', { repos: 'acme/*' }),
      secret('d-other', { repos: 'acme/other' }),
    ];
    fc.assert(
      fc.property(fc.shuffledSubarray(secrets, { minLength: secrets.length }), (order) => {
        assert.equal(chosen(order), 'c-owner');
      }),
    );
    assert.equal(chosen([secret('b-wide'), secret('a-wide')]), 'a-wide');
  });

  it('excludes Secrets annotated for other repositories even when nothing else is left', () => {
    const choice = chooseScmSecret([secret('other', { repos: 'acme/other' })], HOST, REPO);
    assert.equal(choice.ok, false);
    assert.ok(!choice.ok);
    assert.match(choice.reason, /acme\/bundle/);
    assert.match(choice.reason, /appstudio\.redhat\.com\/scm\.host=github\.com/);
  });

  it('excludes Secrets labelled for another host', () => {
    const elsewhere = secret('ghe', { host: 'ghe.example.com', repos: 'acme/bundle' });
    assert.equal(chooseScmSecret([elsewhere], HOST, REPO).ok, false);
    assert.equal(chosen([elsewhere, secret('wide')]), 'wide');
    const unlabelled: SecretObject = { metadata: { name: 'nolabel' }, data: { password: b64('x') } };
    assert.equal(chooseScmSecret([unlabelled], HOST, REPO).ok, false);
  });

  it('names the Secret but no value when the chosen one has no token', () => {
    const values = ['hunter2-user', 'not-the-token', 'ssh-private-key-material'];
    const broken = secret('broken', {
      repos: 'acme/bundle',
      data: { username: b64(values[0] ?? ''), note: b64(values[1] ?? ''), 'ssh-privatekey': b64(values[2] ?? '') },
    });
    const choice = chooseScmSecret([broken, secret('wide')], HOST, REPO);
    assert.ok(!choice.ok, 'the best match is used or reported, never silently skipped');
    assert.match(choice.reason, /Secret broken/);
    assert.match(choice.reason, /password/);
    assert.match(choice.reason, /token/);
    for (const value of [...values, ...values.map(b64)]) assert.ok(!choice.reason.includes(value), value);
  });

  it('treats an empty or whitespace-only password as missing', () => {
    const blank = secret('blank', { data: { password: b64('  \n'), token: '' } });
    const choice = chooseScmSecret([blank], HOST, REPO);
    assert.ok(!choice.ok);
    assert.match(choice.reason, /Secret blank/);
  });

  it('reads password, else token, and defaults the username', () => {
    const withPassword = chooseScmSecret(
      [secret('p', { data: { password: b64('pw\n'), token: b64('tk') } })],
      HOST,
      REPO,
    );
    assert.ok(withPassword.ok);
    assert.equal(withPassword.credentials.revealToken(), 'pw');
    assert.equal(withPassword.credentials.username, 'x-access-token');

    const withToken = chooseScmSecret(
      [secret('t', { data: { token: b64('tk'), username: b64('oauth2') } })],
      HOST,
      REPO,
    );
    assert.ok(withToken.ok);
    assert.equal(withToken.secret, 't');
    assert.equal(withToken.credentials.revealToken(), 'tk');
    assert.equal(withToken.credentials.username, 'oauth2');
  });

  it('never shows the token through String, template strings, JSON or inspect', () => {
    const token = 'ghp_SuperSecretTokenValue1234567890';
    const choice = chooseScmSecret([secret('s', { data: { password: b64(token) } })], HOST, REPO);
    assert.ok(choice.ok);
    const renderings = [
      String(choice.credentials),
      [choice.credentials].join(''),
      JSON.stringify(choice.credentials),
      JSON.stringify(choice),
      inspect(choice.credentials),
      inspect(choice, { depth: 10, showHidden: true }),
    ];
    for (const text of renderings) {
      assert.ok(!text.includes(token), text);
      assert.ok(!text.includes(b64(token)), text);
    }
    assert.equal(choice.credentials.revealToken(), token);
  });
});
