// The ChangeGroup pull request against the real local forge and real git (docs/decisions.md D4, D5, D7):
// observation, the idempotent push-and-open, manual-change detection, the ticks, and the lease.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { LocalForge, readForgeEvents } from '../../src/adapters/forges/local/local-forge.ts';
import type { ResolvedForge } from '../../src/adapters/forges/resolver.ts';
import { GitWorkspaces } from '../../src/adapters/git/workspace.ts';
import {
  BranchMovedError,
  ensurePullRequest,
  markReadyForReview,
  observePullRequest,
  refreshDescription,
  type ObservedPullRequest,
  type PullRequestWriterOptions,
} from '../../src/controllers/changegroup/pull-request.ts';
import { changeGroupBranch } from '../../src/domain/changegroup/model.ts';
import type { ChangeGroupDocument } from '../../src/domain/changegroup/pull-request-content.ts';
import {
  reconcileChangeGroup,
  recordPullRequestPush,
  type ChangeGroupReconcileInput,
  type EnsurePullRequestIntent,
  type PullRequestObservation,
} from '../../src/domain/changegroup/state.ts';
import { parseDescription } from '../../src/domain/pr-description/index.ts';
import { resolveFileMatch } from '../../src/domain/digest-rewrite/index.ts';
import type { ChangeGroupStatus } from '../../src/schema/changegroup.ts';
import { DIGEST } from '../domain/changegroup/fixtures.ts';
import { build, input } from '../domain/changegroup/state-fixtures.ts';
import { foreignPush, git, removeTempDirs, tempDir } from '../adapters/git/helpers.ts';

const BOT = { name: 'nudger[bot]', email: 'nudger@example.com' };
const LINK = { kind: 'kubectl' } as const;
const CG = 'bundle-x-update';
const BRANCH = changeGroupBranch(CG);
const OLD = DIGEST('0');

const MANIFEST = [
  'spec:',
  `  a: quay.io/org/operand-a@${OLD}`,
  `  b: quay.io/org/operand-b:v1@${OLD}`,
  '  op: quay.io/org/operator:latest',
  '',
].join('\n');

async function setup(prefix: string) {
  const dir = tempDir(prefix);
  const forge = new LocalForge({ root: join(dir, 'forge') });
  const repo = await forge.createRepository('acme', 'bundle-x', {
    'manifests/csv.yaml': MANIFEST,
    'README.md': `quay.io/org/operand-a@${OLD}\n`,
  });
  const resolved: ResolvedForge = { provider: forge, repo };
  const options: PullRequestWriterOptions = {
    forge: resolved,
    workspaces: new GitWorkspaces({ cacheDir: join(dir, 'cache') }),
    bot: BOT,
    link: LINK,
    baseBranch: 'main',
    fileMatchOf: () => resolveFileMatch({}),
  };
  const gitDir = forge.gitDirectory(repo);
  const show = (rev: string, path: string): string => git(dir, '--git-dir', gitDir, 'show', `${rev}:${path}`);
  const events = async () => (await readForgeEvents(forge, repo, 0)).events;
  return { dir, forge, repo, resolved, options, gitDir, show, events };
}

function document(status: ChangeGroupStatus | undefined, i: ChangeGroupReconcileInput): ChangeGroupDocument {
  const { metadata, spec } = i.changeGroup;
  return { metadata: { name: metadata.name, namespace: metadata.namespace }, spec, ...(status ? { status } : {}) };
}

/** One reconcile of the pure state machine: the next status and its ensurePullRequest intent. */
function step(i: ChangeGroupReconcileInput) {
  const result = reconcileChangeGroup(i);
  const intent = result.intents.find((x): x is EnsurePullRequestIntent => x.kind === 'ensurePullRequest');
  return { status: result.status, intents: result.intents, intent, doc: document(result.status, i) };
}

const operandA = input({ builds: [build('operand-a', '1', 5)] });

/** Opens the PR for operand-a's build; returns everything the follow-up steps need. */
async function openPullRequest(prefix: string) {
  const env = await setup(prefix);
  const first = step(operandA);
  assert.ok(first.intent);
  const observed = await observePullRequest(env.resolved, first.doc, BOT);
  const outcome = await ensurePullRequest(first.doc, first.intent, observed, env.options);
  const recorded = recordPullRequestPush(first.status, first.intent, outcome);
  return { ...env, first, observed, outcome, recorded, recordedDoc: document(recorded, operandA) };
}

function open(observed: ObservedPullRequest): Extract<PullRequestObservation, { state: 'open' }> {
  assert.equal(observed.observation.state, 'open');
  return observed.observation;
}

describe('ChangeGroup pull request (local forge, real git)', () => {
  after(removeTempDirs);

  it('observes no pull request before the first push', async () => {
    const { resolved } = await setup('pr-none');
    const first = step(operandA);
    const observed = await observePullRequest(resolved, first.doc, BOT);
    assert.deepEqual(observed, { observation: { state: 'none' }, pullRequest: undefined, parsed: undefined });
  });

  it("rewrites each digest only in the files its own fileMatch selects (D6: the build's build-nudge-files)", async () => {
    const env = await setup('pr-filematch');
    const both = input({ builds: [build('operand-a', '1', 5), build('operand-b', '2', 6)] });
    const first = step(both);
    assert.ok(first.intent);
    const observed = await observePullRequest(env.resolved, first.doc, BOT);
    // operand-a's build names README.md only; operand-b has no annotation and gets the default.
    const outcome = await ensurePullRequest(first.doc, first.intent, observed, {
      ...env.options,
      fileMatchOf: (b) => (b.name === 'operand-a' ? ['README\\.md'] : resolveFileMatch({})),
    });
    const manifest = env.show(outcome.commit, 'manifests/csv.yaml');
    assert.ok(manifest.includes(`quay.io/org/operand-a@${OLD}`), 'operand-a is not rewritten outside its fileMatch');
    assert.ok(manifest.includes(`quay.io/org/operand-b:v1@${DIGEST('2')}`), 'operand-b follows the default fileMatch');
    assert.equal(env.show(outcome.commit, 'README.md'), `quay.io/org/operand-a@${DIGEST('1')}\n`);
  });

  it('rewrites the distribution names a ReleasePlanAdmission gives (D6), anchored; a component referenced nowhere is NotReferenced', async () => {
    const env = await setup('pr-distribution');
    const operator = 'registry.redhat.io/network-observability/network-observability-rhel9-operator';
    const script = [
      '#!/bin/bash',
      `export OPERATOR_IMAGE_PULLSPEC='${operator}@${OLD}'`,
      `export CONSOLE_PLUGIN_PULLSPEC='${operator}-extra@${OLD}'`,
      `export OPERATOR_TAGGED='${operator}:v1.9@${OLD}'`,
      '',
    ].join('\n');
    const repo = await env.forge.createRepository('acme', 'netobserv-bundle', {
      'hack/nudging/container_digest.sh': script,
    });
    const both = input({ builds: [build('operand-a', '1', 5), build('operand-b', '2', 6)] });
    const first = step(both);
    assert.ok(first.intent);
    const resolved: ResolvedForge = { provider: env.forge, repo };
    const observed = await observePullRequest(resolved, first.doc, BOT);
    const outcome = await ensurePullRequest(first.doc, first.intent, observed, {
      ...env.options,
      forge: resolved,
      fileMatchOf: () => ['hack/nudging/container_digest\\.sh'],
      distributionRepositoriesOf: (component) =>
        component === 'operand-a'
          ? ['quay.io/redhat-prod/network-observability----network-observability-rhel9-operator', operator]
          : [],
    });
    const after = git(
      env.dir,
      '--git-dir',
      env.forge.gitDirectory(repo),
      'show',
      `${outcome.commit}:hack/nudging/container_digest.sh`,
    );
    assert.equal(
      after,
      script
        .replace(`${operator}@${OLD}`, `${operator}@${DIGEST('1')}`)
        .replace(`${operator}:v1.9@${OLD}`, `${operator}:v1.9@${DIGEST('1')}`),
      'the distribution name gets the digest, its tag is kept, and the longer name is not touched',
    );
    // Before, operand-a was listed too: its build repository appears nowhere in this file.
    assert.deepEqual(outcome.unreferenced, ['operand-b']);
    const recorded = recordPullRequestPush(first.status, first.intent, outcome);
    assert.deepEqual(
      recorded.components?.map((c) => [c.name, c.state]),
      [
        ['operand-a', 'Ready'],
        ['operand-b', 'NotReferenced'],
        ['operator', 'Waiting'],
      ],
    );
  });

  it('opens a draft PR with one bot commit on the base that rewrites only the digest references', async () => {
    const { outcome, forge, repo, gitDir, dir, show, first } = await openPullRequest('pr-create');
    assert.equal(outcome.pushed, true);
    assert.equal(outcome.number, 1);
    assert.equal(outcome.draft, true);
    assert.equal(outcome.headBranch, BRANCH);
    assert.equal(outcome.baseBranch, 'main');
    const base = await forge.branchHead(repo, 'main');
    assert.equal(outcome.baseCommit, base);
    assert.equal(await forge.branchHead(repo, BRANCH), outcome.commit);
    assert.deepEqual(outcome.unreferenced, []);

    assert.equal(git(dir, '--git-dir', gitDir, 'rev-list', '--count', `main..${BRANCH}`).trim(), '1');
    assert.equal(git(dir, '--git-dir', gitDir, 'rev-parse', `${outcome.commit}^`).trim(), base);
    const manifest = show(outcome.commit, 'manifests/csv.yaml');
    assert.equal(manifest, MANIFEST.replace(`quay.io/org/operand-a@${OLD}`, `quay.io/org/operand-a@${DIGEST('1')}`));
    assert.equal(show(outcome.commit, 'README.md'), `quay.io/org/operand-a@${OLD}\n`, 'README.md is not in fileMatch');
    const log = git(dir, '--git-dir', gitDir, 'log', '-1', '--format=%an <%ae>%n%aI%n%s', outcome.commit).split('\n');
    assert.equal(log[0], `${BOT.name} <${BOT.email}>`);
    assert.equal(log[1], '2025-01-15T10:05:00+00:00', "dated from the build's creation time, not the clock");
    assert.equal(log[2], `Update operand-a to 1111111 [skip ci]`);

    const pr = await forge.getPullRequest(repo, 1);
    assert.equal(pr.draft, true);
    assert.equal(pr.state, 'open');
    assert.equal(pr.title, 'Update component images in bundle-x (ChangeGroup bundle-x-update)');
    assert.equal(pr.baseBranch, 'main');
    const parsed = parseDescription(pr.body);
    assert.equal(parsed.managed?.phase, first.status.phase);
    assert.equal(parsed.tamperedManagedBlock, false);
    assert.deepEqual(parsed.checkboxes, { buildNow: false, rebase: false });
  });

  it('repeats idempotently: no push, no second PR, no forge write (D5)', async () => {
    const { outcome, first, observed, options, resolved, recordedDoc, forge, repo, events } =
      await openPullRequest('pr-repeat');
    const before = await events();
    const intent = first.intent;
    assert.ok(intent);

    // A crash after the push and the PR, before the status write: the same stale observation again.
    const again = await ensurePullRequest(first.doc, intent, observed, options);
    assert.equal(again.pushed, false);
    assert.equal(again.number, outcome.number);
    assert.equal(again.commit, outcome.commit);
    await assert.rejects(forge.getPullRequest(repo, 2), /no pull request #2/);

    // The restarted controller observes without a recorded PR: the open one is found by head branch.
    const reobserved = await observePullRequest(resolved, first.doc, BOT);
    assert.deepEqual(reobserved.observation, {
      state: 'open',
      draft: true,
      manualChanges: false,
      rebaseRequested: false,
      buildNowRequested: false,
    });
    assert.equal(reobserved.pullRequest?.number, 1);
    const third = await ensurePullRequest(first.doc, intent, reobserved, options);
    assert.equal(third.pushed, false);
    assert.equal(third.number, 1);

    // With the push recorded, the state machine asks for nothing more.
    const recordedObservation = await observePullRequest(resolved, recordedDoc, BOT);
    const next = reconcileChangeGroup({
      ...operandA,
      changeGroup: { ...operandA.changeGroup, status: recordedDoc.status },
      pullRequest: recordedObservation.observation,
    });
    assert.deepEqual(
      next.intents.filter((i) => i.kind !== 'fillNudgingComponents'),
      [],
    );

    const after = await events();
    assert.deepEqual(after.slice(before.length), [], 'neither a push nor a PR event');
    assert.equal((await forge.findPullRequestByHeadBranch(repo, BRANCH))?.number, 1);
  });

  it('reports a commit by someone else on the branch as manual changes', async () => {
    const { dir, repo, resolved, recordedDoc } = await openPullRequest('pr-human-commit');
    assert.equal(open(await observePullRequest(resolved, recordedDoc, BOT)).manualChanges, false);
    foreignPush(dir, repo.url, BRANCH, 'notes.txt', 'mine\n');
    const observation = open(await observePullRequest(resolved, recordedDoc, BOT));
    assert.equal(observation.manualChanges, true);
    assert.equal(observation.rebaseRequested, false);
  });

  it('reports a human edit outside the managed block as manual changes, but not a tick', async () => {
    const { forge, repo, resolved, recordedDoc } = await openPullRequest('pr-human-text');
    const pr = await forge.getPullRequest(repo, 1);
    await forge.updatePullRequest(repo, 1, { body: pr.body.replace('- [ ] build now', '- [x] build now') });
    assert.equal(open(await observePullRequest(resolved, recordedDoc, BOT)).manualChanges, false);
    await forge.updatePullRequest(repo, 1, { body: `Please look at this first.\n\n${pr.body}` });
    assert.equal(open(await observePullRequest(resolved, recordedDoc, BOT)).manualChanges, true);
  });

  it('reads the rebase tick and the build-now tick', async () => {
    const { forge, repo, resolved, recordedDoc } = await openPullRequest('pr-ticks');
    const body = (await forge.getPullRequest(repo, 1)).body;
    assert.ok(body.includes('- [ ] rebase: discard manual changes'));
    assert.ok(body.includes('- [ ] build now with the components ready so far'));

    await forge.updatePullRequest(repo, 1, { body: body.replace('- [ ] rebase:', '- [x] rebase:') });
    let observation = open(await observePullRequest(resolved, recordedDoc, BOT));
    assert.equal(observation.rebaseRequested, true);
    assert.equal(observation.buildNowRequested, false);

    await forge.updatePullRequest(repo, 1, { body: body.replace('- [ ] build now', '- [X] build now') });
    observation = open(await observePullRequest(resolved, recordedDoc, BOT));
    assert.equal(observation.rebaseRequested, false);
    assert.equal(observation.buildNowRequested, true);
    assert.equal(observation.manualChanges, false);
  });

  it('refuses to overwrite a branch moved after the observation, unless told to discard', async () => {
    const { dir, repo, forge, resolved, recordedDoc, recorded, options, outcome } = await openPullRequest('pr-moved');
    // operand-b arrives: a second push is due.
    const second = step(
      input({
        status: recorded,
        builds: [build('operand-b', '2', 6)],
        pullRequest: {
          state: 'open',
          draft: true,
          manualChanges: false,
          rebaseRequested: false,
          buildNowRequested: false,
        },
      }),
    );
    assert.ok(second.intent);
    const observed = await observePullRequest(resolved, recordedDoc, BOT);
    const human = foreignPush(dir, repo.url, BRANCH, 'notes.txt', 'mine\n');

    await assert.rejects(ensurePullRequest(second.doc, second.intent, observed, options), (error: unknown) => {
      assert.ok(error instanceof BranchMovedError);
      assert.equal(error.branch, BRANCH);
      return true;
    });
    assert.equal(await forge.branchHead(repo, BRANCH), human, 'the human commit is still there');

    const discard = { ...second.intent, discardManualChanges: true };
    const overwritten = await ensurePullRequest(second.doc, discard, observed, options);
    assert.equal(overwritten.pushed, true);
    assert.notEqual(overwritten.commit, outcome.commit);
    assert.equal(await forge.branchHead(repo, BRANCH), overwritten.commit);
    const commits = await forge.listCommits(repo, 1);
    assert.deepEqual(
      commits.map((c) => c.authorEmail),
      [BOT.email],
    );
  });

  it('asks for no push once a human commit has been observed', async () => {
    const { dir, repo, forge, resolved, recordedDoc, recorded } = await openPullRequest('pr-seen');
    const human = foreignPush(dir, repo.url, BRANCH, 'notes.txt', 'mine\n');
    const observed = await observePullRequest(resolved, recordedDoc, BOT);
    assert.equal(observed.pullRequest?.headSha, human);
    const second = step(
      input({ status: recorded, builds: [build('operand-b', '2', 6)], pullRequest: { ...observed.observation } }),
    );
    // Manual changes stop pushes in the state machine: no ensurePullRequest intent at all.
    assert.equal(second.intent, undefined);
    assert.equal(await forge.branchHead(repo, BRANCH), human);
  });

  it('marks the PR ready for review, once', async () => {
    const { forge, repo, resolved, recordedDoc, events } = await openPullRequest('pr-ready');
    const observed = await observePullRequest(resolved, recordedDoc, BOT);
    const ready = await markReadyForReview(resolved, observed);
    assert.equal(ready?.draft, false);
    assert.equal((await forge.getPullRequest(repo, 1)).draft, false);
    const count = (await events()).length;
    const again = await markReadyForReview(resolved, await observePullRequest(resolved, recordedDoc, BOT));
    assert.equal(again?.draft, false);
    assert.equal((await events()).length, count, 'an already ready PR is left alone');
  });

  it('refreshes the managed block and keeps human text outside it byte for byte', async () => {
    const { forge, repo, resolved, recorded } = await openPullRequest('pr-refresh');
    const body = (await forge.getPullRequest(repo, 1)).body;
    const before = 'Human intro\r\nwith CRLF  \n\n   indented *markdown* `code`\n\n';
    const after = '\n\n---\nTrailing note ✓ <!-- a comment -->\n';
    const edited = `${before}${body}${after}`;
    await forge.updatePullRequest(repo, 1, { body: edited });
    const human = parseDescription(edited).humanText;
    assert.equal(human.before, before);
    assert.ok(human.after.endsWith(after));

    // operand-b arrives; the table changes.
    const second = step(
      input({
        status: recorded,
        builds: [build('operand-b', '2', 6)],
        pullRequest: {
          state: 'open',
          draft: true,
          manualChanges: true,
          rebaseRequested: false,
          buildNowRequested: false,
        },
      }),
    );
    const observed = await observePullRequest(resolved, second.doc, BOT);
    const refreshed = await refreshDescription(second.doc, observed, { forge: resolved, link: LINK });
    assert.ok(refreshed);
    assert.notEqual(refreshed.body, edited);
    assert.ok(refreshed.body.startsWith(before), JSON.stringify(refreshed.body.slice(0, 80)));
    assert.ok(refreshed.body.endsWith(after), JSON.stringify(refreshed.body.slice(-80)));
    const parsed = parseDescription(refreshed.body);
    assert.deepEqual(
      parsed.managed?.components.map((c) => [c.name, c.state]),
      [
        ['operand-a', 'Ready'],
        ['operand-b', 'Ready'],
        ['operator', 'Waiting'],
      ],
    );
    assert.equal(parsed.humanText.before, human.before);
    assert.equal(parsed.humanText.after, human.after);
    // The same refresh again changes nothing.
    const unchanged = await refreshDescription(second.doc, await observePullRequest(resolved, second.doc, BOT), {
      forge: resolved,
      link: LINK,
    });
    assert.equal(unchanged?.body, refreshed.body);
  });

  it('observes a recorded PR the forge no longer knows as closed', async () => {
    const { resolved, recorded } = await openPullRequest('pr-gone');
    const doc = document(
      { ...recorded, pullRequest: { ...(recorded.pullRequest ?? assert.fail('no PR')), number: 99 } },
      operandA,
    );
    assert.deepEqual((await observePullRequest(resolved, doc, BOT)).observation, { state: 'closed' });
  });

  it("adopts only an open PR unrecorded: a closed namesake is not this ChangeGroup's", async () => {
    const { forge, repo, resolved, first, recordedDoc } = await openPullRequest('pr-namesake');
    await forge.close(repo, 1);
    assert.equal((await observePullRequest(resolved, first.doc, BOT)).observation.state, 'none');
    assert.equal((await observePullRequest(resolved, recordedDoc, BOT)).observation.state, 'closed');
  });
});
