// The ChangeGroup controller against the GitLab emulator, on a real kube-apiserver (docs/decisions.md
// D4, D7, D12, N6, N32): the manager's own forge resolution (a configured GitLab host, the token from
// the tenant's SCM Secret) drives the emulator, which checks every request against GitLab's official
// OpenAPI subset and serves the bundle over real git smart HTTP. Thirty held operand nudges give one
// MR whose title carries `Draft: ` while it waits and none at the end.
//
// Builds are counted as Pipelines-as-Code on GitLab starts them: a push to the MR's branch whose
// head commit TITLE carries no skip marker. Leaving draft is a title edit, which starts nothing on
// GitLab, so the final push has to be the one build trigger — and the last push. Pushes are read
// from the bare repository's own reflog (real git records every ref update it accepts).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { CHANGE_GROUPS, COMPONENTS, CORE_EVENTS, SECRETS } from '../../src/adapters/kubernetes/resources.ts';
import type { KubeObject } from '../../src/adapters/kubernetes/types.ts';
import { localGitRun } from '../../src/adapters/git/plumbing.ts';
import { changeGroupBranch } from '../../src/domain/changegroup/model.ts';
import { parseDescription } from '../../src/domain/pr-description/index.ts';
// The markers stock Pipelines-as-Code honours, as it matches them (D4); on GitLab it reads the title.
import { hasSkipMarker } from '../../src/domain/pr-description/skip-markers.ts';
import {
  startGitLabEmulator,
  type GitLabEmulator,
  type RecordedRequest,
} from '../../src/sandbox/forges/gitlab-emulator/emulator.ts';
import { assertNoSecrets, tokenForms } from '../support/secret-leaks.ts';
import { sandboxComponent } from '../sandbox/local-forge-fixtures.ts';
import { scmSecret, startChangeGroupTenant, type ChangeGroupTenant } from './changegroup-tenant.ts';

const NS = 'gl-tenant';
const CHANGE_GROUP = 'bundle-update';
const TOKEN = 'glpat-changeGroupTokenThatMustNeverLeak01';
const OPERANDS = Array.from({ length: 30 }, (_, i) => `operand-${String(i + 1).padStart(2, '0')}`);
const OLD = (name: string): string => `sha256:${createHash('sha256').update(`old ${name}`).digest('hex')}`;
const CSV = OPERANDS.map((o) => `- image: quay.io/acme/${o}@${OLD(o)}\n`).join('');
const DRAFT_PREFIX = 'Draft: ';
const BRANCH = changeGroupBranch(CHANGE_GROUP);

let tenant: ChangeGroupTenant;
let gitlab: GitLabEmulator;
/** The MR's title as each accepted push to the bundle finished ('(no MR)' before there is one). */
const titleAtPush: string[] = [];

const isBundlePush = (r: RecordedRequest): boolean =>
  r.method === 'POST' && r.path === '/acme/bundle.git/git-receive-pack' && r.status === 200;

before(async () => {
  gitlab = await startGitLabEmulator({ token: TOKEN });
  // Watch the emulator's request log: at the end of each accepted push, note the MR's title then.
  const record = gitlab.requests.push.bind(gitlab.requests);
  gitlab.requests.push = (...entries: RecordedRequest[]): number => {
    for (const entry of entries) {
      if (isBundlePush(entry)) titleAtPush.push(gitlab.mergeRequests('acme', 'bundle')[0]?.title ?? '(no MR)');
    }
    return record(...entries);
  };
  const host = new URL(gitlab.gitBaseUrl).host;
  tenant = await startChangeGroupTenant([NS], {
    forgeHosts: new Map([[host, { kind: 'gitlab', apiUrl: gitlab.apiUrl, gitBaseUrl: gitlab.gitBaseUrl }]]),
    pollIntervalMs: 300,
  });
  const { client } = tenant;
  // The host label carries no port (docs/decisions.md N9); no username: git pushes as oauth2 (N32).
  await client.create(SECRETS, scmSecret(NS, '127.0.0.1', TOKEN));
  await gitlab.createRepository('acme', 'bundle', { 'manifests/csv.yaml': CSV, Dockerfile: 'FROM scratch\n' });
  // A bare repository keeps no reflog unless asked; with one, every accepted push is on record.
  await bundleGit()('config', ['config', 'core.logAllRefUpdates', 'always']);
  for (const name of [...OPERANDS, 'bundle']) {
    await client.create(COMPONENTS, sandboxComponent(NS, name, `${gitlab.gitBaseUrl}/acme/${name}.git`));
  }
  await tenant.admitNudgeConfig(OPERANDS, 'bundle');
});

after(async () => {
  await tenant.stop();
  await gitlab.close();
});

function bundleGit(): ReturnType<typeof localGitRun> {
  return localGitRun(`${gitlab.projectRoot}/acme/bundle.git`);
}

interface Push {
  readonly sha: string;
  readonly title: string;
}

/** Every push the bundle's MR branch accepted, oldest first, with its head commit's title. */
async function pushesToBranch(): Promise<Push[]> {
  const log = await bundleGit()('log', ['log', '-g', '--format=%H%x09%s', `refs/heads/${BRANCH}`]);
  return log
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const [sha = '', title = ''] = line.split('\t');
      return { sha, title };
    })
    .reverse();
}

describe('ChangeGroup controller with the GitLab provider', () => {
  it('collects 30 held nudges into one Draft: MR, leaves draft, and builds the bundle once', async (t) => {
    await tenant.createChangeGroupFromGraph(CHANGE_GROUP, 'bundle', OPERANDS);
    const digests = await tenant.collectHeldBuilds(CHANGE_GROUP, OPERANDS, async (index) => {
      const mrs = gitlab.mergeRequests('acme', 'bundle');
      assert.equal(mrs.length, 1, 'one MR from the first component on');
      const [mr] = mrs;
      assert.ok(mr);
      const waiting = index < OPERANDS.length - 1;
      assert.equal(mr.title.startsWith(DRAFT_PREFIX), waiting, `title after ${String(index + 1)}: ${mr.title}`);
      assert.equal(mr.draft, waiting);
      // While waiting, every push so far carried the marker in its title: nothing was built yet.
      if (waiting) assert.ok((await pushesToBranch()).every((push) => hasSkipMarker(push.title)));
    });

    const status = await tenant.changeGroupStatus(CHANGE_GROUP);
    assert.equal(status?.phase, 'Ready');
    const mrs = gitlab.mergeRequests('acme', 'bundle');
    assert.equal(mrs.length, 1, 'never a second MR');
    const [mr] = mrs;
    assert.ok(mr);
    assert.equal(mr.state, 'opened');
    assert.equal(mr.sourceBranch, BRANCH);
    assert.equal(mr.title, 'Update component images in bundle (ChangeGroup bundle-update)', 'no prefix at the end');

    // One push per collected operand, as git recorded them and as the emulator served them.
    const pushes = await pushesToBranch();
    assert.equal(pushes.length, OPERANDS.length, 'one push per operand');
    assert.equal(gitlab.requests.filter(isBundlePush).length, OPERANDS.length);
    assert.equal(titleAtPush.length, OPERANDS.length);
    // PaC on GitLab: a push whose head title has no skip marker starts a build; the edit that
    // leaves draft starts none. Exactly one such push, and it is the last one.
    const triggers = pushes.filter((push) => !hasSkipMarker(push.title));
    assert.equal(triggers.length, 1, `one build of the bundle; pushes: ${JSON.stringify(pushes.map((p) => p.title))}`);
    const last = pushes.at(-1);
    assert.ok(last);
    assert.equal(triggers[0], last, 'the last push is the build trigger');
    // The handle's `sha` is the one stored at the MR's last API write; the branch is what PaC builds.
    assert.equal(last.sha, await gitlab.branchHead('acme', 'bundle', BRANCH), "the MR's head is the build trigger");
    assert.equal(last.title, 'Update 30 component images for bundle');
    // N6: the MR left draft before the final push (on GitLab that edit builds nothing either way,
    // so the final push is the one build whichever came first); earlier pushes found it a draft.
    assert.equal(titleAtPush[0], '(no MR)', 'the first push comes before the MR is opened');
    assert.ok(titleAtPush.slice(1, -1).every((title) => title.startsWith(DRAFT_PREFIX)));
    assert.equal(titleAtPush.at(-1), mr.title, 'ready before the final push');

    t.diagnostic(
      `pushes ${String(pushes.length)}, with a skip marker ${String(pushes.length - triggers.length)}, ` +
        `build triggers ${String(triggers.length)} (the last push: "${last.title}"), ` +
        `MR title at the final push: "${titleAtPush.at(-1) ?? ''}"`,
    );
    const head = last.sha;
    const git = bundleGit();
    assert.equal((await git('rev-list', ['rev-list', '--count', `main..${head}`])).trim(), '1', 'one commit on base');
    const csv = await git('show', ['show', `${head}:manifests/csv.yaml`]);
    for (const [operand, digest] of digests) assert.ok(csv.includes(`quay.io/acme/${operand}@${digest}`));
    assert.equal(parseDescription(mr.description ?? '').managed?.phase, 'Ready');
    assert.deepEqual(gitlab.contractViolations, [], "every request and answer follows GitLab's official subset");
    const metrics = await (await fetch(`http://127.0.0.1:${String(tenant.manager.metricsPort)}/metrics`)).text();
    assert.match(metrics, /^nudger_changegroup_pushes_total\{final="true"\} 1$/m, 'one final push');
    assert.match(metrics, /^nudger_changegroup_pushes_total\{final="false"\} 29$/m, '29 pushes with [skip ci]');
    assert.match(metrics, /^nudger_changegroup_phase_transitions_total\{phase="Ready"\} 1$/m);
  });

  it('never lets the token reach a log line, an Event or the status', async () => {
    const { client, log } = tenant;
    const events = await client.list<KubeObject>(CORE_EVENTS, { namespace: NS });
    const cg = await client.get(CHANGE_GROUPS, NS, CHANGE_GROUP);
    assert.ok(
      log.lines.some((line) => line.includes('"level":"debug"')),
      'the manager logged at debug level',
    );
    assertNoSecrets(
      { log: log.lines.join(''), events: JSON.stringify(events.items), changeGroup: JSON.stringify(cg) },
      tokenForms(TOKEN, ['oauth2']),
    );
  });
});
