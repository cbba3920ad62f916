// The ChangeGroup controller against the GitHub contract, on a real kube-apiserver: the manager's
// own forge resolution (host → GitHub, token from the tenant's SCM Secret) drives a local GitHub
// emulator that validates every request against GitHub's OpenAPI description and serves the
// repository over real git smart HTTP with token auth. Three held nudges give one draft PR that
// becomes ready with one final commit; the token appears in no log line, Event or status.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CHANGE_GROUPS, COMPONENTS, CORE_EVENTS, SECRETS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { localGitRun } from '../../src/adapters/git/plumbing.ts';
import { parseDescription } from '../../src/domain/pr-description/index.ts';
import { startGitHubEmulator, type GitHubEmulator } from '../../src/sandbox/forges/github-emulator/emulator.ts';
import { sandboxComponent } from '../sandbox/local-forge-fixtures.ts';
import { scmSecret, startChangeGroupTenant, type ChangeGroupTenant } from './changegroup-tenant.ts';

const NS = 'gh-tenant';
const TOKEN = 'ghp_sEcReTtOkEnThatMustNeverLeak0123456789';
const OPERANDS = ['operand-a', 'operand-b', 'operand-c'];
const OLD = (c: string): string => `sha256:${c.repeat(64)}`;
const CSV = OPERANDS.map((o, i) => `- image: quay.io/acme/${o}@${OLD(String(i + 1))}\n`).join('');

let tenant: ChangeGroupTenant;
let github: GitHubEmulator;

before(async () => {
  github = await startGitHubEmulator({ token: TOKEN });
  const host = new URL(github.gitBaseUrl).host;
  tenant = await startChangeGroupTenant([NS], {
    forgeHosts: new Map([[host, { kind: 'github', apiUrl: github.apiUrl, gitBaseUrl: github.gitBaseUrl }]]),
    pollIntervalMs: 300,
  });
  const { client } = tenant;
  await client.create(SECRETS, scmSecret(NS, '127.0.0.1', TOKEN, 'x-access-token'));
  await github.createRepository('acme', 'bundle', { 'manifests/csv.yaml': CSV, Dockerfile: 'FROM scratch\n' });
  for (const name of [...OPERANDS, 'bundle']) {
    await client.create(COMPONENTS, sandboxComponent(NS, name, `${github.gitBaseUrl}/acme/${name}.git`));
  }
  await tenant.admitNudgeConfig(OPERANDS, 'bundle');
});

after(async () => {
  await tenant.stop();
  await github.close();
});

describe('ChangeGroup controller with the GitHub provider', () => {
  it('collects three held nudges into one draft PR that turns ready with one final commit', async () => {
    const { manager } = tenant;
    await tenant.createChangeGroupFromGraph('bundle-update', 'bundle', OPERANDS);
    const digests = await tenant.collectHeldBuilds('bundle-update', OPERANDS, (index) => {
      const [pr] = github.pullRequests('acme', 'bundle');
      assert.ok(pr, 'a PR exists after the first component');
      assert.equal(pr.draft, index < OPERANDS.length - 1, 'draft until the last component');
    });
    const status = await tenant.changeGroupStatus('bundle-update');
    assert.equal(status?.phase, 'Ready');
    assert.equal(github.pullRequests('acme', 'bundle').length, 1, 'never a second PR');
    const [pr] = github.pullRequests('acme', 'bundle');
    assert.ok(pr);
    const git = localGitRun(`${github.projectRoot}/acme/bundle.git`);
    const head = (await git('rev-parse', ['rev-parse', `refs/heads/${pr.headRef}`])).trim();
    assert.doesNotMatch(await git('log', ['log', '-1', '--format=%B', head]), /\[skip ci\]/);
    assert.equal((await git('rev-list', ['rev-list', '--count', `main..${head}`])).trim(), '1', 'one commit on base');
    const csv = await git('show', ['show', `${head}:manifests/csv.yaml`]);
    for (const [operand, digest] of digests) assert.ok(csv.includes(`quay.io/acme/${operand}@${digest}`));
    assert.equal(parseDescription(pr.body).managed?.phase, 'Ready');
    assert.deepEqual(github.contractViolations, [], 'every request and response follows the OpenAPI description');
    assert.ok(github.requests.some((r) => r.operationId?.startsWith('graphql:markPullRequestReadyForReview') === true));
    const metrics = await (await fetch(`http://127.0.0.1:${String(manager.metricsPort)}/metrics`)).text();
    assert.match(metrics, /^nudger_changegroup_pushes_total\{final="true"\} 1$/m, 'one final push');
    assert.match(metrics, /^nudger_changegroup_pushes_total\{final="false"\} 2$/m, 'two pushes with [skip ci]');
    assert.match(metrics, /^nudger_changegroup_phase_transitions_total\{phase="Ready"\} 1$/m);
  });

  it('never lets the token reach a log line, an Event or the status', async () => {
    const { client, log } = tenant;
    const events = await client.list<KubeObject & { message?: string }>(CORE_EVENTS, { namespace: NS });
    const cg = await client.get(CHANGE_GROUPS, NS, 'bundle-update');
    const haystacks = [log.lines.join(''), JSON.stringify(events.items), JSON.stringify(cg)];
    assert.ok(log.lines.length > 0, 'the manager logged at debug level');
    for (const text of haystacks) {
      assert.ok(!text.includes(TOKEN), 'the token leaked');
      assert.ok(!text.includes(Buffer.from(`x-access-token:${TOKEN}`).toString('base64')), 'the Basic value leaked');
    }
  });
});
