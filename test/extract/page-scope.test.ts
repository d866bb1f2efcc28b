// The learned scope model: the page's region (its <main>, else its body, without navigation, header,
// footer, asides and forms) is measured before the content pass prunes the tree; a model sure that
// the region is the better text replaces the rules' choice with it (method `region`); where it is
// unsure, or the region is empty, the rules stand; the model the build ships was fitted on the
// features the code computes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDocument } from '../../shared/extract/dom.js';
import { blockText } from '../../shared/extract/main-content.js';
import { extractPage } from '../../shared/extract/extract-page.js';
import { declaredType } from '../../shared/extract/block-features.js';
import { activeScopeModel, regionNodes, regionStats, SCOPE_FEATURES, scopeFeatures, withScopeModel, type ScopeModel } from '../../shared/extract/page-scope.js';
import { SHIPPED_SCOPE_MODEL } from '../../shared/extract/scope-model-data.js';
import { fittedOn } from '../../shared/util/boosted-trees.js';
import { prose } from '../../support/web/pages.js';

const OPTIONS = { canonicalize: (u: string) => u, robotsToken: 'trawl' };

const card = (i: number) =>
  `<li class="card"><h3><a href="/p/${i}">Garden lantern model ${i}</a></h3><p>Solar powered, ${10 + i} hours of light, weatherproof steel frame.</p><span>€${20 + i}.00</span></li>`;

/** A collection page: an ItemList of cards in <main>, a menu, a header, a sidebar and a footer around it. */
const LISTING = `<html><head><script type="application/ld+json">{"@context":"https://schema.org","@type":"ItemList"}</script></head><body>
<header><a href="/">Shop</a> <form><input name="q"></form></header>
<nav><a href="/garden">Garden</a> <a href="/kitchen">Kitchen</a> <a href="/sale">Sale</a></nav>
<main><h1>Garden lanterns</h1><p>${prose(1, 30)}.</p><ul>${Array.from({ length: 12 }, (_, i) => card(i)).join('')}</ul>
<aside>Sponsored: buy a grill today</aside></main>
<footer>© Shop Ltd. <a href="/privacy">Privacy</a></footer></body></html>`;

const ARTICLE = `<html><head><script type="application/ld+json">{"@type":"NewsArticle"}</script></head><body>
<nav><a href="/">Home</a> <a href="/world">World</a></nav>
<main><article><h1>The headline</h1><p>${prose(2, 80)}.</p><p>${prose(3, 90)}.</p></article>
<section><h2>More stories</h2><ul><li><a href="/a">Another story about something else</a></li><li><a href="/b">And one more story to read</a></li></ul></section></main>
</body></html>`;

/** A model of one split: the region wins when the feature is over `cut`. */
function regionWhenOver(feature: (typeof SCOPE_FEATURES)[number], cut: number): ScopeModel {
  return {
    features: [...SCOPE_FEATURES],
    base: 0,
    trees: [[{ f: SCOPE_FEATURES.indexOf(feature), t: cut, l: 1, r: 2 }, { v: -10 }, { v: 10 }]],
    above: 0.5,
    trainedOn: 'test',
  };
}

test("the region's measures leave out its furniture and what is never content", () => {
  const doc = parseDocument(LISTING);
  const s = regionStats(doc, declaredType(doc));
  assert.equal(s.type, 'listing');
  assert.equal(s.hasMain, true);
  const text = blockText(regionNodes(parseDocument(LISTING)));
  assert.ok(!text.includes('Sponsored') && !text.includes('Privacy') && !text.includes('Kitchen'), text);
  assert.ok(text.includes('Garden lantern model 11') && text.includes('€31.00'), text);
  // The walk counts the region's text (its furniture left out), and its links and list items as shares of it.
  const visible = text.replace(/\s+/g, '').length;
  assert.ok(s.length >= visible && s.length <= text.length, `${s.length} against ${visible}–${text.length}`);
  assert.ok(s.links > 0 && s.links < s.length / 2, `${s.links}/${s.length}`);
  assert.ok(s.listText > s.length / 2, `${s.listText}/${s.length}`);
  assert.equal(s.headings, 13);
  assert.equal(s.prices, 12);
  const f = scopeFeatures(s, 'container', { ...s, length: 100, links: 0, listText: 0 });
  assert.equal(f.length, SCOPE_FEATURES.length);
  assert.equal(f[SCOPE_FEATURES.indexOf('type-listing')], 1);
  assert.equal(f[SCOPE_FEATURES.indexOf('method-container')], 1);
});

test('a model sure of the region replaces the rules’ choice; unsure, the rules stand', () => {
  const rules = withScopeModel(null, () => extractPage(LISTING, 'https://shop.test/lanterns', OPTIONS));
  assert.notEqual(rules.method, 'region');
  const listing = regionWhenOver('type-listing', 0.5);
  const region = withScopeModel(listing, () => extractPage(LISTING, 'https://shop.test/lanterns', OPTIONS));
  assert.equal(region.method, 'region');
  for (let i = 0; i < 12; i++) assert.ok(region.text.includes(`Garden lantern model ${i}`), region.text);
  assert.ok(!region.text.includes('Privacy') && !region.text.includes('Sponsored'), region.text);
  assert.ok(region.markdown.includes('Garden lantern model 11'), region.markdown);
  // The article is no listing: the same model leaves it to the rules.
  const article = withScopeModel(listing, () => extractPage(ARTICLE, 'https://news.test/story', OPTIONS));
  assert.notEqual(article.method, 'region');
  assert.ok(article.text.includes('The headline') && !article.text.includes('And one more story'), article.text);
});

test('an empty region never replaces the rules’ text, and the whole-page scope is left alone', () => {
  const always = regionWhenOver('log-chosen-length', -1);
  const html = `<html><body><main><nav><a href="/">Home</a></nav></main><div><p>${prose(4, 60)}.</p></div></body></html>`;
  const page = withScopeModel(always, () => extractPage(html, 'https://a.test/', OPTIONS));
  assert.notEqual(page.method, 'region');
  assert.ok(page.text.includes(prose(4, 60).slice(0, 40)), page.text);
  const full = withScopeModel(always, () => extractPage(LISTING, 'https://shop.test/', { ...OPTIONS, mainContent: 'full' }));
  assert.equal(full.method, 'full');
});

test('the model the build ships was fitted on the features the code computes', () => {
  assert.ok(SHIPPED_SCOPE_MODEL, 'npm run train:extract writes shared/extract/scope-model-data.ts');
  assert.ok(fittedOn(SHIPPED_SCOPE_MODEL, SCOPE_FEATURES));
  assert.equal(activeScopeModel(), SHIPPED_SCOPE_MODEL);
  assert.ok(SHIPPED_SCOPE_MODEL.above > 0 && SHIPPED_SCOPE_MODEL.above <= 1.01);
});
