// What a page's content becomes (contentOf), with no data directory: the crawl's settings, the
// extractor run in this thread, and an in-memory owner of bodies and index of texts standing in
// for the store's three lookups the stage makes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resolveSettings } from '../../shared/cli/args.js';
import { InlineExtractor } from '../../shared/extract/extractor.js';
import type { FetchResponse } from '../../shared/fetch/http-fetcher.js';
import { createLogger } from '../../shared/log/logger.js';
import { StageClock } from '../../shared/log/stage-clock.js';
import { hammingDistance } from '../../shared/dedupe/simhash.js';
import { canonicalOptionsOf, robotsTokenOf } from '../../shared/pipeline/stages/context.js';
import { contentOf, type Answered, type ContentDeps } from '../../shared/pipeline/stages/process-content.js';
import type { RenderCapture } from '../../shared/pipeline/stages/render-stage.js';
import { crawlScoring } from '../../shared/scoring/crawl-scoring.js';
import type { FrontierRow } from '../../shared/ports/index.js';
import { frontierRow } from '../../support/helpers.js';
import { makePdf } from '../../support/web/pdf.js';

/** The store's lookups the stage makes, kept in memory: bodies by hash, texts by hash and SimHash. */
class MemoryTexts {
  readonly owners = new Map<string, string>();
  readonly texts = new Map<string, { textHash: string; simhash: string }>();
  claimBody(hash: string, urlId: string): Promise<string> {
    if (!this.owners.has(hash)) this.owners.set(hash, urlId);
    return Promise.resolve(this.owners.get(hash)!);
  }
  findNearDuplicate(simhash: string, exceptUrlId: string, maxDistance: number) {
    for (const [urlId, t] of this.texts) {
      const distance = hammingDistance(simhash, t.simhash);
      if (urlId !== exceptUrlId && distance <= maxDistance) return Promise.resolve({ urlId, distance });
    }
    return Promise.resolve(undefined);
  }
  findTextDuplicate(textHash: string, exceptUrlId: string): Promise<string | undefined> {
    for (const [urlId, t] of this.texts) if (urlId !== exceptUrlId && t.textHash === textHash) return Promise.resolve(urlId);
    return Promise.resolve(undefined);
  }
}

function deps(flags: Record<string, unknown> = {}, parts: { texts?: MemoryTexts; blobs?: Map<string, Buffer> } = {}): ContentDeps {
  const settings = resolveSettings({ data: '/nonexistent', ...flags }, {});
  return {
    settings,
    extractor: new InlineExtractor(canonicalOptionsOf(settings)),
    stages: new StageClock(false),
    clock: () => Date.parse('2026-01-10T00:00:00Z'),
    logger: createLogger('error'),
    rendering: 'local',
    robotsToken: robotsTokenOf(settings.userAgent),
    scoring: crawlScoring(settings),
    store: parts.texts ?? new MemoryTexts(),
    blobs: { get: (hash: string) => Promise.resolve(parts.blobs?.get(hash)) },
  };
}

const row = (path: string, fields: Partial<FrontierRow> = {}) => frontierRow({ runId: 1, urlId: path, url: `http://a.test${path}`, ...fields });
function answered(mime: string, contentClass: FetchResponse['contentClass'], body: string | Buffer, hash = `h-${String(body).length}`): Answered {
  const bytes = Buffer.isBuffer(body) ? body : Buffer.from(body);
  const res: FetchResponse = {
    url: 'http://a.test/',
    status: 200,
    headers: { 'content-type': mime },
    body: bytes,
    truncated: false,
    mime,
    contentClass,
    wireBytes: bytes.length,
    durationMs: 3,
  };
  return { res, contentHash: hash, at: 1 };
}
const html = (head: string, body: string) => `<!doctype html><html lang="en"><head>${head}</head><body>${body}</body></html>`;
const prose = (n: number) => Array.from({ length: 12 }, (_, i) => `Sentence ${i} of article ${n} tells how ponds keep frogs, reeds and clear water.`).join(' ');
const ARTICLE = html(
  '<title>Ponds</title><meta property="og:site_name" content="Garden notes"><meta property="article:published_time" content="2025-06-01T08:00:00Z"><link rel="canonical" href="/ponds"><link rel="alternate" type="application/rss+xml" href="/feed.xml">',
  `<nav><a href="/">Home</a></nav><article><h1>Ponds</h1><p>${prose(1)}</p><p>Read <a href="/frogs">about frogs</a> next.</p></article><aside><a href="http://b.test/shop">Pond shop</a></aside>`,
);

test('an HTML page: its record, metadata, links with their section, canonical alias and feed', async () => {
  const out = await contentOf(deps(), row('/p', { depth: 1 }), answered('text/html', 'html', ARTICLE));
  assert.equal(out.page?.title, 'Ponds');
  assert.equal(out.page?.indexable, true);
  assert.equal(out.extract?.siteName, 'Garden notes');
  assert.equal(out.extract?.language, 'en');
  assert.equal(out.extract?.published, '2025-06-01T08:00:00.000Z');
  assert.equal(out.extract?.metadata.siteName, 'Garden notes', 'the metadata keeps the text fields too');
  assert.match(out.extract!.markdown, /ponds keep frogs/);
  assert.ok(out.chunks!.length >= 1);
  const sections = Object.fromEntries(out.edges!.map((e) => [e.toUrl, e.section]));
  assert.deepEqual(sections, { 'http://a.test/': 'nav', 'http://a.test/frogs': 'body', 'http://b.test/shop': 'sidebar' });
  assert.deepEqual(out.aliases, [{ urlId: '/p', url: 'http://a.test/p', targetUrl: 'http://a.test/ponds', reason: 'rel-canonical' }]);
  const kinds = out.candidates.map((c) => [c.href, c.kind, c.depth]);
  assert.deepEqual(
    kinds.find(([href]) => href === 'http://a.test/ponds'),
    ['http://a.test/ponds', 'page', 1],
    'the canonical at the page’s depth',
  );
  assert.deepEqual(
    kinds.find(([href]) => String(href).endsWith('/feed.xml')),
    ['http://a.test/feed.xml', 'feed', 2],
  );
});

test('a body another page owns is a duplicate of it, not extracted again; a text another page holds is flagged', async () => {
  const texts = new MemoryTexts();
  const ctx = deps({}, { texts });
  const first = await contentOf(ctx, row('/a'), answered('text/html', 'html', ARTICLE, 'same'));
  texts.texts.set('/a', { textHash: first.extract!.textHash, simhash: first.extract!.simhash });
  const again = await contentOf(ctx, row('/b'), answered('text/html', 'html', ARTICLE, 'same'));
  assert.equal(again.duplicateOf, '/a');
  assert.equal(again.extract, undefined);
  // The same article under another wrapper: another body, the same text.
  const wrapped = ARTICLE.replace('<nav>', '<header><p>Sale on pumps this week</p></header><nav>');
  const copy = await contentOf(ctx, row('/c'), answered('text/html', 'html', wrapped, 'other'));
  assert.equal(copy.extract?.textDuplicateOf, '/a');
  assert.equal(copy.extract?.nearDuplicateOf, '/a');
});

test('an app shell asks for a render; its render is extracted from the rendered DOM kept as a blob', async () => {
  const shell = html('<title>App</title>', '<div id="root"></div><noscript>You need to enable JavaScript.</noscript><script src="/app.js"></script>');
  const ctx = deps(
    {},
    { blobs: new Map([['dom', Buffer.from(html('<title>App</title>', `<div id="root"><article><h1>App</h1><p>${prose(2)}</p></article></div>`))]]) },
  );
  const first = await contentOf(ctx, row('/app'), answered('text/html', 'html', shell), { decide: {} });
  assert.ok(first.renderWanted, 'the shell is rendered');
  assert.equal(first.extract, undefined, 'its links and text wait for the render');
  const capture: RenderCapture = {
    reason: first.renderWanted.reason,
    at: 2,
    ok: true,
    gained: true,
    renderedHash: 'dom',
    bytes: 10,
    durationMs: 250,
    requests: 1,
    blocked: {},
    settled: true,
    attempts: 1,
    navigations: [],
  };
  const second = await contentOf(ctx, row('/app'), answered('text/html', 'html', shell), { capture });
  assert.equal(second.page?.fetcher, 'browser');
  assert.match(second.extract!.markdown, /article 2/);
  const lost = await contentOf(ctx, row('/app'), answered('text/html', 'html', shell), { capture: { ...capture, renderedHash: 'gone' } }).catch(
    (e: Error) => e,
  );
  assert.match(String(lost), /rendered DOM gone is missing/);
  // With rendering off, the same shell is extracted as served.
  const served = await contentOf(deps({ render: 'never' }), row('/app'), answered('text/html', 'html', shell), { decide: {} });
  assert.equal(served.renderWanted, undefined);
  assert.ok(served.extract);
});

test('sitemaps, feeds and PDFs give their own kind of content; other text is kept as fetched', async () => {
  const sitemap = `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>http://a.test/new</loc><lastmod>2026-01-05</lastmod></url><url><loc>http://a.test/old</loc><lastmod>2019-01-01</lastmod></url></urlset>`;
  const fromSitemap = await contentOf(deps(), row('/sitemap.xml', { kind: 'sitemap' }), answered('application/xml', 'xml', sitemap));
  assert.deepEqual(
    fromSitemap.candidates.map((c) => [c.href, c.fresh]),
    [
      ['http://a.test/new', true],
      ['http://a.test/old', false],
    ],
  );
  const feed = '<?xml version="1.0"?><rss version="2.0"><channel><title>f</title><item><link>http://a.test/item1</link></item></channel></rss>';
  const fromFeed = await contentOf(deps(), row('/feed.xml'), answered('application/rss+xml', 'xml', feed));
  assert.deepEqual(
    fromFeed.candidates.map((c) => [c.href, c.kind, c.fresh]),
    [['http://a.test/item1', 'page', true]],
  );
  assert.equal(fromFeed.page, undefined, 'a feed is a way to pages, not one');
  const pdf = await contentOf(deps(), row('/doc.pdf'), answered('application/pdf', 'pdf', makePdf(['A page of the PDF about ponds and frogs.'])));
  assert.equal(pdf.extract?.method, 'pdf');
  assert.equal(pdf.extract?.pdfPages, 1);
  assert.match(pdf.extract!.markdown, /ponds and frogs/);
  const text = await contentOf(deps(), row('/notes.txt'), answered('text/plain', 'text', 'just text'));
  assert.equal(text.page?.mime, 'text/plain');
  assert.equal(text.extract, undefined);
});
