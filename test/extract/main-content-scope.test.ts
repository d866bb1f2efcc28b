// `--main-content full` keeps all of a page's readable content (docs and product pages,
// where the content is more than one article) and still sheds its furniture; the extraction's
// method says which way each page went.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractPage } from '../../shared/extract/extract-page.js';
import { runExtract } from '../../shared/extract/run-extract.js';
import { prose } from '../../support/web/pages.js';

const PRODUCT = `<!doctype html><html><head><title>Bracket X200</title></head><body>
<header><nav><a href="/">Home</a> <a href="/shop">Shop</a> <a href="/about">About us</a></nav></header>
<aside class="sidebar"><ul><li><a href="/c/1">Brackets</a></li><li><a href="/c/2">Wall mounts</a></li></ul></aside>
<main>
<section><h1>Bracket X200</h1><p>${prose(1, 60)}.</p><p>${prose(2, 50)}.</p></section>
<section><h2>Specifications</h2><table><tr><th>Load</th><td>200 kg</td></tr><tr><th>Material</th><td>Steel, powder coated</td></tr></table></section>
<section><h2>Installation</h2><ol><li>Mark the holes with the template.</li><li>Drill 8 mm holes.</li><li>Fix with the <a href="/screws">M8 screws</a>.</li></ol></section>
</main>
<footer><p>© 2026 Brackets Ltd. <a href="/privacy">Privacy</a></p></footer>
</body></html>`;

const extract = (mainContent?: 'article' | 'full') =>
  extractPage(PRODUCT, 'https://shop.example/x200', { canonicalize: (h) => h, robotsToken: 'trawl', mainContent });

test('the whole page keeps every section, link-bearing steps included, and drops navigation, sidebar and footer', () => {
  const article = extract();
  const full = extract('full');
  assert.equal(article.method, 'container');
  assert.equal(full.method, 'full');
  // The article sheds the link-bearing step and the heading left without its section; the whole page keeps both.
  for (const kept of ['Installation', 'Fix with the M8 screws', 'Drill 8 mm holes', '200 kg', prose(1, 60)]) assert.ok(full.text.includes(kept), kept);
  assert.ok(!article.text.includes('Fix with the M8 screws'), article.text);
  for (const furniture of ['About us', 'Wall mounts', 'Brackets Ltd']) {
    assert.ok(!full.text.includes(furniture), furniture);
    assert.ok(!article.text.includes(furniture), furniture);
  }
  assert.match(full.markdown, /## Installation/);
});

test('the scope crosses to wherever the page is extracted (the worker request)', () => {
  const x = runExtract({ html: PRODUCT, url: 'https://shop.example/x200', mode: 'full', robotsToken: 'trawl', mainContent: 'full' }, {});
  assert.equal((x as { method: string }).method, 'full');
});
