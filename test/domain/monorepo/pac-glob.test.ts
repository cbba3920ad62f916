import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PacGlobError, pacGlobMatches } from '../../../src/domain/monorepo/pac-glob.ts';

describe('pacGlobMatches (gobwas/glob without separators, as Pipelines-as-Code compiles it)', () => {
  const cases: [glob: string, path: string, matches: boolean][] = [
    // PaC's documented examples (docs: "Matching PipelineRun by path change", on-path-change)
    ['docs/*.md', 'docs/index.md', true],
    ['docs/*.md', 'docs/guide/deep.md', true], // `*` crosses `/` without separators
    ['docs/*.md', 'docs/index.rst', false],
    ['docs/*.md', 'other/docs/index.md', false], // anchored at the start
    ['docs/**.md', 'docs/a/b/c.md', true],
    ['manual/**.rst', 'manual/x.rst', true],
    ['frontend/***', 'frontend/src/app.ts', true],
    ['frontend/***', 'frontend', false],
    ['***.go', 'main.go', true],
    ['***.go', 'pkg/x/y.go', true],
    ['***.go', 'main.go.orig', false], // anchored at the end
    ['*', 'any/path/at/all', true],
    ['Dockerfile', 'Dockerfile', true],
    ['Dockerfile', 'sub/Dockerfile', false],
    ['.tekton/op-a-*.yaml', '.tekton/op-a-push.yaml', true],
    ['.tekton/op-a-*.yaml', '.tekton/op-b-push.yaml', false],
    // gobwas/glob's README examples
    ['?at', 'cat', true],
    ['?at', 'at', false],
    ['[abc]at', 'bat', true],
    ['[abc]at', 'fat', false],
    ['[!abc]at', 'fat', true],
    ['[!abc]at', 'cat', false],
    ['[a-c]at', 'cat', true],
    ['[!a-c]at', 'cat', false],
    ['{cat,bat,[fr]at}', 'rat', true],
    ['{cat,bat,[fr]at}', 'mat', false],
    ['src/{a,b/*}/x', 'src/b/c/d/x', true],
    ['\\*', '*', true],
    ['\\*', 'a', false],
    ['a.b', 'aXb', false], // `.` is literal
    ['a+(b)|c$', 'a+(b)|c$', true],
    ['[a-]x', '-x', true],
  ];
  for (const [glob, path, matches] of cases) {
    it(`${glob} ${matches ? 'matches' : 'does not match'} ${path}`, () => {
      assert.equal(pacGlobMatches(glob, path), matches);
    });
  }

  it('refuses what gobwas/glob does not compile, naming the glob', () => {
    for (const glob of ['[abc', 'src/{a,b', 'a\\', '[z-a]']) {
      assert.throws(
        () => pacGlobMatches(glob, 'x'),
        (error: unknown) =>
          error instanceof PacGlobError && error.glob === glob && error.message.includes(JSON.stringify(glob)),
        glob,
      );
    }
  });
});
