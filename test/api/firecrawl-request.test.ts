// The Firecrawl request's pure functions: what a scrape asks for, the crawl job a crawl request
// becomes, a path pattern as a URL pattern, a crawl id and its formats. No server.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestRefusedError } from '../../shared/errors.js';
import { CrawlBody, crawlIdOf, crawlJobOptions, parseCrawlId, pathPattern, wantedOf } from '../../shared/api/firecrawl-request.js';

const refused = (fn: () => unknown, pattern: RegExp, status = 400) =>
  assert.throws(fn, (err: unknown) => err instanceof RequestRefusedError && err.status === status && pattern.test(err.message));

test('wantedOf: markdown by default, the formats asked, the passages formats with their query, main content unless told', () => {
  const plain = wantedOf({}, 'v2', undefined);
  assert.deepEqual([...plain.formats], ['markdown']);
  assert.equal(plain.mainContent, 'article');
  const w = wantedOf(
    {
      formats: ['html', 'links', 'summary', { type: 'highlights', query: 'ferry' }, { type: 'attributes', selectors: [{ selector: 'a', attribute: 'href' }] }],
      onlyMainContent: false,
    },
    'v2',
    undefined,
  );
  assert.deepEqual([...w.formats].sort(), ['html', 'links']);
  assert.deepEqual([w.summary, w.highlights, w.attributes, w.mainContent], [true, 'ferry', [{ selector: 'a', attribute: 'href' }], 'full']);
});

test('wantedOf refuses what trawl cannot do, naming it: mobile, a bad selector, an unknown format, question without a model, json without a schema', () => {
  refused(() => wantedOf({ mobile: true }, 'v2', undefined), /mobile is not supported/);
  refused(() => wantedOf({ includeTags: ['p[['] }, 'v2', undefined), /includeTags: "p\[\[" is not a CSS selector/);
  refused(() => wantedOf({ formats: ['branding'] }, 'v2', undefined), /the branding format is not supported/);
  refused(() => wantedOf({ formats: [{ type: 'question', question: 'why?' }] }, 'v2', undefined), /the question format needs an LLM provider/);
  assert.equal(wantedOf({ formats: [{ type: 'question', question: 'why?' }] }, 'v2', undefined, true).question, 'why?');
  refused(() => wantedOf({ formats: [{ type: 'json' }] }, 'v2', undefined), /needs a schema or a prompt/);
  refused(() => wantedOf({ formats: [{ type: 'highlights', query: '' }] }, 'v2', undefined), /the highlights format/);
});

test('crawlJobOptions: a crawl request as the typed job options, or a refusal saying what to do instead', () => {
  const req = CrawlBody.parse({
    url: 'https://example.com/',
    limit: 50,
    maxDiscoveryDepth: 2,
    excludePaths: ['^/private'],
    includePaths: ['blog/.*'],
    allowSubdomains: true,
  });
  assert.deepEqual(crawlJobOptions(req, wantedOf({ onlyMainContent: false }, 'v2', undefined)), {
    maxPages: 50,
    maxDepth: 2,
    deny: [pathPattern('^/private')],
    include: [pathPattern('blog/.*')],
    scope: 'domain',
    mainContent: 'full',
    enrich: false,
  });
  assert.deepEqual(crawlJobOptions(CrawlBody.parse({ url: 'https://example.com/' }), wantedOf({}, 'v2', undefined)), {
    maxPages: 10_000,
    mainContent: 'article',
    enrich: false,
  });
  refused(() => crawlJobOptions(CrawlBody.parse({ url: 'https://example.com/', allowExternalLinks: true }), wantedOf({}, 'v2', undefined)), /allowSubdomains/);
  refused(() => crawlJobOptions(req, wantedOf({ includeTags: ['main'] }, 'v2', undefined)), /includeTags and excludeTags are for a scrape/);
});

test('pathPattern: a path expression as a pattern over the whole URL, a leading ^ anchored after the host', () => {
  const anchored = new RegExp(pathPattern('^/private').slice(1, -1));
  assert.ok(anchored.test('https://example.com/private/a'));
  assert.ok(!anchored.test('https://example.com/public/private'));
  const loose = new RegExp(pathPattern('blog/.*').slice(1, -1));
  assert.ok(loose.test('https://example.com/en/blog/post'));
});

test('a crawl id carries its formats and reads back; a plain job id means markdown', () => {
  const id = crawlIdOf('job-1', new Set(['markdown', 'html', 'links']));
  const back = parseCrawlId(id);
  assert.equal(back.jobId, 'job-1');
  assert.deepEqual([...back.formats].sort(), ['html', 'links', 'markdown']);
  assert.deepEqual(parseCrawlId('job-2'), { jobId: 'job-2', formats: new Set(['markdown']) });
});
