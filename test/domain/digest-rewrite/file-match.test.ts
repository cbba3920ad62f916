import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_NUDGE_FILES,
  InvalidFileMatchError,
  compileFileMatch,
  resolveFileMatch,
  selectMatchingPaths,
  splitFileMatch,
} from '../../../src/domain/digest-rewrite/index.ts';

const DEFAULTS = ['.*Dockerfile.*', '.*.yaml', '.*Containerfile.*'];

describe('resolveFileMatch', () => {
  it('falls back to the Konflux default', () => {
    assert.equal(DEFAULT_NUDGE_FILES, '.*Dockerfile.*, .*.yaml, .*Containerfile.*');
    assert.deepEqual(resolveFileMatch({}), DEFAULTS);
    assert.deepEqual(resolveFileMatch({ buildNudgeFilesAnnotation: '' }), DEFAULTS);
  });

  it('prefers the build-nudge-files annotation over the default', () => {
    assert.deepEqual(resolveFileMatch({ buildNudgeFilesAnnotation: 'bundle-hack/update_bundle.sh' }), [
      'bundle-hack/update_bundle.sh',
    ]);
    assert.deepEqual(resolveFileMatch({ buildNudgeFilesAnnotation: ' a.json ,b.env, ' }), ['a.json', 'b.env']);
  });

  it('prefers the ConfigMap fileMatch (comma list, trimmed) over the annotation', () => {
    const renovateConfigMap = { fileMatch: 'related_images.json, hack/.*\\.sh', labels: 'x' };
    assert.deepEqual(resolveFileMatch({ renovateConfigMap, buildNudgeFilesAnnotation: 'a.sh' }), [
      'related_images.json',
      'hack/.*\\.sh',
    ]);
    assert.deepEqual(resolveFileMatch({ renovateConfigMap: { labels: 'x' }, buildNudgeFilesAnnotation: 'a.sh' }), [
      'a.sh',
    ]);
    assert.deepEqual(resolveFileMatch({ renovateConfigMap: { fileMatch: ' , ' }, buildNudgeFilesAnnotation: 'a.sh' }), [
      'a.sh',
    ]);
  });

  it('lets the per-component ConfigMap replace the namespace-wide one, with no merge or fallback', () => {
    const renovateConfigMap = { fileMatch: 'namespace.yaml' };
    assert.deepEqual(resolveFileMatch({ renovateConfigMap, perComponentConfigMap: { fileMatch: 'mine.yaml' } }), [
      'mine.yaml',
    ]);
    // Named ConfigMap without fileMatch, or missing: the namespace-wide one is not consulted.
    assert.deepEqual(resolveFileMatch({ renovateConfigMap, perComponentConfigMap: { automerge: 'true' } }), DEFAULTS);
    assert.deepEqual(
      resolveFileMatch({ renovateConfigMap, perComponentConfigMap: null, buildNudgeFilesAnnotation: 'b.sh' }),
      ['b.sh'],
    );
  });
});

describe('fileMatch semantics', () => {
  it('matches unanchored regexes against the repository-relative path, as Renovate does', () => {
    const paths = [
      'Dockerfile',
      'build/Dockerfile.bundle',
      'Containerfile',
      'bundle/manifests/x.clusterserviceversion.yaml',
      'catalog/bundle.yaml.orig',
      'docs/yaml/readme.md',
      'values.yml',
      'related_images.json',
      'hack/update_bundle.sh',
    ];
    assert.deepEqual(selectMatchingPaths(paths, DEFAULTS), [
      'Dockerfile',
      'build/Dockerfile.bundle',
      'Containerfile',
      'bundle/manifests/x.clusterserviceversion.yaml',
      'catalog/bundle.yaml.orig',
      'docs/yaml/readme.md',
    ]);
    assert.deepEqual(selectMatchingPaths(paths, ['^related_images\\.json$']), ['related_images.json']);
  });

  it('names a pattern that is not a regular expression', () => {
    assert.deepEqual(splitFileMatch('a,(b'), ['a', '(b']);
    assert.throws(
      () => compileFileMatch(['a', '(b']),
      (error: unknown) =>
        error instanceof InvalidFileMatchError && error.pattern === '(b' && error.message.includes('"(b"'),
    );
  });
});
