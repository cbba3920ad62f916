import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  InvalidDigestUpdateError,
  rewriteDigests,
  type DigestUpdateRequest,
  type RepositoryFile,
} from '../../../src/domain/digest-rewrite/index.ts';

const hex = (c: string) => c.repeat(64);
const OLD = `sha256:${hex('1')}`;
const NEW = `sha256:${hex('2')}`;
const REPO = 'quay.io/redhat-user-workloads/my-tenant/operand-a';
const ALL = ['.*'];

function rewriteOne(
  text: string,
  path = 'file.yaml',
  updates: DigestUpdateRequest[] = [{ repository: REPO, digest: NEW }],
) {
  const result = rewriteDigests([{ path, text }], updates, ALL);
  return { after: result.changes[0]?.after ?? text, result };
}

describe('rewriteDigests: real reference shapes (konflux-upstream §7)', () => {
  const cases: [string, string, string][] = [
    ['YAML image, unquoted', `      image: ${REPO}@${OLD}\n`, `      image: ${REPO}@${NEW}\n`],
    ['YAML image, double-quoted', `  image: "${REPO}@${OLD}"\n`, `  image: "${REPO}@${NEW}"\n`],
    ['YAML image, single-quoted', `  image: '${REPO}@${OLD}'\n`, `  image: '${REPO}@${NEW}'\n`],
    [
      'CSV relatedImages',
      `  relatedImages:\n    - name: operand-a\n      image: ${REPO}@${OLD}\n`,
      `  relatedImages:\n    - name: operand-a\n      image: ${REPO}@${NEW}\n`,
    ],
    ['container arg', `        - --operand-a-image=${REPO}@${OLD}\n`, `        - --operand-a-image=${REPO}@${NEW}\n`],
    [
      'shell export',
      `export OPERAND_A_IMAGE_PULLSPEC="${REPO}@${OLD}"\n`,
      `export OPERAND_A_IMAGE_PULLSPEC="${REPO}@${NEW}"\n`,
    ],
    [
      'JSON',
      `[{"name": "operand-a", "image": "${REPO}@${OLD}", "revision": "x"}]`,
      `[{"name": "operand-a", "image": "${REPO}@${NEW}", "revision": "x"}]`,
    ],
    ['Dockerfile FROM … AS', `FROM ${REPO}@${OLD} AS build\n`, `FROM ${REPO}@${NEW} AS build\n`],
    ['tag and digest, tag kept', `image: ${REPO}:v1.2@${OLD}\n`, `image: ${REPO}:v1.2@${NEW}\n`],
    ['docker:// transport', `skopeo copy docker://${REPO}@${OLD} x`, `skopeo copy docker://${REPO}@${NEW} x`],
    ['line start and end of text', `${REPO}@${OLD}`, `${REPO}@${NEW}`],
  ];
  for (const [name, before, expected] of cases) {
    it(name, () => {
      const { after, result } = rewriteOne(before);
      assert.equal(after, expected);
      assert.equal(result.changes[0]?.replacements.length, 1);
    });
  }

  it('reports each replacement with its 1-based line, and keeps CRLF', () => {
    const text = `a: 1\r\nimage: ${REPO}@${OLD}\r\nb: 2\r\n  - ${REPO}:v2@${OLD}\r\n`;
    const { after, result } = rewriteOne(text);
    assert.equal(after, `a: 1\r\nimage: ${REPO}@${NEW}\r\nb: 2\r\n  - ${REPO}:v2@${NEW}\r\n`);
    assert.deepEqual(result.changes[0]?.replacements, [
      { line: 2, from: `${REPO}@${OLD}`, to: `${REPO}@${NEW}` },
      { line: 4, from: `${REPO}:v2@${OLD}`, to: `${REPO}:v2@${NEW}` },
    ]);
  });

  it('rewrites several repositories in one pass and leaves the others alone', () => {
    const b = 'quay.io/org/operand-b';
    const c = 'quay.io/org/operand-c';
    const text = `- ${REPO}@${OLD}\n- ${b}@${OLD}\n- ${c}@${OLD}\n`;
    const { after } = rewriteOne(text, 'x.yaml', [
      { repository: REPO, digest: NEW },
      { repository: b, digest: `sha256:${hex('3')}` },
    ]);
    assert.equal(after, `- ${REPO}@${NEW}\n- ${b}@sha256:${hex('3')}\n- ${c}@${OLD}\n`);
  });
});

describe('rewriteDigests: what must not change', () => {
  const untouched: [string, string][] = [
    ['tag-only reference', `image: ${REPO}:v1.2\n`],
    ['repository without tag or digest', `image: ${REPO}\n`],
    ['longer repository sharing the prefix', `image: ${REPO}-extra@${OLD}\n`],
    ['sub-repository', `image: ${REPO}/sub@${OLD}\n`],
    ['repository as a suffix of a longer path', `image: evil.io/${REPO}@${OLD}\n`],
    ['repository glued to a longer host', `image: x${REPO}@${OLD}\n`],
    ['upper-case hex', `image: ${REPO}@sha256:${hex('A')}\n`],
    ['63 hex digits', `image: ${REPO}@sha256:${'1'.repeat(63)}\n`],
    ['65 hex digits', `image: ${REPO}@sha256:${'1'.repeat(65)}\n`],
    ['other digest algorithm', `image: ${REPO}@sha512:${hex('1')}\n`],
    ['already current', `image: ${REPO}@${NEW}\n`],
  ];
  for (const [name, text] of untouched) {
    it(name, () => {
      const { result } = rewriteOne(text);
      assert.deepEqual(result.changes, []);
    });
  }

  it('treats regex metacharacters in the repository literally', () => {
    // An unescaped "." would match any character, as build-service's own regex does.
    const { result } = rewriteOne(`image: quayXio/redhat-user-workloads/my-tenant/operand-a@${OLD}\n`);
    assert.deepEqual(result.changes, []);
  });

  it('only reads files that fileMatch selects', () => {
    const files = [
      { path: 'bundle/csv.yaml', text: `image: ${REPO}@${OLD}` },
      { path: 'README.md', text: `image: ${REPO}@${OLD}` },
    ];
    const result = rewriteDigests(files, [{ repository: REPO, digest: NEW }], ['.*.yaml']);
    assert.deepEqual(
      result.changes.map((c) => c.path),
      ['bundle/csv.yaml'],
    );
  });

  it('skips binary and oversized files with a reason', () => {
    const files = [
      { path: 'logo.yaml', text: `\u0000PNG ${REPO}@${OLD}` },
      { path: 'huge.yaml', text: `${REPO}@${OLD}${' '.repeat(100)}` },
      { path: 'ok.yaml', text: `${REPO}@${OLD}` },
    ];
    const result = rewriteDigests(files, [{ repository: REPO, digest: NEW }], ALL, { maxFileChars: 200 });
    assert.deepEqual(result.skipped, [
      { path: 'logo.yaml', reason: 'binary' },
      { path: 'huge.yaml', reason: 'too-large' },
    ]);
    assert.deepEqual(
      result.changes.map((c) => c.path),
      ['ok.yaml'],
    );
  });

  it('lists repositories no matched file references', () => {
    const result = rewriteDigests(
      [{ path: 'a.yaml', text: `${REPO}@${NEW} quay.io/org/b:v1` }],
      [
        { repository: REPO, digest: NEW },
        { repository: 'quay.io/org/b', digest: NEW },
      ],
      ALL,
    );
    assert.deepEqual(result.unreferenced, ['quay.io/org/b']);
  });

  it('rejects malformed updates, naming the field', () => {
    const bad: [DigestUpdateRequest[], string][] = [
      [[{ repository: REPO, digest: `sha256:${'1'.repeat(63)}` }], 'updates[0].digest'],
      [[{ repository: REPO, digest: `sha256:${hex('A')}` }], 'updates[0].digest'],
      [[{ repository: `${REPO}:v1`, digest: NEW }], 'updates[0].repository'],
      [[{ repository: `${REPO}@${OLD}`, digest: NEW }], 'updates[0].repository'],
      [[{ repository: '', digest: NEW }], 'updates[0].repository'],
      [
        [
          { repository: REPO, digest: NEW },
          { repository: REPO, digest: OLD },
        ],
        'updates[1].repository',
      ],
    ];
    for (const [updates, field] of bad) {
      assert.throws(
        () => rewriteDigests([], updates, ALL),
        (error: unknown) => error instanceof InvalidDigestUpdateError && error.field === field,
        field,
      );
    }
    assert.doesNotThrow(() => rewriteDigests([], [{ repository: 'localhost:5000/a/b', digest: NEW }], ALL));
  });
});

describe('rewriteDigests: properties', () => {
  const repos = ['quay.io/org/a', 'quay.io/org/a-b', 'quay.io/org/a/b', 'registry.example:5000/x.y/z'];
  const digestArb = fc.stringMatching(/^[0-9a-f]{64}$/).map((h) => `sha256:${h}`);
  // Text fragments built from the pieces that make references hard to tell apart.
  const fragment = fc.oneof(
    fc.constantFrom(...repos),
    fc.constantFrom('@', ':v1.2', ':', '/', 'evil.io/', '"', "'", ' ', '\n', '\r\n', '=', 'image: ', 'sha256:', 'x'),
    digestArb,
    digestArb.map((d) => `@${d}`),
    fc.string({ maxLength: 4 }),
  );
  const textArb = fc.array(fragment, { maxLength: 30 }).map((parts) => parts.join(''));
  const updatesArb = fc.uniqueArray(fc.record({ repository: fc.constantFrom(...repos), digest: digestArb }), {
    selector: (u) => u.repository,
    minLength: 1,
    maxLength: repos.length,
  });

  // An oracle that finds references by scanning, not by regex.
  function referencesOf(text: string, repository: string): { digestStart: number }[] {
    const found: { digestStart: number }[] = [];
    for (let at = text.indexOf(repository); at !== -1; at = text.indexOf(repository, at + 1)) {
      const prev = at === 0 ? '' : text.charAt(at - 1);
      const viaScheme = text.slice(Math.max(0, at - 3), at) === '://';
      if (!viaScheme && /[A-Za-z0-9_.\-/]/.test(prev)) continue;
      let i = at + repository.length;
      if (text.charAt(i) === ':') {
        const tag = /^:[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}@/.exec(text.slice(i, i + 130));
        if (!tag) continue;
        i += tag[0].length - 1;
      }
      if (text.charAt(i) !== '@') continue;
      const digest = /^@sha256:[0-9a-f]{64}(?![A-Za-z0-9_])/.exec(text.slice(i, i + 73));
      if (digest) found.push({ digestStart: i + 1 });
    }
    return found;
  }

  it('ends every reference of an updated repository with its new digest, changing nothing else', () => {
    fc.assert(
      fc.property(textArb, updatesArb, (text, updates) => {
        const { after, result } = rewriteOne(text, 'f.yaml', updates);
        // The expected text: the oracle's references, and only those, get the new digest.
        const digestAt = new Map<number, string>();
        for (const { repository, digest } of updates) {
          for (const ref of referencesOf(text, repository)) digestAt.set(ref.digestStart, digest);
        }
        let expected = '';
        let copied = 0;
        for (const start of [...digestAt.keys()].sort((a, b) => a - b)) {
          expected += text.slice(copied, start) + (digestAt.get(start) ?? '');
          copied = start + 71;
        }
        expected += text.slice(copied);
        assert.equal(after, expected);
        const replacements = result.changes[0]?.replacements ?? [];
        for (const r of replacements)
          assert.equal(r.from.slice(0, r.from.lastIndexOf('@')), r.to.slice(0, r.to.lastIndexOf('@')));
        for (const { repository, digest } of updates) {
          const now = referencesOf(after, repository);
          assert.equal(now.length, referencesOf(text, repository).length);
          for (const ref of now) assert.equal(after.slice(ref.digestStart, ref.digestStart + digest.length), digest);
        }
      }),
      { numRuns: 500 },
    );
  });

  it('is idempotent: a second run with the same updates changes nothing', () => {
    fc.assert(
      fc.property(textArb, updatesArb, (text, updates) => {
        const first = rewriteOne(text, 'f.yaml', updates).after;
        const second = rewriteDigests([{ path: 'f.yaml', text: first }], updates, ALL);
        assert.deepEqual(second.changes, []);
      }),
      { numRuns: 300 },
    );
  });

  it('never touches a file without a digest reference', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 200 }), updatesArb, (text, updates) => {
        fc.pre(!text.includes('@sha256:'));
        const files: RepositoryFile[] = [{ path: 'f.yaml', text }];
        assert.deepEqual(rewriteDigests(files, updates, ALL).changes, []);
      }),
    );
  });
});
