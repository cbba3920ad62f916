import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { matchingGlobs, pathChangedMatches, readPathChanged } from '../../../src/domain/monorepo/path-changed.ts';

describe('readPathChanged', () => {
  it('a missing expression is "*".pathChanged()', () => {
    const reading = readPathChanged(undefined);
    assert.deepEqual(reading, { globs: ['*'], understood: true });
    assert.equal(pathChangedMatches(reading, 'any/file'), true);
  });

  it('reads a simple call', () => {
    assert.deepEqual(readPathChanged('"docs/*.md".pathChanged()'), { globs: ['docs/*.md'], understood: true });
  });

  it('reads build-service shaped expressions through && and ||, ignoring event conditions', () => {
    const reading = readPathChanged(
      'event == "push" && target_branch == "main" && ("src/a/***".pathChanged() || "Dockerfile".pathChanged())',
    );
    assert.deepEqual(reading, { globs: ['src/a/***', 'Dockerfile'], understood: true });
    assert.equal(pathChangedMatches(reading, 'src/a/x/y.go'), true);
    assert.equal(pathChangedMatches(reading, 'src/b/y.go'), false);
    assert.deepEqual(matchingGlobs(reading, 'Dockerfile'), ['Dockerfile']);
  });

  it('takes the union of an && of paths (an over-approximation) and drops repeats', () => {
    assert.deepEqual(readPathChanged('"a/*".pathChanged() && ("b/*".pathChanged() || "a/*".pathChanged())'), {
      globs: ['a/*', 'b/*'],
      understood: true,
    });
  });

  it('reads nested groups and multi-line text', () => {
    const reading = readPathChanged(`event == "pull_request" &&
      target_branch == "main" &&
      ( ".tekton/op-a-*.yaml".pathChanged() ||
        ("operands/op-a/***".pathChanged() || ("common/***".pathChanged())) )`);
    assert.deepEqual(reading.globs, ['.tekton/op-a-*.yaml', 'operands/op-a/***', 'common/***']);
    assert.equal(reading.understood, true);
  });

  it('an expression on events only matches every file', () => {
    assert.deepEqual(readPathChanged('event == "push" && !source_branch.startsWith("wip")'), {
      globs: ['*'],
      understood: true,
    });
  });

  it('a negated pathChanged is not understood, and then matches everything', () => {
    const reading = readPathChanged('event == "push" && !"docs/***".pathChanged()');
    assert.equal(reading.understood, false);
    assert.deepEqual(reading.globs, ['docs/***']);
    assert.match(reading.reason ?? '', /pipelinesascode\.tekton\.dev\/on-cel-expression/);
    assert.equal(pathChangedMatches(reading, 'src/x'), true);
    assert.deepEqual(matchingGlobs(reading, 'src/x'), []);
  });

  it('a pathChanged in an || with a non-path condition is not understood', () => {
    const reading = readPathChanged('event == "push" || "src/***".pathChanged()');
    assert.equal(reading.understood, false);
    assert.match(reading.reason ?? '', /\|\|/);
  });

  it('other shapes around pathChanged, and files.*, are not understood', () => {
    for (const expression of [
      '"a".pathChanged() == true',
      'event == "push" ? "a".pathChanged() : true',
      '("a" + "b").pathChanged()',
      'files.all.exists(x, x.matches("src/"))',
      'event == "push" && files.modified.size() > 0',
      '"[abc".pathChanged()',
    ]) {
      const reading = readPathChanged(expression);
      assert.equal(reading.understood, false, expression);
      assert.ok(reading.reason?.startsWith('pipelinesascode.tekton.dev/on-cel-expression: '), expression);
    }
  });

  it('a parse error is not understood, with the annotation named', () => {
    const reading = readPathChanged('event == "push" &&');
    assert.equal(reading.understood, false);
    assert.deepEqual(reading.globs, []);
    assert.match(reading.reason ?? '', /^pipelinesascode\.tekton\.dev\/on-cel-expression: not a CEL expression/);
    assert.equal(pathChangedMatches(reading, 'x'), true);
  });
});
