import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extractHtmlSignals, robotsDirectives } from '../../shared/extract/html-signals.js';

test('collects links with anchor text, image alt text and rel', () => {
  const html = `<html><head><title> My  Page </title></head><body>
    <a href="/a">First <b>link</b></a>
    <a href="b.html" rel="nofollow sponsored">Second</a>
    <a href="https://other.test/"><img src="x.png" alt="Logo"></a>
    <a href="#top">Top</a><a href="">empty</a>
    <map><area href="/area" alt="Region"></map>
  </body></html>`;
  const s = extractHtmlSignals(html, 'http://a.test/dir/page', 'trawl');
  assert.equal(s.title, 'My Page');
  assert.deepEqual(s.links.map((l) => [l.href, l.text, l.rel.join(' ')]), [
    ['http://a.test/a', 'First link', ''],
    ['http://a.test/dir/b.html', 'Second', 'nofollow sponsored'],
    ['https://other.test/', 'Logo', ''],
    ['http://a.test/area', 'Region', ''],
  ]);
});

test('resolves links against <base href>', () => {
  const s = extractHtmlSignals('<head><base href="http://cdn.test/root/"></head><a href="x">x</a>', 'http://a.test/p', 'trawl');
  assert.equal(s.links[0]!.href, 'http://cdn.test/root/x');
});

test('finds rel=canonical, feed alternates and meta refresh', () => {
  const html = `<link rel="canonical" href="/real"><link rel="alternate" type="application/rss+xml" href="/feed.xml">
    <link rel="alternate" type="application/atom+xml" href="/atom"><link rel="alternate" hreflang="de" href="/de">
    <meta http-equiv="refresh" content="0; url=/moved">`;
  const s = extractHtmlSignals(html, 'http://a.test/p?print=1', 'trawl');
  assert.equal(s.canonical, 'http://a.test/real');
  assert.deepEqual(s.feeds, ['http://a.test/feed.xml', 'http://a.test/atom']);
  assert.deepEqual(s.links.map((l) => l.href), ['http://a.test/moved']);
});

test('reads meta robots for everyone and for our token', () => {
  assert.deepEqual(pick('<meta name="robots" content="noindex, nofollow">'), { noindex: true, nofollow: true });
  assert.deepEqual(pick('<meta name="ROBOTS" content="none">'), { noindex: true, nofollow: true });
  assert.deepEqual(pick('<meta name="trawl" content="nofollow">'), { noindex: false, nofollow: true });
  assert.deepEqual(pick('<meta name="otherbot" content="noindex">'), { noindex: false, nofollow: false });
});

function pick(head: string) {
  const s = extractHtmlSignals(`<head>${head}</head>`, 'http://a.test/', 'trawl');
  return { noindex: s.noindex, nofollow: s.nofollow };
}

test('parses X-Robots-Tag, including agent-scoped directives', () => {
  assert.deepEqual(robotsDirectives('noindex', 'trawl'), { noindex: true, nofollow: false });
  assert.deepEqual(robotsDirectives('otherbot: noindex, nofollow', 'trawl'), { noindex: false, nofollow: false });
  assert.deepEqual(robotsDirectives('trawl: nofollow', 'trawl'), { noindex: false, nofollow: true });
});

test('survives malformed HTML', () => {
  const s = extractHtmlSignals('<a href="/x">unclosed <div><a href="/y">y</p></b>', 'http://a.test/', 'trawl');
  assert.deepEqual(s.links.map((l) => l.href), ['http://a.test/x', 'http://a.test/y']);
});
