// migrate reads plain manifests with the fast reader validate uses (src/domain/migrate-simple-source.ts)
// and anything else through `yaml`: both must give the same data, the same lines, the same document
// spans and the same prepared removal of build-nudges-ref, or the migration would write different
// files depending on which reader read them.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import type { Locator } from '../../src/domain/migrate-model.ts';
import { readSimpleSource } from '../../src/domain/migrate-simple-source.ts';
import { prepareNudgesRefRemoval } from '../../src/domain/migrate-yaml.ts';
import { readYamlSource } from '../../src/domain/migrate-yaml-source.ts';

const PATHS: readonly (readonly (string | number)[])[] = [
  [],
  ['metadata'],
  ['metadata', 'name'],
  ['spec'],
  ['spec', 'build-nudges-ref'],
  ['spec', 'build-nudges-ref', 0],
  ['spec', 'build-nudges-ref', 1],
  ['spec', 'nope', 'x'],
];

/** What the migration takes from each document: its data and the lines a message may name. */
const classify = (value: unknown, locate: Locator): unknown => ({ value, lines: PATHS.map((path) => locate(path)) });

const bothWays = (text: string) => ({
  fast: readSimpleSource('f.yaml', text, classify),
  yaml: readYamlSource('f.yaml', text, classify, prepareNudgesRefRemoval),
});

const refs = fc.oneof(
  fc.constant('  build-nudges-ref:\n    - b\n    - c\n'),
  fc.constant('  build-nudges-ref:\n  - b # the bundle\n\n  - c\n'),
  fc.constant('  build-nudges-ref: [b, c]\n'),
  fc.constant('  build-nudges-ref: []   # none yet\n'),
  fc.constant('  build-nudges-ref:\n'),
  fc.constant('  build-nudges-ref:\n    - b\n    # c comes later\n'),
);

const component = fc
  .record({
    name: fc.constantFrom('a', 'widget-api', 'x1'),
    before: fc.constantFrom('', '  application: shop\n', '  # owned by team shop\n'),
    refs: fc.option(refs, { nil: undefined }),
    after: fc.constantFrom(
      '',
      '  containerImage: quay.io/shop/a\n',
      '  source:\n    git:\n      url: https://example.com/a\n',
    ),
  })
  .map(
    ({ name, before, refs: list, after }) =>
      `apiVersion: appstudio.redhat.com/v1alpha1\nkind: Component\nmetadata:\n  name: ${name}\n  namespace: shop\nspec:\n${before}${list ?? ''}${after}`,
  )
  .filter((text) => !text.endsWith('spec:\n'));

const other = fc.constantFrom(
  'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: v\n',
  'resources:\n  - a.yaml\n',
);

const file = fc
  .record({
    header: fc.constantFrom('', '# tenant shop\n', '---\n', '# tenant shop\n\n---\n'),
    documents: fc.array(fc.oneof(component, other), { minLength: 1, maxLength: 4 }),
    separators: fc.array(fc.constantFrom('---\n', '\n---\n', '# next\n---\n', '--- # next\n'), {
      minLength: 3,
      maxLength: 3,
    }),
    tail: fc.constantFrom('', '# end\n', '\n'),
    eol: fc.constantFrom('\n', '\r\n', '\r'),
    finalNewline: fc.boolean(),
  })
  .map(({ header, documents, separators, tail, eol, finalNewline }) => {
    const body = documents.map((doc, i) => (i === 0 ? doc : `${separators[i - 1] ?? '---\n'}${doc}`)).join('');
    const text = `${header}${body}${tail}`;
    return (finalNewline ? text : text.replace(/\n$/, '')).replaceAll('\n', eol);
  });

describe('readSimpleSource', () => {
  it('reads plain manifests exactly as the yaml path does: data, lines, spans and prepared removals', () => {
    let read = 0;
    fc.assert(
      fc.property(file, (text) => {
        const { fast, yaml } = bothWays(text);
        // Left to yaml only when a document before the last ends with an empty value (`key:`).
        if (fast === undefined) {
          assert.match(text, /:(\r\n?|\n)/);
          return;
        }
        read++;
        assert.deepEqual(fast, yaml);
      }),
      { numRuns: 400 },
    );
    assert.ok(read > 300, `read ${String(read)} of 400 fast`);
  });

  it('leaves to yaml what it does not read as yaml does: empty documents, anchors, nothing at all', () => {
    for (const text of [
      'a: 1\n---\n',
      'a: 1\n---\n---\nb: 2\n',
      'a: &x 1\nb: *x\n',
      '# only a comment\n',
      '',
      'a: |\n  text\n',
      'a:\n---\nb: 1\n',
    ]) {
      assert.equal(bothWays(text).fast, undefined, JSON.stringify(text));
    }
  });
});
