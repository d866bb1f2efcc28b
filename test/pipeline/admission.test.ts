// Unit seams: the Admitter driven directly, one candidate at a time — every reason a
// discovered URL is kept out, in the order it is checked, and the scope growing mid-run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultSettings, type CrawlSettings } from '../../shared/config/settings.js';
import { defaultPriority } from '../../shared/frontier/priority.js';
import { Admitter, MAX_REDIRECTS, type LinkCandidate } from '../../shared/pipeline/stages/admission.js';

const admitter = (settings: Partial<CrawlSettings> = {}, minPriority?: number) =>
  new Admitter({
    runId: 7,
    scope: ['https://a.test/'],
    settings: { ...defaultSettings(), ...settings },
    priority: defaultPriority,
    canonical: {},
    clock: () => 0,
    minPriority,
  });
const page = (href: string, more: Partial<LinkCandidate> = {}): LinkCandidate => ({ href, depth: 1, kind: 'page', ...more });
const verdict = (a: Admitter, c: LinkCandidate) => {
  const out = a.admit(c);
  return 'row' in out ? (out.row.reason ?? out.row.state) : out.dropped;
};

test('a candidate in scope is queued as a row of the run, canonical, with its priority', () => {
  const out = admitter().admit(page('https://A.test/x/../docs?utm_source=mail#top', { from: 'u1' }));
  assert.ok('row' in out);
  assert.equal(out.row.state, 'queued');
  assert.equal(out.row.url, 'https://a.test/docs');
  assert.equal(out.row.runId, 7);
  assert.equal(out.row.rawUrl, 'https://A.test/x/../docs?utm_source=mail#top');
  assert.equal(out.row.discoveredFrom, 'u1');
  assert.equal(out.row.priority, defaultPriority({ url: 'https://a.test/docs', depth: 1, inlinks: 0, fresh: false }));
});

test('each reason a URL stays out, named', () => {
  const a = admitter({ maxDepth: 3, maxSitemaps: 1 });
  assert.equal(verdict(a, page('mailto:someone@a.test')), 'not-http');
  assert.match(String(verdict(a, page('https://elsewhere.test/'))), /scope/);
  assert.equal(verdict(a, page('https://a.test/r', { redirects: MAX_REDIRECTS + 1 })), 'too-many-redirects');
  assert.equal(verdict(a, page('https://a.test/n', { nofollow: true })), 'nofollow');
  assert.equal(verdict(admitter({ followNofollow: true }), page('https://a.test/n', { nofollow: true })), 'queued');
  assert.equal(verdict(a, page('https://a.test/deep', { depth: 4 })), 'max-depth');
  assert.equal(verdict(a, page('https://a.test/sitemap.xml', { kind: 'sitemap' })), 'queued');
  assert.equal(verdict(a, page('https://a.test/sitemap2.xml', { kind: 'sitemap' })), 'max-sitemaps');
  assert.equal(verdict(admitter({}, 1e9), page('https://a.test/low')), 'below-threshold');
});

test('a scope widened mid-run admits the new hosts', () => {
  const a = admitter();
  assert.notEqual(verdict(a, page('https://found.test/post')), 'queued');
  a.widenScope(['https://found.test/']);
  assert.equal(verdict(a, page('https://found.test/post')), 'queued');
});

test('include patterns: a linked page is followed only when it matches one; seeds, sitemaps and feeds always', () => {
  const a = admitter({ include: ['*/blog/*', '/\\/docs\\/v[0-9]+$/'] });
  assert.equal(verdict(a, page('https://a.test/blog/first')), 'queued');
  assert.equal(verdict(a, page('https://a.test/docs/v2')), 'queued');
  assert.equal(verdict(a, page('https://a.test/docs/v2/extra')), 'not-included');
  assert.equal(verdict(a, page('https://a.test/shop')), 'not-included');
  assert.equal(verdict(a, page('https://a.test/', { depth: 0 })), 'queued', 'a seed');
  assert.equal(verdict(a, page('https://a.test/sitemap.xml', { kind: 'sitemap' })), 'queued');
  assert.equal(verdict(a, page('https://a.test/feed.xml', { kind: 'feed' })), 'queued');
  // Deny still wins over include.
  assert.equal(verdict(admitter({ include: ['*/blog/*'], deny: ['*/blog/private*'] }), page('https://a.test/blog/private-notes')), 'denied');
});
