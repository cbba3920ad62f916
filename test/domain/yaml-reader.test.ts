// The one YAML reader of validate and migrate: what it repairs, and how offsets of the text it read
// map back to the file as written (the migration edits that file).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { OffsetMap } from '../../src/domain/offset-map.ts';
import { YamlReadError, documentValue, readYamlDocuments } from '../../src/domain/yaml-reader.ts';

const CRD = readFileSync(new URL('../fixtures/hardening/widgetpool-crd.yaml', import.meta.url), 'utf8');

describe('OffsetMap', () => {
  it('maps across deletions, before the deleted characters at their position', () => {
    // "a\r\nb\r\nc" read as "a\nb\nc": the CRs at 1 and 4 are gone.
    const map = new OffsetMap();
    map.splice(1, -1);
    map.splice(4, -1);
    assert.deepEqual(
      [0, 1, 2, 3, 4, 5].map((offset) => map.toOriginal(offset)),
      [0, 1, 3, 4, 6, 7],
    );
  });

  it('maps across insertions, offsets inside inserted text to where it was inserted', () => {
    // "ab\ncd\nef" with two spaces inserted at 3 and one at 6: "ab\n  cd\n ef".
    const map = new OffsetMap();
    map.splice(3, 2);
    map.splice(6, 1);
    assert.deepEqual(
      [0, 3, 4, 5, 6, 7, 8, 9, 10].map((offset) => map.toOriginal(offset)),
      [0, 3, 3, 3, 4, 5, 6, 6, 7],
    );
  });

  it('is the identity without splices', () => {
    const map = new OffsetMap();
    assert.equal(map.empty, true);
    assert.equal(map.toOriginal(42), 42);
  });
});

describe('readYamlDocuments', () => {
  it("reads controller-gen's under-indented quoted scalars, offsets mapped to the file as written", () => {
    const [read] = [...readYamlDocuments(CRD)];
    assert.ok(read !== undefined);
    assert.notEqual(read.source, CRD, 'the text read was repaired');
    const value = documentValue(read) as { spec: { versions: { additionalPrinterColumns: { name: string }[] }[] } };
    assert.equal(value.spec.versions[0]?.additionalPrinterColumns[1]?.name, 'Warm');
    // A key after the repaired scalars: its offset in the text read maps to the same key in the file.
    const node = read.doc.getIn(['spec', 'versions', 0, 'additionalPrinterColumns', 1, 'jsonPath'], true) as {
      range: [number, number, number];
    };
    const [start, end] = [read.toInput(node.range[0]), read.toInput(node.range[1])];
    assert.equal(CRD.slice(start, end), '.status.warm');
  });

  it('reads CR-only and CRLF line ends as LF, offsets mapped to the file as written', () => {
    const lf = 'a: 1\nb:\n  - x\n---\nc: "q\n  r"\n';
    const expected = [...readYamlDocuments(lf)].map(documentValue);
    for (const eol of ['\r', '\r\n']) {
      const text = lf.replaceAll('\n', eol);
      const reads = [...readYamlDocuments(text)];
      assert.deepEqual(reads.map(documentValue), expected, JSON.stringify(eol));
      const second = reads[1];
      const node = second?.doc.get('c', true) as { range: [number, number, number] } | undefined;
      assert.ok(second !== undefined && node !== undefined);
      assert.equal(text.slice(second.toInput(node.range[0]), second.toInput(node.range[1])), `"q${eol}  r"`);
      assert.equal(second.toInput(second.doc.range[2]), text.length);
    }
  });

  it('reports runaway nesting with a position, not a stack overflow', () => {
    for (const text of [`a: ${'['.repeat(10_000)}${']'.repeat(10_000)}\n`, `a:\n  ${'- '.repeat(10_000)}x\n`]) {
      assert.throws(
        () => [...readYamlDocuments(text)].map(documentValue),
        (error: unknown) => error instanceof YamlReadError && error.reason.includes('nest') && error.line >= 1,
      );
    }
  });
});
