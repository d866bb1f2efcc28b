// Firecrawl's newer formats answered from the archive, driven by Firecrawl's own SDK
// (@mendable/firecrawl-js 4.x, unmodified) against `trawl serve` on loopback: highlights (the page's
// own passages, each citing the WARC record it came from), summary, attributes, a question answered
// by the chat model from those passages only (an OpenAI-compatible server on loopback), and
// lockdown, which answers from the archive with no request leaving the machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import Firecrawl from '@mendable/firecrawl-js';
import { resolveSettings } from '../../shared/cli/args.js';
import { startServer } from '../../shared/cli/serve-command.js';
import { readResponse } from '../../shared/archive/warc-reader.js';
import { crawl } from '../../shared/index.js';
import { openLocalForWriting } from '../../shared/store/local/open-local.js';
import { indexSearch } from '../../shared/search/hybrid.js';
import { ProviderError } from '../../shared/errors.js';
import type { Embedder } from '../../shared/enrich/providers.js';
import { testFlags } from '../../support/crawl-helpers.js';
import { serve, tempDir } from '../../support/helpers.js';
import { modelServer } from '../enrich/model-servers.js';
import { makePdf } from '../../support/web/pdf.js';
import { runSnippet } from './doc-snippets.js';

const WRITE = 'a-write-token-of-some-length';

const GUIDE =
  '<!doctype html><html lang="en"><head><title>Ferry guide</title></head><body><nav><a href="/">Home</a></nav><main><h1>Ferry guide</h1>' +
  '<p>The harbour has three piers, and the oldest of them dates from 1890. Ferries to the island leave from pier two every hour. The crossing takes forty minutes in calm weather.</p>' +
  '<p>The café on pier one opens at seven and sells tickets for the morning boats. Its terrace looks out over the whole bay and the lighthouse.</p>' +
  '<pre><code>curl https://ferry.example/timetable?route=island</code></pre>' +
  '<table><thead><tr><th>Route</th><th>Departure</th><th>Ferry</th></tr></thead><tbody><tr><td>Island</td><td>09:00</td><td>Osprey</td></tr><tr><td>Mainland</td><td>10:00</td><td>Heron</td></tr></tbody></table>' +
  '<p>Read the <a href="/rules" data-kind="rules">boarding rules</a> and the <a href="/fares" data-kind="fares">fares</a> before you travel.</p></main></body></html>';

test(
  'Firecrawl SDK: highlights cite the archived record, summary, attributes, question from the passages, lockdown from the archive',
  { timeout: 180_000 },
  async () => {
    const asked: string[] = [];
    const site = await serve((req, res) => {
      asked.push(req.url ?? '');
      if (req.url === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
      if (req.url === '/guide') return void res.writeHead(200, { 'content-type': 'text/html' }).end(GUIDE);
      if (req.url === '/fares')
        return void res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            '<!doctype html><title>Fares</title><main><h1>Fares</h1><p>A single crossing costs twelve euros; children under twelve travel free with an adult.</p></main>',
          );
      res.writeHead(404, { 'content-type': 'text/html' }).end('<p>not here</p>');
    });
    const model = await modelServer({
      '/v1/chat/completions': (body) => {
        const user = body.messages[1].content as string;
        // The model sees the question and the passages, nothing else of the page.
        const content =
          /Question: .*crossing/.test(user) && /\[\d\] .*forty minutes/.test(user)
            ? 'The crossing takes forty minutes in calm weather [1].'
            : 'not in this page';
        return { body: { choices: [{ index: 0, message: { role: 'assistant', content } }], usage: { prompt_tokens: 100, completion_tokens: 10 } } };
      },
    });
    const data = tempDir();
    const settings = resolveSettings(testFlags(data.dir, { 'delay-ms': '0', provider: 'openai', 'openai-base-url': `${model.origin}/v1` }), {});
    const server = await startServer(settings, { port: '0', 'write-token': WRITE }, { OPENAI_API_KEY: 'k' });
    try {
      const fc = new Firecrawl({ apiKey: WRITE, apiUrl: server.url.replace(/\/$/, '') });
      const url = `${site.origin}/guide`;
      const doc = await fc.scrape(url, {
        formats: [
          'markdown',
          'summary',
          { type: 'highlights', query: 'how long does the ferry crossing take' },
          { type: 'attributes', selectors: [{ selector: 'main a[data-kind]', attribute: 'data-kind' }] },
        ],
      });
      // Highlights: the page's own sentences, adjacent ones joined; each cites its span and record.
      assert.match(doc.highlights!, /Ferries to the island leave from pier two every hour\. The crossing takes forty minutes in calm weather\./);
      assert.doesNotMatch(doc.highlights!, /café/);
      const cites = (
        doc.metadata as { highlights?: Array<{ text: string; start: number; end: number; warcFile: string; warcOffset: number; warcLength: number }> }
      ).highlights!;
      assert.ok(cites.length >= 1);
      for (const c of cites) {
        assert.equal(doc.markdown!.slice(c.start, c.end), c.text, 'the span is the passage in the markdown');
        // The cited record holds the page as served, with the passage's words in it.
        const archived = await readResponse(join(data.dir, 'warc'), { file: c.warcFile, offset: c.warcOffset, length: c.warcLength });
        assert.equal(archived.status, 200);
        assert.match(archived.body.toString('utf8'), /The crossing takes forty minutes in calm weather/);
      }
      assert.ok(doc.summary && doc.summary.length > 20 && doc.markdown!.includes(doc.summary.split(/[.!?]/)[0]!.trim()), doc.summary);
      assert.deepEqual(doc.attributes, [{ selector: 'main a[data-kind]', attribute: 'data-kind', values: ['rules', 'fares'] }]);
      // Code blocks and table rows come as the page wrote them.
      const code = await fc.scrape(url, { formats: [{ type: 'highlights', query: 'timetable curl' }] });
      assert.match(code.highlights!, /```[^\n]*\ncurl https:\/\/ferry\.example\/timetable\?route=island\n```/);
      const rows = await fc.scrape(url, { formats: [{ type: 'highlights', query: 'Osprey' }] });
      assert.match(rows.highlights!, /\| Route \| Departure \| Ferry \|\n\| --- \| --- \| --- \|\n\| Island \| 09:00 \| Osprey \|/);

      // A question: the chat model's answer from the passages; "not in this page" when they hold none.
      const answered = await fc.scrape(url, { formats: [{ type: 'question', question: 'How long is the crossing?' }] });
      assert.equal(answered.answer, 'The crossing takes forty minutes in calm weather [1].');
      const passagesSent = model.seen.filter((s) => s.path === '/v1/chat/completions').at(-1)!.body.messages[1].content as string;
      assert.doesNotMatch(passagesSent, /café/, 'only the passages go to the model');
      const unanswered = await fc.scrape(url, { formats: [{ type: 'question', question: 'Who painted the lighthouse?' }] });
      assert.equal(unanswered.answer, 'not in this page');

      // Batch scrape: the URLs as one job that follows nothing; its status answers as a crawl's.
      const batch = await fc.batchScrape([url, `${site.origin}/fares`], { options: { formats: ['markdown'] }, pollInterval: 1 });
      assert.equal(batch.status, 'completed');
      assert.deepEqual(batch.data.map((d) => new URL(d.metadata!.sourceURL!).pathname).sort(), ['/fares', '/guide']);
      assert.match(batch.data.find((d) => d.metadata?.sourceURL?.endsWith('/fares'))!.markdown!, /twelve euros/);
      assert.ok(!asked.includes('/rules'), 'a batch scrape follows no link');
      await assert.rejects(fc.startBatchScrape(['ftp://x', url]), /not http\(s\) URLs/);

      // The docs' snippet, as written, with the SDK version it names.
      const ran = await runSnippet('highlights.mjs', '@mendable/firecrawl-js', [url, 'how long does the ferry crossing take'], {
        TRAWL_URL: server.url.replace(/\/$/, ''),
        TRAWL_API_WRITE_TOKEN: WRITE,
      });
      assert.equal(ran.status, 0, ran.stderr);
      assert.match(ran.stdout, /The crossing takes forty minutes in calm weather\./);
      assert.match(ran.stdout, /\.warc\.gz at \d+ \(\d+ bytes\), characters \d+–\d+ of the markdown/);
      assert.match(ran.stdout, /the same from the archive alone\n$/);

      // The question and batch snippets too, as written.
      const asked2 = await runSnippet('question.mjs', '@mendable/firecrawl-js', [url, 'How long is the crossing?'], {
        TRAWL_URL: server.url.replace(/\/$/, ''),
        TRAWL_API_WRITE_TOKEN: WRITE,
      });
      assert.equal(asked2.status, 0, asked2.stderr);
      assert.match(asked2.stdout, /^The crossing takes forty minutes in calm weather \[1\]\.\n\[\S+\.warc\.gz at \d+\] /);
      const batched = await runSnippet('batch.mjs', '@mendable/firecrawl-js', [url, `${site.origin}/fares`], {
        TRAWL_URL: server.url.replace(/\/$/, ''),
        TRAWL_API_WRITE_TOKEN: WRITE,
      });
      assert.equal(batched.status, 0, batched.stderr);
      assert.match(batched.stdout, /\/guide \d+\n/);
      assert.match(batched.stdout, /\/fares \d+\n/);
      const attributes = await runSnippet('attributes.mjs', '@mendable/firecrawl-js', [url, 'main a', 'data-kind'], {
        TRAWL_URL: server.url.replace(/\/$/, ''),
        TRAWL_API_WRITE_TOKEN: WRITE,
      });
      assert.equal(attributes.status, 0, attributes.stderr);
      assert.match(attributes.stdout, /crossing takes forty minutes/, 'the summary first');
      assert.match(attributes.stdout, /\nmain a data-kind: rules fares\n$/);

      // Lockdown: from the archive, not one request to the site (not even robots.txt).
      const before = asked.length;
      const locked = await fc.scrape(url, { formats: ['markdown', { type: 'highlights', query: 'pier two' }], lockdown: true, maxAge: 0 });
      assert.match(locked.markdown!, /Ferry guide/);
      assert.match(locked.highlights!, /pier two/);
      await assert.rejects(fc.scrape(`${site.origin}/never-seen`, { formats: ['markdown'], lockdown: true }), /not in the archive/);
      await assert.rejects(fc.scrape(url, { formats: [{ type: 'question', question: 'How long?' }], lockdown: true }), /lockdown/);
      assert.equal(asked.length, before, `requests during lockdown: ${asked.slice(before).join(', ')}`);
    } finally {
      await server.close();
      await site.close();
      await model.close();
      data.cleanup();
    }
  },
);

test('Firecrawl SDK: the question format is refused before any fetch without a chat model', { timeout: 60_000 }, async () => {
  const asked: string[] = [];
  const site = await serve((req, res) => {
    asked.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'text/html' }).end(GUIDE);
  });
  const data = tempDir();
  const server = await startServer(resolveSettings(testFlags(data.dir, { 'delay-ms': '0' }), {}), { port: '0', 'write-token': WRITE }, {});
  try {
    const fc = new Firecrawl({ apiKey: WRITE, apiUrl: server.url.replace(/\/$/, '') });
    await assert.rejects(
      fc.scrape(`${site.origin}/guide`, { formats: [{ type: 'question', question: 'How long?' }] }),
      /question format needs an LLM provider/,
    );
    await assert.rejects(fc.scrape(`${site.origin}/guide`, { formats: [{ type: 'highlights', query: '' }] }), /highlights format/);
    assert.deepEqual(asked, []);
  } finally {
    await server.close();
    await site.close();
    data.cleanup();
  }
});

test("Firecrawl SDK: search answers from the server's own index, the page's passages as each hit's description", { timeout: 120_000 }, async () => {
  const site = await serve((req, res) => {
    if (req.url === '/guide') return void res.writeHead(200, { 'content-type': 'text/html' }).end(GUIDE);
    if (req.url === '/')
      return void res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          '<!doctype html><title>Harbour</title><main><h1>Harbour</h1><p>The harbour office sells fishing licences and keeps the tide tables for the year.</p><a href="/guide">Ferry guide</a></main>',
        );
    res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
  });
  const data = tempDir();
  try {
    await crawl([`${site.origin}/`], { data: data.dir, allowPrivateNetwork: true, delayMs: 0, maxRps: 0, render: 'never', enrich: true, env: {} });
  } finally {
    await site.close();
  }
  const server = await startServer(resolveSettings(testFlags(data.dir, {}), {}), { port: '0', 'write-token': WRITE }, {});
  try {
    const fc = new Firecrawl({ apiKey: WRITE, apiUrl: server.url.replace(/\/$/, '') });
    const found = await fc.search('ferry crossing minutes', { limit: 3 });
    const first = found.web![0] as { url: string; description?: string; position?: number };
    assert.equal(first.url, `${site.origin}/guide`);
    assert.match(first.description!, /The crossing takes forty minutes/, 'the page’s passage, not its summary');
    assert.equal(first.position, 1);
    assert.equal(found.warning, undefined);
    const scraped = await fc.search('ferry crossing minutes', { limit: 1, scrapeOptions: { formats: ['markdown', 'links'] } });
    const doc = scraped.web![0] as { markdown?: string; links?: string[]; url: string };
    assert.match(doc.markdown!, /Ferry guide/);
    assert.equal(doc.url, `${site.origin}/guide`);
    const plain = await fc.search('ferry crossing minutes', { limit: 1, highlights: false });
    // highlights: false: the page's summary, as a plain description.
    const described = (plain.web![0] as { description?: string }).description ?? '';
    assert.match(described, /^The harbour has three piers/);
    assert.notEqual(described, first.description);
    const elsewhere = await fc.search('ferry crossing minutes', { limit: 3, excludeDomains: [new URL(site.origin).hostname] });
    assert.deepEqual(elsewhere.web ?? [], []);
    await assert.rejects(fc.search('ferries', { sources: ['news'] }), /news source is not supported/);
    const searched = await runSnippet('search.mjs', '@mendable/firecrawl-js', ['ferry crossing minutes'], {
      TRAWL_URL: server.url.replace(/\/$/, ''),
      TRAWL_API_WRITE_TOKEN: WRITE,
    });
    assert.equal(searched.status, 0, searched.stderr);
    assert.match(searched.stdout, new RegExp(`^1 ${site.origin}/guide\\n  .*The crossing takes forty minutes`));
  } finally {
    await server.close();
  }
  // With a web search provider configured (a SearXNG instance on loopback): the web's hits, each
  // described by the archived page's passages when trawl holds it, else by the provider's snippet.
  const searx = await serve((req, res) => {
    const q = new URL(req.url ?? '/', 'http://x').searchParams;
    const results =
      q.get('pageno') === '1'
        ? [
            { url: `${site.origin}/guide`, title: 'Ferry guide', content: 'A guide to the ferries.' },
            { url: 'https://elsewhere.example/ferries', title: 'Ferries elsewhere', content: 'Ferries in another harbour.' },
          ]
        : [];
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ results }));
  });
  const web = await startServer(resolveSettings(testFlags(data.dir, {}), {}), { port: '0', 'write-token': WRITE }, { TRAWL_SEARXNG_URL: `${searx.origin}/` });
  try {
    const fc = new Firecrawl({ apiKey: WRITE, apiUrl: web.url.replace(/\/$/, '') });
    const found = await fc.search('ferry crossing minutes', { limit: 2 });
    const [archived, elsewhere] = found.web as Array<{ url: string; description?: string }>;
    assert.equal(archived!.url, `${site.origin}/guide`);
    assert.match(archived!.description!, /The crossing takes forty minutes/, 'the archived page’s passage');
    assert.equal(elsewhere!.url, 'https://elsewhere.example/ferries');
    assert.equal(elsewhere!.description, 'Ferries in another harbour.', 'the provider’s snippet for a page trawl does not hold');
  } finally {
    await web.close();
    await searx.close();
  }
  // An embedding model that fails: the full text answers, and says so.
  const local = openLocalForWriting(data.dir, 'test');
  try {
    const failing = { embed: () => Promise.reject(new ProviderError('rejected', 'the embeddings endpoint answered 404')) } as unknown as Embedder;
    const answer = await indexSearch({ enrich: local.enrich, vectors: local.vectors, embedder: failing }, 'ferry crossing minutes', 3);
    assert.equal(answer.hits[0]?.url, `${site.origin}/guide`);
    assert.match(answer.warning!, /full-text results only: the embedding model failed \(the embeddings endpoint answered 404\)/);
  } finally {
    await local.close();
    data.cleanup();
  }
});

test('Firecrawl SDK: parse reads an uploaded HTML or PDF file as a crawled page, nothing fetched', { timeout: 60_000 }, async () => {
  const data = tempDir();
  const server = await startServer(resolveSettings(testFlags(data.dir, {}), {}), { port: '0', 'write-token': WRITE }, {});
  try {
    const fc = new Firecrawl({ apiKey: WRITE, apiUrl: server.url.replace(/\/$/, '') });
    const html = await fc.parse(
      { data: Buffer.from(GUIDE), filename: 'guide.html', contentType: 'text/html' },
      { formats: ['markdown', 'links', 'summary', { type: 'highlights', query: 'crossing minutes' }] },
    );
    assert.match(html.markdown!, /^# Ferry guide/m);
    assert.doesNotMatch(html.markdown!, /Home/, 'the main content, as a crawl extracts it');
    assert.ok(html.links!.some((l) => l.endsWith('/rules')));
    assert.match(html.highlights!, /The crossing takes forty minutes/);
    assert.ok(html.summary!.length > 20);
    const pdf = await fc.parse(
      {
        data: makePdf(['The ferry timetable for the winter season.', 'Boats leave the island at nine and at four.']),
        filename: 'winter.pdf',
        contentType: 'application/pdf',
      },
      { formats: ['markdown'] },
    );
    assert.match(pdf.markdown!, /Boats leave the island at nine and at four/);
    await assert.rejects(fc.parse({ data: Buffer.from([1, 2, 3, 4]), filename: 'x.bin', contentType: 'application/octet-stream' }), /neither HTML nor PDF/);
    const file = join(data.dir, 'guide.html');
    writeFileSync(file, GUIDE);
    const parsed = await runSnippet('parse.mjs', '@mendable/firecrawl-js', [file], { TRAWL_URL: server.url.replace(/\/$/, ''), TRAWL_API_WRITE_TOKEN: WRITE });
    assert.equal(parsed.status, 0, parsed.stderr);
    assert.match(parsed.stdout, /ferr/i);
    // Over the size limit: refused before it is read whole.
    await assert.rejects(fc.parse({ data: Buffer.alloc(11 * 1024 * 1024, 32), filename: 'big.html', contentType: 'text/html' }), /at most 10485760 bytes/);
  } finally {
    await server.close();
    data.cleanup();
  }
});
