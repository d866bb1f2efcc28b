// The Firecrawl-compatible routes driven by Firecrawl's own JavaScript SDK (@mendable/firecrawl-js,
// unmodified), v2 and v1 clients, against `trawl serve` on loopback: scrape with markdown, links
// and json to a schema (the chat model an OpenAI-compatible server on loopback), crawl with a
// limit and polling, map, actions; what trawl does not do is refused with the SDK's error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import Firecrawl, { FirecrawlAppV1, type Document, type MapData, type CrawlJob } from '@mendable/firecrawl-js';
import { resolveSettings } from '../../shared/cli/args.js';
import { startServer } from '../../shared/cli/serve-command.js';
import { testFlags } from '../../support/crawl-helpers.js';
import { serve, tempDir } from '../../support/helpers.js';
import { modelServer } from '../enrich/model-servers.js';
import { Webhook } from 'standardwebhooks';
import { runSnippet } from './doc-snippets.js';

const WRITE = 'a-write-token-of-some-length';

const SECRET = `whsec_${Buffer.from('a signing secret of thirty-two b').toString('base64')}`;
const words = (n: number) =>
  Array.from(
    { length: 30 },
    (_, i) => `Line ${i} of page ${n} is about ${['ponds', 'reeds', 'frogs', 'herons', 'lilies'][(n + i) % 5]} number ${n * 31 + i}.`,
  ).join(' ');
const page = (n: number, links: number[]) =>
  `<!doctype html><html lang="en"><head><title>Page ${n}</title><meta name="description" content="About page ${n}"></head><body><nav><a href="/">Home</a></nav>` +
  `<main><h1>Page ${n}</h1><p>${words(n)}</p><p>Price: ${n}9.90 EUR.</p>${links.map((l) => `<p><a href="/p/${l}">Read page ${l}</a></p>`).join('')}</main>` +
  `<script>var tracking = 1;</script></body></html>`;

test('Firecrawl SDK: scrape with markdown, links and json, crawl with a limit, map; unsupported options refused', { timeout: 180_000 }, async () => {
  const site = await serve((req, res) => {
    const path = req.url ?? '/';
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n');
    if (path === '/app')
      return void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><html><head><title>App</title></head><body><h1>App</h1><p>${words(40)}</p><div id="more"></div>` +
            `<button id="reveal" onclick="document.getElementById('more').innerHTML = '<p>Revealed by a click on the button.</p>'">More</button></body></html>`,
        );
    // The bytes of page 1 at another address: a near-duplicate, stored without an extraction of its own.
    if (path === '/copy-of-1') return void res.writeHead(200, { 'content-type': 'text/html' }).end(page(1, [2, 3]));
    if (path === '/missing')
      return void res.writeHead(404, { 'content-type': 'text/html' }).end('<!doctype html><title>Missing</title><h1>Gone fishing</h1><p>No page is here.</p>');
    const m = /^\/p\/(\d+)$/.exec(path);
    if (path === '/' || (m && Number(m[1]) <= 8)) {
      const n = m ? Number(m[1]) : 0;
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(
        page(
          n,
          [n + 1, n + 2].filter((l) => l <= 8),
        ),
      );
    }
    res.writeHead(404, { 'content-type': 'text/html' }).end('<p>not here</p>');
  });
  const model = await modelServer({
    '/v1/chat/completions': (body) => {
      const user = body.messages[1].content as string;
      const chunk = /^\[([0-9a-f]+)\]\n[\s\S]*?Price: ([\d.]+) EUR/m.exec(user)!;
      const title = /^Title: (.*)$/m.exec(user)![1]!;
      const content = JSON.stringify({ data: { title, price: Number(chunk[2]) }, sources: { '/title': [chunk[1]], '/price': [chunk[1]] } });
      return { body: { choices: [{ index: 0, message: { role: 'assistant', content } }], usage: { prompt_tokens: 500, completion_tokens: 20 } } };
    },
  });
  const data = tempDir();
  const settings = resolveSettings(testFlags(data.dir, { 'delay-ms': '0', provider: 'openai', 'openai-base-url': `${model.origin}/v1` }), {});
  const server = await startServer(settings, { port: '0', 'write-token': WRITE }, { OPENAI_API_KEY: 'k', TRAWL_WEBHOOK_SECRET: SECRET });
  // A crawl's own receiver, as Firecrawl's webhook names it.
  const told: Array<{ headers: Record<string, string | string[] | undefined>; body: string }> = [];
  const receiver = await serve((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      told.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  const apiUrl = server.url.replace(/\/$/, '');
  try {
    const v2 = new Firecrawl({ apiKey: WRITE, apiUrl });
    const schema = { type: 'object', properties: { title: { type: 'string' }, price: { type: 'number' } }, required: ['title', 'price'] };
    const doc: Document = await v2.scrape(`${site.origin}/p/3`, { formats: ['markdown', 'links', 'rawHtml', 'html', { type: 'json', schema }] });
    assert.match(doc.markdown!, /Line 5 of page 3/);
    assert.ok(doc.links!.includes(`${site.origin}/p/4`), JSON.stringify(doc.links));
    assert.match(doc.rawHtml!, /var tracking/, 'rawHtml: the page as served');
    assert.doesNotMatch(doc.html!, /var tracking/, 'html: without its scripts');
    assert.deepEqual(doc.json, { title: 'Page 3', price: 39.9 });
    assert.equal(doc.metadata?.title, 'Page 3');
    assert.equal(doc.metadata?.statusCode, 200);
    assert.equal(doc.metadata?.sourceURL, `${site.origin}/p/3`);
    assert.equal(doc.metadata?.description, 'About page 3');
    // A page stored within maxAge is answered from the data directory, not fetched again.
    // excludePaths are regular expressions over the path, as Firecrawl's.
    const fetches = (await v2.crawl(`${site.origin}/`, { limit: 4, pollInterval: 1, excludePaths: ['^/p/2$'] })) as CrawlJob;
    assert.ok(!fetches.data.some((d) => d.metadata?.sourceURL === `${site.origin}/p/2`), 'an excluded path is not crawled');
    assert.equal(fetches.status, 'completed');
    assert.ok(fetches.data.length >= 1 && fetches.data.length <= 4, `${fetches.data.length} documents`);
    for (const d of fetches.data) {
      assert.ok(d.markdown && d.metadata?.sourceURL, JSON.stringify(d).slice(0, 200));
      assert.equal(d.metadata?.statusCode, 200);
    }
    assert.ok(fetches.data.some((d) => d.metadata?.sourceURL === `${site.origin}/`));
    // includePaths too: past the start URL, only the paths they match are crawled.
    const included = (await v2.crawl(`${site.origin}/`, { limit: 10, pollInterval: 1, includePaths: ['^/p/[13]$'] })) as CrawlJob;
    assert.deepEqual(included.data.map((d) => new URL(d.metadata!.sourceURL!).pathname).sort(), ['/', '/p/1', '/p/3']);
    const map: MapData = await v2.map(`${site.origin}/`, { search: 'page 2' });
    assert.ok(
      map.links.some((l) => l.url === `${site.origin}/p/2`),
      JSON.stringify(map.links),
    );
    assert.ok(map.links.every((l) => l.url.startsWith(site.origin)));
    // What trawl does not do: the SDK throws with trawl's message.
    // Actions run in the renderer before the page is read.
    const clicked = await v2.scrape(`${site.origin}/app`, { formats: ['markdown'], actions: [{ type: 'click', selector: '#reveal' }] });
    assert.match(clicked.markdown!, /Revealed by a click/);
    await assert.rejects(v2.scrape(`${site.origin}/p/1`, { actions: [{ type: 'click' } as never] }), /actions are not valid at 0\.selector/);
    // The screenshot format: the page rendered, its picture as a PNG data URL.
    const shot = await v2.scrape(`${site.origin}/app`, { formats: ['markdown', { type: 'screenshot', fullPage: true }] });
    assert.match(shot.screenshot!, /^data:image\/png;base64,/);
    const png = Buffer.from(shot.screenshot!.split(',')[1]!, 'base64');
    assert.equal(png.subarray(1, 4).toString('latin1'), 'PNG');
    assert.ok(png.readUInt32BE(16) > 100 && png.readUInt32BE(20) > 100, 'a picture of the page, width and height over 100 px');
    // includeTags and excludeTags: the document is written from the elements they keep.
    const tagged = await v2.scrape(`${site.origin}/p/1`, { formats: ['markdown', 'html'], includeTags: ['main', 'nav'], excludeTags: ['h1'] });
    assert.match(tagged.markdown!, /Line 3 of page 1/);
    assert.match(tagged.markdown!, /\[Home\]/, 'the nav is kept by includeTags');
    assert.doesNotMatch(tagged.markdown!, /^# Page 1/m, 'the h1 is removed by excludeTags');
    assert.doesNotMatch(tagged.html!, /<h1|var tracking/);
    const only = await v2.scrape(`${site.origin}/p/1`, { formats: ['markdown'], excludeTags: ['main'] });
    assert.doesNotMatch(only.markdown!, /Line 3 of page 1/);
    assert.match(only.markdown!, /Home/);
    await assert.rejects(v2.scrape(`${site.origin}/p/1`, { includeTags: ['main[[['] }), /includeTags: "main\[\[\[" is not a CSS selector/);
    await assert.rejects(v2.scrape(`${site.origin}/p/1`, { formats: ['changeTracking'] }), /changeTracking format is not supported/);
    await assert.rejects(v2.scrape(`${site.origin}/private`), /was not fetched: robots\.txt of http:\/\/127\.0\.0\.1:\d+ disallows it/);
    // The docs' snippets, as written, with the SDK versions they name (4.x; 1.21.1, what Node 20 installs).
    for (const [file, sdk] of [
      ['scrape.mjs', '@mendable/firecrawl-js'],
      ['scrape-v1.mjs', 'firecrawl-js-1'],
    ] as const) {
      const ran = await runSnippet(file, sdk, `${site.origin}/p/2`, { TRAWL_URL: apiUrl, TRAWL_API_WRITE_TOKEN: WRITE });
      assert.equal(ran.status, 0, `${file}: ${ran.stderr}`);
      assert.match(ran.stdout, /^Page 2 200 \d+\n$/, `${file}: ${ran.stdout}`);
    }
    // A page whose bytes equal a stored page's: its document is the content it duplicates, and says so.
    const copy = await v2.scrape(`${site.origin}/copy-of-1`, { formats: ['markdown', 'links'] });
    assert.match(copy.markdown!, /Line 3 of page 1/);
    assert.ok(copy.links!.includes(`${site.origin}/p/2`), JSON.stringify(copy.links));
    assert.equal((copy.metadata as Record<string, unknown>).duplicateOf, `${site.origin}/p/1`);
    // A 404 is a document with its status, as Firecrawl answers it.
    const missing = await v2.scrape(`${site.origin}/missing`, { formats: ['markdown'] });
    assert.equal(missing.metadata?.statusCode, 404);
    assert.equal(missing.metadata?.title, 'Missing', JSON.stringify(missing));
    assert.match(missing.markdown!, /Gone fishing/);
    // The write token is needed, as for POST /crawls.
    await assert.rejects(new Firecrawl({ apiKey: 'wrong-token-of-some-length', apiUrl }).scrape(`${site.origin}/p/1`), /401|write token/i);
    // A body not declared JSON is refused as on every other route, not parsed as JSON anyway.
    const plain = await fetch(`${apiUrl}/v2/scrape`, {
      method: 'POST',
      headers: { authorization: `Bearer ${WRITE}`, 'content-type': 'text/plain' },
      body: JSON.stringify({ url: `${site.origin}/p/1` }),
    });
    assert.equal(plain.status, 415);
    assert.match(((await plain.json()) as { error: string }).error, /declared text\/plain: send one JSON object with Content-Type: application\/json/);

    // A crawl's own webhook: started, each page with its document, completed; signed, with the caller's headers and metadata.
    const hooked = (await v2.crawl(`${site.origin}/p/7`, {
      limit: 2,
      scrapeOptions: { formats: ['markdown'] },
      webhook: { url: `${receiver.origin}/hooks`, headers: { 'x-team': 'ponds' }, metadata: { ask: 'w1' }, events: ['started', 'page', 'completed'] },
      pollInterval: 1,
    })) as CrawlJob;
    for (let i = 0; i < 100 && !told.some((t) => t.body.includes('"crawl.completed"')); i++) await new Promise((r) => setTimeout(r, 100));
    const verifier = new Webhook(SECRET);
    const events = told.map(
      (t) => verifier.verify(t.body, t.headers as Record<string, string>) as { type: string; id: string; data: Document[]; metadata: unknown },
    );
    assert.deepEqual(
      events.map((e) => e.type).sort(),
      ['crawl.completed', 'crawl.started', ...hooked.data.map(() => 'crawl.page')].sort(),
      'no crawl.failed: not asked for',
    );
    assert.ok(told.every((t) => t.headers['x-team'] === 'ponds'));
    assert.ok(events.every((e) => JSON.stringify(e.metadata) === '{"ask":"w1"}'));
    const pages = events.filter((e) => e.type === 'crawl.page').map((e) => e.data[0]!);
    assert.deepEqual(pages.map((d) => d.metadata?.sourceURL).sort(), hooked.data.map((d) => d.metadata?.sourceURL).sort());
    assert.ok(
      pages.every((d) => /Line \d+ of page \d+/.test(d.markdown!)),
      JSON.stringify(pages).slice(0, 600),
    );
    // A map lists the site's stored pages too: /p/7 (the crawl's seed) is not linked from the home page.
    const deep = await v2.map(`${site.origin}/`, { search: '/p/7' });
    assert.deepEqual(
      deep.links.map((l) => l.url),
      [`${site.origin}/p/7`],
    );
    assert.equal(deep.links[0]!.title, 'Page 7', "the stored page's title");
    await assert.rejects(
      v2.startCrawl(`${site.origin}/`, { webhook: { url: `${receiver.origin}/`, headers: { 'webhook-signature': 'v1,forged' } } }),
      /webhook.headers: "webhook-signature" is not a header/,
    );
    await assert.rejects(v2.startCrawl(`${site.origin}/`, { webhook: 'ftp://example.com/' }), /webhook: .*not http\(s\)/);

    // The v1 client: scrape, crawl (polled every 2 s by the SDK), map.
    const v1 = new FirecrawlAppV1({ apiKey: WRITE, apiUrl });
    const scraped = await v1.scrapeUrl(`${site.origin}/p/5`, { formats: ['markdown', 'links'] });
    assert.ok(scraped.success);
    if (scraped.success) {
      assert.match(scraped.markdown!, /page 5/);
      assert.ok(scraped.links!.includes(`${site.origin}/p/6`));
    }
    const crawled = await v1.crawlUrl(`${site.origin}/p/6`, { limit: 2, scrapeOptions: { formats: ['markdown', 'links'] } }, 1);
    assert.ok(crawled.success);
    if (crawled.success) {
      assert.equal(crawled.status, 'completed');
      assert.ok(crawled.data.length >= 1 && crawled.data.length <= 2);
      assert.ok(crawled.data[0]!.links!.length > 0);
    }
    // The v1 SDK reads params.origin of its second argument: it must be given.
    const mapped = await v1.mapUrl(`${site.origin}/`, {});
    assert.ok(mapped.success);
    if (mapped.success) assert.ok(mapped.links!.includes(`${site.origin}/p/1`), JSON.stringify(mapped.links));
  } finally {
    await server.close();
    await Promise.all([site.close(), model.close(), receiver.close()]);
    data.cleanup();
  }
});
