import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Parser } from 'htmlparser2';
import { boundHtml, DEFAULT_PAGE_BOUNDS, parseWithinBounds } from '../../shared/extract/bounds.js';
import { parseDocument } from '../../shared/extract/dom.js';
import { getOuterHTML as render } from 'domutils';
import { extractPage } from '../../shared/extract/extract-page.js';
import { canonicalize } from '../../shared/url/canonical.js';
import { deepPage, manyLinksPage } from '../../support/web/hostile.js';
import { FIXTURES, fixtureHtml } from './fixtures.js';

const options = { canonicalize: (h: string) => canonicalize(h), robotsToken: 'trawl' };

function parserDepth(html: string): number {
  let depth = 0;
  let max = 0;
  new Parser({ onopentag: () => (max = Math.max(max, ++depth)), onclosetag: () => depth-- }, { decodeEntities: false }).end(html);
  return max;
}

test('leaves every ordinary page exactly as it is', () => {
  for (const name of FIXTURES) {
    const html = fixtureHtml(name);
    assert.deepEqual(boundHtml(html), { html, cuts: [] }, name);
  }
});

test('measures depth as the parser builds the tree: implied closes, void and self-closing elements', () => {
  const pages = [
    ...FIXTURES.map(fixtureHtml),
    '<p>one<p>two<div>three<ul><li>a<li>b<li><p>c</ul></div><table><tr><td>1<td>2<tr><td>3</table>',
    '<svg><path d="x"/><g><circle/></g></svg><div/><span><br><img src=x></span><select><option>a<option>b</select>',
    '<script>if (a < b) { document.write("<div><div><div>") }</script><!-- <div><div> --><style>p > a {}</style><div></div>',
  ];
  for (const html of pages) {
    const depth = parserDepth(html);
    const cut = boundHtml(html, { ...DEFAULT_PAGE_BOUNDS, maxDepth: depth - 1 }).cuts.find((c) => c.bound === 'maxDepth');
    assert.equal(cut?.found, depth, html.slice(0, 60));
    assert.equal(boundHtml(html, { ...DEFAULT_PAGE_BOUNDS, maxDepth: depth }).cuts.length, 0);
  }
});

test('parses a page inside its bounds once, and one past a bound as the scan cuts it, bound by bound', () => {
  const flat = `<body>${'<p>x</p>'.repeat(200)}</body>`;
  const cases: Array<[string, Partial<typeof DEFAULT_PAGE_BOUNDS>]> = [
    ...FIXTURES.map((name): [string, Partial<typeof DEFAULT_PAGE_BOUNDS>] => [fixtureHtml(name), {}]),
    [deepPage(), {}],
    [manyLinksPage(), { maxChars: 10_000_000 }],
    [flat, { maxElements: 102 }],
    [flat, { maxElements: 403 }],
    [flat, { maxChars: 1000 }],
    ['<p>one<p>two<div>three<ul><li>a<li>b<li><p>c</ul></div>', { maxDepth: 4 }],
    ['<p>one<p>two<div>three<ul><li>a<li>b<li><p>c</ul></div>', { maxDepth: 5 }],
  ];
  for (const [html, bounds] of cases) {
    const b = { ...DEFAULT_PAGE_BOUNDS, ...bounds };
    const scanned = boundHtml(html, b);
    const parsed = parseWithinBounds(html, b);
    assert.deepEqual(parsed.cuts, scanned.cuts, html.slice(0, 60));
    assert.equal(render(parsed.doc), render(parseDocument(scanned.html)), html.slice(0, 60));
  }
});

test('flattens nesting past the depth bound, keeping the text and recording the cut', () => {
  const { html, cuts } = boundHtml(deepPage());
  assert.deepEqual(
    cuts.map((c) => [c.bound, c.limit, c.found]),
    [['maxDepth', 100, 100_002]],
  );
  assert.ok(parserDepth(html) <= 100);
  assert.match(html, /A sentence at the bottom of the well\./);
  const x = extractPage(deepPage(), 'https://deep.test/', options);
  assert.match(x.text, /A sentence at the bottom of the well/);
  assert.equal(x.cuts?.[0]?.bound, 'maxDepth');
});

test('keeps the first links as links and the text of the rest', () => {
  const { html, cuts } = boundHtml(manyLinksPage(), { ...DEFAULT_PAGE_BOUNDS, maxChars: 10_000_000 });
  assert.deepEqual(
    cuts.map((c) => [c.bound, c.found]),
    [['maxLinks', 100_000]],
  );
  assert.equal(html.match(/<a /g)?.length, 5000);
  assert.equal(html.match(/<\/a>/g)?.length, 5000);
  assert.match(html, /link 99999/);
});

test('cuts a page at the element bound and at the character bound, at a tag boundary', () => {
  const flat = `<html><body>${Array.from({ length: 500 }, (_, i) => `<p>para ${i}</p>`).join('')}</body></html>`;
  const elements = boundHtml(flat, { ...DEFAULT_PAGE_BOUNDS, maxElements: 102 });
  assert.equal(elements.cuts[0]?.bound, 'maxElements');
  assert.match(elements.html, /para 99<\/p>$/);
  const chars = boundHtml(flat, { ...DEFAULT_PAGE_BOUNDS, maxChars: 1000 });
  assert.equal(chars.cuts[0]?.bound, 'maxChars');
  assert.ok(chars.html.length <= 1000 && chars.html.endsWith('</p>'), chars.html.slice(-20));
});
