// Several builds' digests in one commit (docs/decisions.md D6, N10, N28): each in the files its own
// fileMatch selects, what each pinned before, which are not referenced, and a distribution name two
// builds claim with different digests left to neither.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  pathMatches,
  rewriteDigestSources,
  sourceFileMatchers,
  type DigestSource,
} from '../../../src/domain/digest-rewrite/index.ts';

const d = (c: string): string => `sha256:${c.repeat(64)}`;
const source = (name: string, c: string, overrides: Partial<DigestSource> = {}): DigestSource => ({
  name,
  pullSpec: `quay.io/acme/${name}@${d(c)}`,
  digest: d(c),
  distributionRepositories: [],
  fileMatch: ['.*\\.yaml'],
  ...overrides,
});

const FILES = [
  {
    path: 'a.yaml',
    text: `x: quay.io/acme/a@${d('0')}\ny: quay.io/acme/b:v1@${d('1')}\nz: registry.io/shared@${d('0')}\n`,
  },
  { path: 'b.env', text: `B=quay.io/acme/b@${d('2')}\nA=quay.io/acme/a@${d('0')}\n` },
];

describe('rewriteDigestSources', () => {
  it('rewrites each source only where its own fileMatch looks, and says what each pinned before', () => {
    const sources = [source('a', 'a'), source('b', 'b', { fileMatch: ['.*\\.env'] }), source('c', 'c')];
    const result = rewriteDigestSources(FILES, sources);
    assert.deepEqual(result.files, [
      {
        path: 'a.yaml',
        text: `x: quay.io/acme/a@${d('a')}\ny: quay.io/acme/b:v1@${d('1')}\nz: registry.io/shared@${d('0')}\n`,
      },
      { path: 'b.env', text: `B=quay.io/acme/b@${d('b')}\nA=quay.io/acme/a@${d('0')}\n` },
    ]);
    assert.deepEqual(Object.fromEntries(result.previousDigests), { a: d('0'), b: d('2') });
    assert.deepEqual(result.unreferenced, ['c']);
    const matchers = sourceFileMatchers(sources);
    assert.deepEqual(
      FILES.map((f) => pathMatches(f.path, matchers)),
      [true, true],
    );
  });

  it('leaves a distribution name two sources claim with different digests to neither', () => {
    const shared = { distributionRepositories: ['registry.io/shared'] };
    const contested = rewriteDigestSources(FILES, [source('a', 'a', shared), source('c', 'c', shared)]);
    assert.match(contested.files[0]?.text ?? '', new RegExp(`z: registry.io/shared@${d('0')}`));
    const alone = rewriteDigestSources(FILES, [source('a', 'a', shared)]);
    assert.match(alone.files[0]?.text ?? '', new RegExp(`z: registry.io/shared@${d('a')}`));
  });

  it('changes nothing already pinned, and knows it is referenced', () => {
    const result = rewriteDigestSources(FILES, [source('a', '0')]);
    assert.deepEqual([result.files, [...result.previousDigests], result.unreferenced], [[], [], []]);
  });
});
