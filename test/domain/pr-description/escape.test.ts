import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { escapeMarkdown, escapeUrlForMarkdown, unescapeMarkdown } from '../../../src/domain/pr-description/escape.ts';

describe('escapeMarkdown', () => {
  it('neutralises table, emphasis, link, code and comment syntax', () => {
    assert.equal(escapeMarkdown('a|b'), 'a&#124;b');
    assert.equal(escapeMarkdown('<!-- x -->'), '&#60;!-- x --&#62;');
    assert.equal(escapeMarkdown('*_`[]\\~$&'), '&#42;&#95;&#96;&#91;&#93;&#92;&#126;&#36;&#38;');
    assert.equal(escapeMarkdown('a\nb\r'), 'a&#10;b&#13;');
    assert.equal(escapeMarkdown(' a b '), '&#32;a b&#32;');
    assert.equal(escapeMarkdown('quay.io/org/a@sha256:0f'), 'quay.io/org/a@sha256:0f');
  });

  it('round-trips any string and never emits a character that has meaning in a table cell', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 80 }), (value) => {
        const escaped = escapeMarkdown(value);
        assert.equal(unescapeMarkdown(escaped), value);
        assert.doesNotMatch(escaped, /[|<>`*_[\]\\~$\n\r\u2028\u2029]/);
        assert.equal(escaped, escaped.trim());
      }),
      { numRuns: 2000 },
    );
  });

  it('keeps a pre-escaped entity in a value literal', () => {
    assert.equal(unescapeMarkdown(escapeMarkdown('&#124;')), '&#124;');
  });
});

describe('escapeUrlForMarkdown', () => {
  it('percent-encodes what would end a link destination and keeps existing escapes', () => {
    assert.equal(escapeUrlForMarkdown('https://x/a b)(<>"%41'), 'https://x/a%20b%29%28%3C%3E%22%41');
    assert.equal(escapeUrlForMarkdown('https://x/é'), 'https://x/%C3%A9');
  });
});
