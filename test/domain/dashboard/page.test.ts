// The dashboard's document frame (issue 14, docs/decisions.md D14): head, navigation with the
// current tab marked, the live <main>, the not-found and login documents; hostile values escaped;
// and the one door to SafeHtml (SafeHtml.trusted) used by html.ts alone, which keeps escaping
// the rule for every view.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { html } from '../../../src/domain/dashboard/html.ts';
import { renderLoginForm, renderNotFound, renderPage } from '../../../src/domain/dashboard/page.ts';
import type { PageInput } from '../../../src/domain/dashboard/page.ts';
import {
  IMG,
  IMG_ESCAPED,
  PAGE_SCRIPT,
  SCRIPT,
  SCRIPT_ESCAPED,
  assertEscaped,
  assertInert,
} from './snapshot-fixtures.ts';

const CONTEXT = { now: Date.parse('2026-01-15T12:00:00Z'), korifi: false };

function page(overrides: Partial<PageInput> = {}): string {
  return renderPage({
    title: 'Graph',
    main: html`<p>view</p>`,
    live: '/ns/team-a/graph',
    context: CONTEXT,
    ...overrides,
  }).text;
}

/** The `<a>` tags carrying aria-current. */
function currentLinks(text: string): string[] {
  return [...text.matchAll(/<a [^>]*aria-current="page"[^>]*>[^<]*<\/a>/g)].map(([link]) => link);
}

describe('renderPage', () => {
  it('writes a whole document that loads only the dashboard stylesheet and module', () => {
    const text = page();
    assert.ok(text.startsWith('<!doctype html>'));
    assert.match(text, /<meta charset="utf-8"/);
    assert.match(text, /<link rel="stylesheet" href="\/assets\/dashboard.css"/);
    assert.equal(text.split(PAGE_SCRIPT).length - 1, 1);
    assert.match(text, /<title>Graph · nudger<\/title>/);
    assert.match(text, /<main id="view" data-live="\/ns\/team-a\/graph"><p>view<\/p><\/main>/);
    assertInert(text);
  });

  it("shows a namespace's tabs and marks only the current one", () => {
    const text = page({ namespace: 'team-a', tab: 'changegroups' });
    for (const tab of ['graph', 'changegroups', 'nudges']) assert.ok(text.includes(`href="/ns/team-a/${tab}"`), tab);
    assert.deepEqual(currentLinks(text), [
      '<a class="tab" href="/ns/team-a/changegroups" aria-current="page">ChangeGroups</a>',
    ]);
    assert.ok(text.includes('<a class="tab" href="/">Namespaces</a>'));
  });

  it('marks Namespaces on the top-level page and has no namespace tabs there', () => {
    const text = page({ title: 'Namespaces', live: '/' });
    assert.deepEqual(currentLinks(text), ['<a class="tab" href="/" aria-current="page">Namespaces</a>']);
    assert.ok(!text.includes('/ns/'));
  });

  it('links Korifi only when its controllers run, and marks it on its page', () => {
    assert.ok(!page().includes('href="/korifi"'));
    const withKorifi = page({ context: { ...CONTEXT, korifi: true } });
    assert.ok(withKorifi.includes('<a class="tab" href="/korifi">Korifi</a>'));
    const korifiPage = page({ section: 'korifi', live: '/korifi', context: { ...CONTEXT, korifi: true } });
    assert.deepEqual(currentLinks(korifiPage), ['<a class="tab" href="/korifi" aria-current="page">Korifi</a>']);
  });

  it('escapes a hostile title, namespace and live path', () => {
    const text = page({ title: SCRIPT, namespace: IMG, tab: 'graph', live: IMG });
    assert.ok(text.includes(`<title>${SCRIPT_ESCAPED} · nudger</title>`));
    assert.ok(text.includes(`data-live="${IMG_ESCAPED}"`));
    assert.ok(text.includes(`>${IMG_ESCAPED}</span>`));
    // The namespace in a tab's URL is one percent-encoded path segment.
    assert.ok(text.includes(`href="/ns/${encodeURIComponent(IMG)}/graph"`));
    assertEscaped(text);
  });
});

describe('renderNotFound and renderLoginForm', () => {
  it('says what was not found, escaped, in a document without script', () => {
    const text = renderNotFound(`ChangeGroup team-a/${SCRIPT}`).text;
    assert.ok(text.startsWith('<!doctype html>'));
    assert.ok(text.includes(`ChangeGroup team-a/${SCRIPT_ESCAPED} was not found.`));
    assert.ok(!text.includes('<script'));
    assertEscaped(text);
  });

  it('posts a token to /login from a password field and shows an escaped error', () => {
    const text = renderLoginForm(IMG).text;
    assert.match(text, /<form class="login panel" method="post" action="\/login">/);
    assert.match(text, /<input id="token" name="token" type="password" autocomplete="off" required \/>/);
    assert.ok(text.includes(`<p class="error" role="alert">${IMG_ESCAPED}</p>`));
    assert.ok(!text.includes('<script'));
    assertEscaped(text);
    assert.ok(!renderLoginForm().text.includes('role="alert"'));
  });
});

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

describe('the escaping guarantee', () => {
  it('has SafeHtml.trusted called only in src/domain/dashboard/html.ts', () => {
    const root = new URL('../../../', import.meta.url).pathname;
    const callers = sourceFiles(join(root, 'src'))
      .filter((path) => /\.trusted\s*\(/.test(readFileSync(path, 'utf8')))
      .map((path) => relative(root, path));
    assert.deepEqual(callers, ['src/domain/dashboard/html.ts']);
  });
});
