// What a newcomer saw on real news pages, each written as a page of its own: a "needs JavaScript"
// banner read as the article's first paragraph, a "KOBE –" dateline dropped from the lead, a
// placeholder author ("No Author") recorded as the author, and share buttons' text ("ShareTweet")
// in the article.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractPage } from '../../shared/extract/extract-page.js';
import { authorName } from '../../shared/extract/metadata.js';
import { canonicalize } from '../../shared/url/canonical.js';

const opts = { canonicalize: (h: string) => canonicalize(h), robotsToken: 'trawl' };
const para = (n: number) =>
  `<p>The port city has spent ${n} decades rebuilding its waterfront, and officials said on Monday that the new ferry terminal would open next spring after a long delay caused by rising costs.</p>`;

const page = (head: string, article: string) =>
  `<!doctype html><html><head><title>Kobe opens its new terminal</title>${head}</head><body>` +
  `<header><nav><a href="/">Home</a> <a href="/world">World</a></nav></header>` +
  `<main><article><h1>Kobe opens its new terminal</h1>${article}</article></main><footer>© 2026 The Harbour Times</footer></body></html>`;

test('a banner saying the page needs JavaScript is not the first paragraph', () => {
  for (const banner of [
    'This site requires JavaScript to be enabled. Please enable JavaScript in your browser settings for the best experience.',
    'JavaScript is disabled in your browser. To read this article, turn on JavaScript.',
  ]) {
    const x = extractPage(page('', `<div class="notice"><p>${banner}</p></div>${para(1)}${para(2)}${para(3)}`), 'https://news.example/kobe', opts);
    assert.doesNotMatch(x.text, /JavaScript/, banner);
    assert.match(x.text.split('\n')[1]!, /^The port city has spent 1 decades/);
  }
});

test('a dateline that opens the lead paragraph stays with it', () => {
  const lead =
    '<p><span class="dateline">KOBE –</span> The port city unveiled its long-awaited ferry terminal on Tuesday, drawing crowds of residents and visitors to the waterfront.</p>';
  const x = extractPage(page('', `${lead}${para(1)}${para(2)}`), 'https://news.example/kobe', opts);
  assert.match(x.text, /^KOBE – The port city unveiled/m);
  assert.match(x.markdown, /KOBE – The port city unveiled/);
});

test('a placeholder author is no author', () => {
  const x = extractPage(page('<meta name="author" content="No Author">', `${para(1)}${para(2)}`), 'https://news.example/kobe', opts);
  assert.equal(x.metadata?.author, undefined);
  for (const placeholder of ['No Author', 'none', 'N/A', 'Unknown author']) assert.equal(authorName(placeholder), undefined, placeholder);
  assert.equal(authorName('By Jane Doe'), 'Jane Doe');
});

test("share buttons' text is not in the article, wherever it sits", () => {
  const buttons = ['<div class="tools"><a href="#">Share</a><a href="#">Tweet</a></div>', '<p>ShareTweet</p>', '<p>Share | Tweet | Email</p>'];
  for (const b of buttons) {
    const x = extractPage(page('', `${para(1)}${b}${para(2)}${para(3)}`), 'https://news.example/kobe', opts);
    assert.doesNotMatch(x.text, /Share|Tweet/, b);
    assert.match(x.text, /spent 3 decades/);
  }
  // A sentence that merely starts with one of the words stays.
  const kept = extractPage(page('', `${para(1)}<p>Share prices rose on the news.</p>${para(2)}`), 'https://news.example/kobe', opts);
  assert.match(kept.text, /Share prices rose on the news/);
});
