// Who may see what on the dashboard (docs/decisions.md D14, N46), against a fake reviewer: a token
// is reviewed once per ~30 s, a cluster reader is asked one cluster-wide question, a tenant one
// question per namespace (a few at a time), an API server that cannot answer is `unavailable` and
// never remembered; the sandbox's token is compared exactly; sessions are bounded and expire.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubernetesDashboardAuthorizer, SessionStore, TokenDashboardAuthorizer } from '../../src/dashboard/auth.ts';
import {
  ReviewUnavailableError,
  type AccessAttributes,
  type AccessReviewer,
  type ReviewedUser,
} from '../../src/runtime/access-review.ts';
import { ManualClock } from '../../src/runtime/clock.ts';

/** Tokens: `admin` lists ChangeGroups everywhere; `tenant` in team-a and team-c only. */
class FakeReviewer implements AccessReviewer {
  readonly asked: string[] = [];
  down = false;
  inFlight = 0;
  mostInFlight = 0;

  async user(token: string): Promise<ReviewedUser | undefined> {
    this.asked.push(`user ${token}`);
    if (this.down) throw new ReviewUnavailableError('TokenReview', new Error('503'));
    await Promise.resolve();
    return token === 'admin' || token === 'tenant' ? { username: token, groups: [] } : undefined;
  }

  async allowed(user: ReviewedUser, attributes: AccessAttributes): Promise<boolean> {
    assert.ok('resource' in attributes);
    const { verb, group, resource, namespace = '*' } = attributes.resource;
    this.asked.push(`${user.username} ${verb} ${resource}.${group} ${namespace}`);
    if (this.down) throw new ReviewUnavailableError('SubjectAccessReview', new Error('503'));
    this.inFlight++;
    this.mostInFlight = Math.max(this.mostInFlight, this.inFlight);
    await new Promise((resolve) => setImmediate(resolve));
    this.inFlight--;
    if (verb !== 'list') return false;
    if (user.username === 'admin') return true;
    return resource === 'changegroups' && (namespace === 'team-a' || namespace === 'team-c');
  }
}

describe('KubernetesDashboardAuthorizer', () => {
  it('allows a namespace the identity may list ChangeGroups in, forbids another, refuses an unknown token', async () => {
    const reviewer = new FakeReviewer();
    const auth = new KubernetesDashboardAuthorizer({ reviewer });
    assert.equal(await auth.namespace('tenant', 'changegroups', 'team-a'), 'allowed');
    assert.equal(await auth.namespace('tenant', 'changegroups', 'team-b'), 'forbidden');
    assert.equal(await auth.namespace('tenant', 'cfapps', 'team-a'), 'forbidden');
    assert.equal(await auth.namespace('stranger', 'changegroups', 'team-a'), 'unauthenticated');
    assert.equal(await auth.login('tenant'), 'allowed');
    assert.equal(await auth.login('stranger'), 'unauthenticated');
    assert.ok(reviewer.asked.includes('tenant list changegroups.appstudio.redhat.com team-a'));
    assert.ok(reviewer.asked.includes('tenant list cfapps.korifi.cloudfoundry.org team-a'));
  });

  it('answers again from its cache until the decision expires', async () => {
    const reviewer = new FakeReviewer();
    const clock = new ManualClock();
    const auth = new KubernetesDashboardAuthorizer({ reviewer, clock, ttlMs: 30_000 });
    await auth.namespace('tenant', 'changegroups', 'team-a');
    const asked = reviewer.asked.length;
    assert.equal(await auth.namespace('tenant', 'changegroups', 'team-a'), 'allowed');
    assert.equal(reviewer.asked.length, asked);
    clock.advance(30_001);
    assert.equal(await auth.namespace('tenant', 'changegroups', 'team-a'), 'allowed');
    assert.equal(reviewer.asked.length, asked * 2);
  });

  it('lists all namespaces for a cluster reader after one cluster-wide question', async () => {
    const reviewer = new FakeReviewer();
    const auth = new KubernetesDashboardAuthorizer({ reviewer });
    const namespaces = ['team-a', 'team-b', 'team-c'];
    assert.deepEqual(await auth.visible('admin', 'changegroups', namespaces), { access: 'allowed', namespaces });
    assert.deepEqual(reviewer.asked, ['user admin', 'admin list changegroups.appstudio.redhat.com *']);
  });

  it('filters namespaces for a tenant, a bounded number of questions at a time', async () => {
    const reviewer = new FakeReviewer();
    const auth = new KubernetesDashboardAuthorizer({ reviewer, concurrency: 3 });
    const namespaces = Array.from({ length: 20 }, (_, i) => `ns-${String(i)}`).concat(['team-a', 'team-c']);
    assert.deepEqual(await auth.visible('tenant', 'changegroups', namespaces), {
      access: 'allowed',
      namespaces: ['team-a', 'team-c'],
    });
    assert.equal(reviewer.mostInFlight, 3);
    assert.deepEqual(await auth.visible('stranger', 'changegroups', namespaces), { access: 'unauthenticated' });
  });

  it('is unavailable, and remembers nothing, while the API server cannot answer', async () => {
    const reviewer = new FakeReviewer();
    const auth = new KubernetesDashboardAuthorizer({ reviewer });
    reviewer.down = true;
    assert.equal(await auth.namespace('tenant', 'changegroups', 'team-a'), 'unavailable');
    assert.equal(await auth.login('tenant'), 'unavailable');
    assert.deepEqual(await auth.visible('tenant', 'changegroups', ['team-a']), { access: 'unavailable' });
    reviewer.down = false;
    assert.equal(await auth.namespace('tenant', 'changegroups', 'team-a'), 'allowed');
  });
});

describe('TokenDashboardAuthorizer', () => {
  it('allows the one token everywhere and nothing else', async () => {
    const auth = new TokenDashboardAuthorizer('s3cret-token');
    assert.equal(await auth.login('s3cret-token'), 'allowed');
    assert.equal(await auth.namespace('s3cret-token'), 'allowed');
    assert.deepEqual(await auth.visible('s3cret-token', 'cfapps', ['a']), { access: 'allowed', namespaces: ['a'] });
    for (const wrong of ['s3cret-toke', 's3cret-token2', '', 'S3CRET-TOKEN']) {
      assert.equal(await auth.login(wrong), 'unauthenticated', wrong);
    }
    assert.throws(() => new TokenDashboardAuthorizer(''), TypeError);
  });
});

describe('SessionStore', () => {
  it('maps random ids to tokens, forgets expired sessions and holds at most maxSessions', () => {
    const clock = new ManualClock();
    const sessions = new SessionStore({ clock, ttlMs: 1_000, maxSessions: 2 });
    const first = sessions.create('t1');
    const second = sessions.create('t2');
    assert.notEqual(first, second);
    assert.ok(!first.includes('t1'));
    assert.equal(sessions.token(first), 't1');
    const third = sessions.create('t3');
    assert.equal(sessions.size, 2);
    assert.equal(sessions.token(first), undefined, 'the oldest session left first');
    assert.equal(sessions.token(third), 't3');
    clock.advance(1_001);
    assert.equal(sessions.token(second), undefined);
    assert.equal(sessions.token('made-up'), undefined);
  });
});
