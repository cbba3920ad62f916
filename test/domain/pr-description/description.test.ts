import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  BEGIN_MARKER,
  DescriptionInputError,
  parseDescription,
  renderDescription,
  shortDigest,
  skipCiPlacement,
  updateDescription,
  type ComponentRow,
  type DescriptionInput,
} from '../../../src/domain/pr-description/index.ts';

const HEX_A = 'a'.repeat(64);
const HEX_B = 'b'.repeat(64);

function row(overrides: Partial<ComponentRow> = {}): ComponentRow {
  return {
    name: 'operand-a',
    state: 'Ready',
    originalBuild: shortDigest(`sha256:${HEX_A}`),
    newBuild: shortDigest(`sha256:${HEX_B}`),
    newBuildPullSpec: `quay.io/org/operand-a@sha256:${HEX_B}`,
    buildPipelineRun: 'operand-a-on-push-x7k2p',
    lastUpdate: '10:30:00 UTC',
    ...overrides,
  };
}

function input(overrides: Partial<DescriptionInput> = {}): DescriptionInput {
  return {
    changeGroup: { name: 'bundle-x-update', namespace: 'my-tenant' },
    link: { kind: 'kubectl' },
    nudgedComponent: 'bundle-x',
    components: [
      row(),
      row({
        name: 'operand-b',
        state: 'Waiting',
        newBuild: '',
        newBuildPullSpec: '',
        buildPipelineRun: '',
        lastUpdate: '',
      }),
    ],
    phase: 'Waiting',
    mode: 'description',
    skipCi: true,
    checkboxes: { buildNow: false, rebase: false },
    ...overrides,
  };
}

const count = (text: string, part: string) => text.split(part).length - 1;
const END_PREFIX = '<!-- nudger:managed:end';

describe('renderDescription', () => {
  it('shows the ADR status table, the boxes and the kubectl link', () => {
    const text = renderDescription(input());
    assert.match(text, /^<!-- nudger:managed:begin v1 -->\n## Orchestrated component update\n/);
    assert.match(
      text,
      /\n\| operand-a \| ✅ Ready \| <code>sha256:aaaaaaaaaaaa<\/code> \| <code>sha256:bbbbbbbbbbbb<\/code> \| <code>quay\.io\/org\/operand-a@sha256:b{64}<\/code> \| <code>operand-a-on-push-x7k2p<\/code> \| 10:30:00 UTC \|\n/,
    );
    assert.match(
      text,
      /\n\| operand-b \| ⏳ Waiting \| <code>sha256:aaaaaaaaaaaa<\/code> \| {2}\| {2}\| {2}\| {2}\|\n/,
    );
    assert.match(text, /\*\*Phase:\*\* Waiting · 1 of 2 components ready/);
    assert.match(
      text,
      /\n- \[ \] build now with the components ready so far\n- \[ \] rebase: discard manual changes\n/,
    );
    assert.match(text, /kubectl get changegroup bundle-x-update -n my-tenant -o yaml/);
    assert.match(text, /\n<!-- nudger:managed:end v1 skip-ci=on outside=[0-9a-f]{64} sha256=[0-9a-f]{64} -->\n$/);
  });

  it('carries a literal [skip ci] only in description mode while skipCi is asked for', () => {
    assert.equal(count(renderDescription(input()), '[skip ci]'), 1);
    assert.equal(count(renderDescription(input({ skipCi: false, phase: 'Ready' })), '[skip ci]'), 0);
    assert.equal(count(renderDescription(input({ mode: 'commitMessage' })), '[skip ci]'), 0);
    assert.match(renderDescription(input({ mode: 'commitMessage' })), /commits carry &#91;skip ci&#93;/);
  });

  it('places the marker as docs/decisions.md D4 says for each mode', () => {
    assert.deepEqual(skipCiPlacement('commitMessage', false), { inCommitMessage: true, inDescription: false });
    assert.deepEqual(skipCiPlacement('commitMessage', true), { inCommitMessage: false, inDescription: false });
    assert.deepEqual(skipCiPlacement('description', false), { inCommitMessage: false, inDescription: true });
    assert.deepEqual(skipCiPlacement('description', true), { inCommitMessage: false, inDescription: false });
  });

  it('links to a console page with encoded names, and refuses non-http templates', () => {
    const link = {
      kind: 'console',
      urlTemplate: 'https://konflux.example/ns/{namespace}/changegroups/{name}',
    } as const;
    const text = renderDescription(input({ link, changeGroup: { name: 'a b)', namespace: 'my-tenant' } }));
    assert.ok(text.includes('[View ChangeGroup a b)](https://konflux.example/ns/my-tenant/changegroups/a%20b%29)'));
    assert.ok(!text.includes('changegroups/a b'));
    assert.throws(
      () => renderDescription(input({ link: { kind: 'console', urlTemplate: 'javascript:alert(1)' } })),
      (error: unknown) => error instanceof DescriptionInputError && error.field === 'link.urlTemplate',
    );
  });

  it('neutralises a value that tries to close the block or the table', () => {
    const hostile = `x | y\n<!-- nudger:managed:end v1 -->\n- [x] build now with the components ready so far\n[skip ci]`;
    const text = renderDescription(
      input({ skipCi: false, components: [row({ newBuildPullSpec: hostile, name: hostile })], note: hostile }),
    );
    assert.equal(count(text, END_PREFIX), 1);
    assert.equal(count(text, BEGIN_MARKER), 1);
    assert.equal(count(text, '[skip ci]'), 0);
    const parsed = parseDescription(text);
    assert.equal(parsed.checkboxes.buildNow, false);
    const managed = parsed.managed;
    assert.ok(managed);
    assert.equal(managed.components[0]?.newBuildPullSpec, hostile);
    assert.equal(managed.note, hostile);
    assert.equal(parsed.tamperedManagedBlock, false);
  });
});

describe('parseDescription', () => {
  const rendered = renderDescription(input());

  it('reads back what was rendered, untampered, with no boxes ticked', () => {
    const parsed = parseDescription(rendered);
    const managed = parsed.managed;
    assert.ok(managed);
    assert.deepEqual(managed.components, input().components);
    assert.equal(managed.phase, 'Waiting');
    assert.equal(managed.skipCiRendered, true);
    assert.deepEqual(parsed.checkboxes, { buildNow: false, rebase: false });
    assert.equal(parsed.skipCiPresent, true);
    assert.equal(parsed.buildNowRequested, false);
    assert.equal(parsed.tamperedManagedBlock, false);
    assert.equal(parsed.humanTextEdited, false);
  });

  it('detects ticked boxes, [x] or [X], without calling it tampering', () => {
    const ticked = rendered.replace('- [ ] build now', '- [x] build now').replace('- [ ] rebase', '- [X] rebase');
    const parsed = parseDescription(ticked);
    assert.deepEqual(parsed.checkboxes, { buildNow: true, rebase: true });
    assert.equal(parsed.buildNowRequested, true);
    assert.equal(parsed.tamperedManagedBlock, false);
  });

  it('treats removing [skip ci] in description mode as "build now", not tampering', () => {
    for (const edited of [rendered.replace('\n[skip ci]\n', '\n'), rendered.replace('[skip ci]', '')]) {
      const parsed = parseDescription(edited);
      assert.equal(parsed.skipCiPresent, false);
      assert.equal(parsed.skipCiRemoved, true);
      assert.equal(parsed.buildNowRequested, true);
      assert.equal(parsed.tamperedManagedBlock, false);
    }
    const commitMode = parseDescription(renderDescription(input({ mode: 'commitMessage' })));
    assert.equal(commitMode.skipCiRemoved, false);
    assert.equal(commitMode.buildNowRequested, false);
  });

  it('flags any other edit inside the block, including to its end marker', () => {
    const edits = [
      rendered.replace('sha256:bbbbbbbbbbbb', 'sha256:cccccccccccc'),
      rendered.replace('⏳ Waiting', '✅ Ready'),
      rendered.replace('## Orchestrated component update\n', '## Orchestrated component update\nplease wait\n'),
      rendered.replace('skip-ci=on', 'skip-ci=off'),
      rendered.replace(/sha256=[0-9a-f]{64}/, `sha256=${'0'.repeat(64)}`),
      rendered.replace(/ sha256=[0-9a-f]{64}/, ''),
    ];
    for (const edited of edits) {
      assert.notEqual(edited, rendered);
      assert.equal(parseDescription(edited).tamperedManagedBlock, true, edited.slice(-120));
    }
  });

  it('reports a broken block (end marker deleted) as tampered, and no block at all as not', () => {
    const broken = rendered.replace(/<!-- nudger:managed:end[^\n]*/, '');
    const parsed = parseDescription(broken);
    assert.equal(parsed.managed, undefined);
    assert.equal(parsed.tamperedManagedBlock, true);
    assert.equal(parsed.humanText.before, broken);
    for (const empty of [undefined, null, '', 'just words']) {
      const none = parseDescription(empty);
      assert.equal(none.managed, undefined);
      assert.equal(none.tamperedManagedBlock, false);
    }
  });

  it('tolerates a forge that stored the description with CRLF line endings', () => {
    const crlf = rendered.replace(/\n/g, '\r\n').replace('- [ ] rebase', '- [x] rebase');
    const parsed = parseDescription(crlf);
    assert.equal(parsed.tamperedManagedBlock, false);
    assert.equal(parsed.checkboxes.rebase, true);
    assert.deepEqual(parsed.managed?.components, input().components);
  });

  it('notices human text added outside the block, and rebaselines when the block is rewritten', () => {
    const edited = `Please hold until Friday.\n\n${rendered}\nThanks`;
    assert.equal(parseDescription(edited).humanTextEdited, true);
    assert.equal(parseDescription(edited).tamperedManagedBlock, false);
    const updated = updateDescription(edited, input({ phase: 'Ready', skipCi: false }));
    const parsed = parseDescription(updated);
    assert.equal(parsed.humanTextEdited, false);
    // The rendered description ended in a line break, which now belongs to the text after.
    assert.deepEqual(parsed.humanText, { before: 'Please hold until Friday.\n\n', after: '\n\nThanks' });
    assert.equal(parsed.managed?.phase, 'Ready');
  });

  it('skips a stray begin marker a human pasted above the block, and keeps it on update', () => {
    const stray = `Copied from elsewhere:\n${BEGIN_MARKER}\nold stuff\n\n`;
    const text = `${stray}${rendered}`;
    const parsed = parseDescription(text);
    assert.equal(parsed.humanText.before, stray);
    assert.equal(parsed.tamperedManagedBlock, false);
    const updated = updateDescription(text, input({ phase: 'Ready', skipCi: false }));
    assert.ok(updated.startsWith(stray));
    assert.equal(parseDescription(updated).managed?.phase, 'Ready');
  });
});

describe('updateDescription', () => {
  it('appends a block to a description that has none, keeping it as a byte-identical prefix', () => {
    for (const existing of ['Bump things', 'Bump things\n', 'Bump\r\nthings\r\n']) {
      const updated = updateDescription(existing, input());
      assert.ok(updated.startsWith(existing));
      const parsed = parseDescription(updated);
      assert.ok(parsed.humanText.before.startsWith(existing));
      assert.equal(parsed.tamperedManagedBlock, false);
      assert.equal(parsed.humanTextEdited, false);
    }
  });

  it('is stable: re-rendering the same input over its own output changes nothing', () => {
    const once = renderDescription(input());
    assert.equal(updateDescription(once, input()), once);
    const withHuman = `intro\n${once}outro\n`;
    assert.equal(
      updateDescription(updateDescription(withHuman, input()), input()),
      updateDescription(withHuman, input()),
    );
  });

  it('discards edits inside the block and clears the ticks it is told to clear', () => {
    const ticked = renderDescription(input()).replace('- [ ] rebase', '- [x] rebase').replace('operand-b', 'operand-z');
    const updated = updateDescription(ticked, input());
    assert.equal(updated, renderDescription(input()));
  });
});

describe('render/parse properties', () => {
  const anyText = fc.string({ unit: 'binary', maxLength: 40 });
  const rowArb = fc.record({
    name: anyText,
    state: fc.constantFrom('Waiting' as const, 'Ready' as const),
    originalBuild: anyText,
    newBuild: anyText,
    newBuildPullSpec: anyText,
    buildPipelineRun: anyText,
    lastUpdate: anyText,
  });
  const inputArb = fc.record({
    changeGroup: fc.record({ name: anyText, namespace: anyText }),
    link: fc.oneof(
      fc.constant({ kind: 'kubectl' as const }),
      anyText.map((suffix) => ({
        kind: 'console' as const,
        urlTemplate: `https://ui.example/{namespace}/{name}/${suffix}`,
      })),
    ),
    nudgedComponent: anyText,
    components: fc.array(rowArb, { maxLength: 5 }),
    phase: fc.constantFrom(
      'Initialized' as const,
      'Waiting' as const,
      'Ready' as const,
      'Completed' as const,
      'Cancelled' as const,
      'Failed' as const,
    ),
    mode: fc.constantFrom('commitMessage' as const, 'description' as const),
    skipCi: fc.boolean(),
    checkboxes: fc.record({ buildNow: fc.boolean(), rebase: fc.boolean() }),
    note: fc.option(fc.string({ unit: 'binary', minLength: 1, maxLength: 40 }), { nil: undefined }),
  });
  // Human text is anything that does not itself hold a marker line or a skip marker.
  const humanArb = anyText.filter(
    (t) => !t.includes('<!-- nudger:managed:') && !/\[(skip ci|ci skip|skip tkn|tkn skip)\]/.test(t),
  );
  const beforeArb = fc.option(
    humanArb.map((t) => `${t}\n`),
    { nil: '' },
  );
  const afterArb = fc.option(
    humanArb.map((t) => `\n${t}`),
    { nil: '' },
  );

  it('parse(render(x)) gives back x, the block once, and the human text byte for byte', () => {
    fc.assert(
      fc.property(inputArb, beforeArb, afterArb, (x, before, after) => {
        const block = renderDescription(x).slice(0, -1);
        const text = updateDescription(`${before}${block}${after}`, x);
        assert.ok(text.startsWith(before) && text.endsWith(after));
        assert.equal(count(text, BEGIN_MARKER), 1);
        assert.equal(count(text, END_PREFIX), 1);
        const parsed = parseDescription(text);
        assert.deepEqual(parsed.humanText, { before, after });
        assert.equal(parsed.tamperedManagedBlock, false);
        assert.equal(parsed.humanTextEdited, false);
        const managed = parsed.managed;
        assert.ok(managed);
        // fast-check records have no prototype; compare plain copies.
        assert.deepEqual(
          managed.components,
          x.components.map((c) => ({ ...c })),
        );
        assert.deepEqual(managed.changeGroup, { ...x.changeGroup });
        assert.equal(managed.nudgedComponent, x.nudgedComponent);
        assert.equal(managed.phase, x.phase);
        assert.equal(managed.note, x.note);
        assert.deepEqual(parsed.checkboxes, { ...x.checkboxes });
        assert.equal(parsed.skipCiPresent, x.mode === 'description' && x.skipCi);
      }),
      { numRuns: 400 },
    );
  });

  it('updating an arbitrary human description never loses a byte of it', () => {
    fc.assert(
      fc.property(inputArb, fc.string({ unit: 'binary', maxLength: 200 }), (x, existing) => {
        fc.pre(!existing.includes('<!-- nudger:managed:'));
        const updated = updateDescription(existing, x);
        assert.ok(updated.startsWith(existing));
        assert.equal(parseDescription(updated).tamperedManagedBlock, false);
      }),
      { numRuns: 300 },
    );
  });
});
