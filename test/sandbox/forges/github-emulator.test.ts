import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startGitHubEmulator, type GitHubEmulator } from '../../../src/sandbox/forges/github-emulator/emulator.ts';
import { gitHubContract } from '../../../src/sandbox/forges/github-emulator/openapi-contract.ts';

const TOKEN = 'ghs_emulatorSelfTest0123456789';

let emulator: GitHubEmulator;

async function api(
  method: string,
  path: string,
  body?: unknown,
  authorization: string | null = `token ${TOKEN}`,
): Promise<{ status: number; json: unknown; headers: Headers }> {
  const response = await fetch(`${emulator.apiUrl}${path}`, {
    method,
    headers: {
      ...(authorization === null ? {} : { authorization }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, json: text.length === 0 ? undefined : JSON.parse(text), headers: response.headers };
}

async function graphql(query: string, variables: Record<string, unknown> = {}): Promise<unknown> {
  const response = await fetch(emulator.graphqlUrl, {
    method: 'POST',
    headers: { authorization: `bearer ${TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, variables }),
  });
  assert.equal(response.status, 200);
  return response.json();
}

/** A branch one commit ahead of main, made with git directly in the bare repository. */
function branchAhead(name: string): void {
  const gitDir = join(emulator.projectRoot, 'acme', 'bundle.git');
  const run = (...args: string[]) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8' }).trim();
  const commit = run(
    '-c',
    'user.name=T',
    '-c',
    'user.email=t@example.com',
    'commit-tree',
    'main^{tree}',
    '-p',
    'main',
    '-m',
    name,
  );
  run('update-ref', `refs/heads/${name}`, commit);
}

/** The violations recorded since the last call; each test asserts on exactly its own. */
function takeViolations(): string[] {
  return emulator.contractViolations.splice(0);
}

describe('GitHub emulator', () => {
  before(async () => {
    emulator = await startGitHubEmulator({ token: TOKEN });
    await emulator.createRepository('acme', 'bundle', { 'a.txt': 'a\n' });
  });
  after(async () => {
    await emulator.close();
  });

  it('rejects pulls.create without head as GitHub does and records the contract violation', async () => {
    branchAhead('no-head');
    const { status, json } = await api('POST', '/repos/acme/bundle/pulls', { title: 't', base: 'main' });
    assert.equal(status, 422);
    assert.match((json as { message: string }).message, /must have required property 'head'/);
    assert.deepEqual(takeViolations(), [
      "client request: pulls/create request body: / must have required property 'head'",
    ]);
    assert.deepEqual(emulator.pullRequests('acme', 'bundle'), []);
    assert.deepEqual(emulator.requests.at(-1), {
      method: 'POST',
      path: '/api/v3/repos/acme/bundle/pulls',
      operationId: 'pulls/create',
      status: 422,
    });
  });

  it('rejects a mistyped body field and an out-of-enum query parameter', async () => {
    const created = await api('POST', '/repos/acme/bundle/pulls', {
      title: 't',
      base: 'main',
      head: 'x',
      draft: 'yes',
    });
    assert.equal(created.status, 422);
    const listed = await api('GET', '/repos/acme/bundle/pulls?state=merged');
    assert.equal(listed.status, 422);
    assert.deepEqual(takeViolations(), [
      'client request: pulls/create request body: /draft must be boolean',
      'client request: query parameter state: /value must be equal to one of the allowed values',
    ]);
  });

  it('answers 404 for an undocumented route and for a documented one it does not emulate', async () => {
    assert.equal((await api('GET', '/repos/acme/bundle/frobnicate')).status, 404);
    assert.equal((await api('GET', '/repos/acme/bundle/issues')).status, 404);
    assert.deepEqual(takeViolations(), [
      "GET /repos/acme/bundle/frobnicate: no such operation in GitHub's REST description",
      'issues/list-for-repo: documented but not emulated',
    ]);
  });

  it('requires the token: 401 with GitHub error bodies, Bearer accepted, git asks for Basic', async () => {
    const missing = await api('GET', '/repos/acme/bundle/pulls', undefined, null);
    assert.deepEqual([missing.status, (missing.json as { message: string }).message], [401, 'Requires authentication']);
    const wrong = await api('GET', '/repos/acme/bundle/pulls', undefined, 'token nope');
    assert.deepEqual([wrong.status, (wrong.json as { message: string }).message], [401, 'Bad credentials']);
    assert.equal((await api('GET', '/repos/acme/bundle/pulls', undefined, `Bearer ${TOKEN}`)).status, 200);
    const git = await fetch(`${emulator.gitBaseUrl}/acme/bundle.git/info/refs?service=git-upload-pack`);
    assert.equal(git.status, 401);
    assert.equal(git.headers.get('www-authenticate'), 'Basic realm="GitHub"');
    const basic = Buffer.from(`x-access-token:${TOKEN}`).toString('base64');
    const authed = await fetch(`${emulator.gitBaseUrl}/acme/bundle.git/info/refs?service=git-upload-pack`, {
      headers: { authorization: `Basic ${basic}` },
    });
    assert.equal(authed.status, 200);
    assert.match(await authed.text(), /refs\/heads\/main/);
    assert.deepEqual(takeViolations(), []);
  });

  it('pages lists with absolute Link headers', async () => {
    for (const name of ['p1', 'p2', 'p3', 'p4', 'p5']) {
      branchAhead(name);
      assert.equal(
        (await api('POST', '/repos/acme/bundle/pulls', { title: name, head: name, base: 'main' })).status,
        201,
      );
    }
    const seen: number[] = [];
    let next: string | undefined = `${emulator.apiUrl}/repos/acme/bundle/pulls?per_page=2`;
    while (next !== undefined) {
      const response = await api('GET', next.slice(emulator.apiUrl.length));
      seen.push(...(response.json as { number: number }[]).map((pull) => pull.number));
      next = /<([^>]+)>; rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
    }
    assert.deepEqual(seen, [5, 4, 3, 2, 1], 'newest first, each once');
    assert.deepEqual(takeViolations(), []);
  });

  it('validates GraphQL documents against the published schema and runs the draft mutations', async () => {
    const pull = emulator.pullRequests('acme', 'bundle').find((candidate) => candidate.title === 'p1');
    assert.ok(pull !== undefined && !pull.draft);
    const mutation = `mutation($id: ID!) { convertPullRequestToDraft(input: {pullRequestId: $id}) {
      pullRequest { number isDraft state } } }`;
    assert.deepEqual(await graphql(mutation, { id: pull.nodeId }), {
      data: { convertPullRequestToDraft: { pullRequest: { number: pull.number, isDraft: true, state: 'OPEN' } } },
    });
    assert.equal(emulator.pullRequests('acme', 'bundle').find((candidate) => candidate.title === 'p1')?.draft, true);

    const unknown = (await graphql(mutation, { id: 'PR_nope' })) as { errors: { type: string; message: string }[] };
    assert.equal(unknown.errors[0]?.type, 'NOT_FOUND');
    assert.deepEqual(takeViolations(), [], 'a well-formed document for a missing node is no contract violation');

    const invalid = (await graphql('mutation { markPullRequestReadyForReview(input: {id: "x"}) { isDraft } }')) as {
      errors: unknown[];
    };
    assert.ok(invalid.errors.length > 0);
    const violations = takeViolations();
    assert.ok(violations.length >= 2, violations.join('\n'));
    assert.ok(violations.every((violation) => violation.startsWith('GraphQL document does not validate:')));
    assert.ok(violations.some((violation) => violation.includes('"isDraft"')));
  });
});

describe('OpenApiContract', () => {
  const contract = gitHubContract();

  it('holds responses to the documented schema of their status', () => {
    const get = contract.match('GET', '/repos/acme/bundle/pulls/1');
    assert.equal(get?.operationId, 'pulls/get');
    assert.deepEqual(get.pathParams, { owner: 'acme', repo: 'bundle', pull_number: '1' });
    const problems = contract.checkResponse(get, 200, { number: 1 });
    assert.ok(problems.length === 1 && problems[0]?.includes("must have required property '_links'"), problems.join());
    assert.deepEqual(
      contract.checkResponse(get, 404, { message: 'Not Found', documentation_url: 'x', status: '404' }),
      [],
    );
    assert.deepEqual(
      contract.checkResponse(get, 429, { message: 'slow down' }),
      [],
      'undocumented errors: basic-error',
    );
    assert.deepEqual(contract.checkResponse(get, 202, {}), ['pulls/get does not document status 202']);
    assert.ok(contract.checkResponse(get, 404, { message: 7 }).length > 0);
  });

  it('prefers literal path segments over templates and rejects undocumented methods', () => {
    assert.equal(
      contract.match('GET', '/repos/a/b/pulls/comments')?.operationId,
      'pulls/list-review-comments-for-repo',
    );
    assert.equal(contract.match('DELETE', '/repos/a/b/pulls/1'), undefined);
    assert.equal(contract.match('GET', '/nope'), undefined);
  });
});
