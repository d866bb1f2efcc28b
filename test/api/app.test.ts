// The HTTP API over a real crawl of the search fixture (local provider), served by `trawl serve`'s
// server on loopback: every route, its validation (400s that name the parameter, 404s for unknown
// ids), cursor pagination, the Prometheus page, the OpenAPI document and the bearer token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serveOptions, startServer } from '../../shared/cli/serve-command.js';
import { UsageError } from '../../shared/errors.js';
import { withEnrichedCrawl } from '../../support/search/fixture-site.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies, checked by the assertions
type Json = Record<string, any>;

test('the API answers every route over a crawl, validates every parameter and pages search results by cursor', async () => {
  await withEnrichedCrawl(async (settings) => {
    const server = await startServer(settings, { port: '0' }, {});
    const get = async (path: string, headers: Record<string, string> = {}) => {
      const res = await fetch(new URL(path, server.url), { headers });
      const text = await res.text();
      return { status: res.status, type: res.headers.get('content-type') ?? '', text, json: () => JSON.parse(text) as Json };
    };
    try {
      assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/$/);
      assert.deepEqual((await get('/healthz')).json(), { ok: true, runs: 1 });

      // Search: the known answer first, why it matched, and a cursor through the rest.
      const found = (await get('/search?q=seasoning%20cast%20iron&limit=2')).json();
      assert.equal(new URL(found.hits[0].url).pathname, '/cast-iron-care');
      assert.deepEqual(found.hits[0].why.terms, ['seasoning', 'cast', 'iron']);
      assert.ok(found.hits[0].summary.length > 40 && found.hits[0].tags.length >= 3);
      assert.equal(found.hits.length, 2);
      assert.ok(found.next, 'a next cursor while there are more hits');
      const second = (await get(`/search?q=seasoning%20cast%20iron&limit=2&cursor=${found.next}`)).json();
      // The next page goes on from rank 3 (how many follow depends on the matches above the vector floor).
      assert.equal(second.hits[0].rank, 3);
      assert.deepEqual(
        second.hits.map((h: Json) => h.rank),
        second.hits.map((_: Json, i: number) => 3 + i),
      );
      assert.ok(!second.hits.some((h: Json) => found.hits.some((f: Json) => f.urlId === h.urlId)), 'pages do not repeat');
      const foreign = await get(`/search?q=bread&cursor=${found.next}`);
      assert.equal(foreign.status, 400);
      assert.match(foreign.json().error, /"cursor": the cursor belongs to another query/);
      const tagged = (await get('/search?q=pan&tags=seasoning')).json();
      assert.ok(tagged.hits.length >= 1 && tagged.hits.every((h: Json) => h.tags.includes('#seasoning')));
      assert.equal((await get('/search?q=pan&domain=example.org')).json().hits.length, 0);

      // Bad input is a 400 naming the parameter; unknown ids are 404s; never a 500.
      const bad: Array<[string, number, RegExp]> = [
        ['/search', 400, /query parameter "q"/],
        ['/search?q=%20%20', 400, /query parameter "q": expected a query/],
        ['/search?q=x&limit=500', 400, /query parameter "limit"/],
        ['/search?q=x&limit=two', 400, /query parameter "limit"/],
        ['/search?q=x&mode=magic', 400, /query parameter "mode"/],
        ['/search?q=x&since=yesterday', 400, /query parameter "since": expected a date/],
        ['/search?q=x&tags=Not%20A%20Tag', 400, /query parameter "tags"/],
        ['/search?q=x&cursor=garbage', 400, /query parameter "cursor": not a cursor this API made/],
        ['/pages/not-an-id', 400, /path parameter "id": expected a page id/],
        [`/pages/${'0'.repeat(32)}`, 404, /no stored page/],
        [`/graph/neighbourhood/${'0'.repeat(32)}`, 404, /no stored page/],
        ['/graph/top?limit=0', 400, /query parameter "limit"/],
        ['/runs/abc', 400, /path parameter "id"/],
        ['/runs/999', 404, /no run 999/],
        ['/nowhere', 404, /no route GET \/nowhere/],
      ];
      for (const [path, status, message] of bad) {
        const r = await get(path);
        assert.equal(r.status, status, `${path}: ${r.text}`);
        assert.match(r.json().error, message, path);
      }

      // A page: metadata, summary, tags, links with their words and context, history.
      const id = found.hits[0].urlId as string;
      const page = (await get(`/pages/${id}`)).json();
      assert.equal(page.url, found.hits[0].url);
      assert.equal(page.status, 200);
      assert.ok(page.extraction.wordCount > 50 && page.extraction.markdown.includes('cast'));
      assert.equal(page.enrichment.summary, found.hits[0].summary);
      assert.ok(page.inlinksTotal >= 2);
      const anchors = page.inlinks.map((l: Json) => l.anchor);
      assert.ok(anchors.includes('looking after the pot'), JSON.stringify(page.inlinks));
      assert.ok(page.inlinks.every((l: Json) => l.toPageId === id || l.toId === id));
      assert.ok(page.inlinks.some((l: Json) => l.context.length > 0 && l.section === 'body'));
      assert.equal(page.history.length, 1);
      assert.equal(page.history[0].status, 200);

      // The graph: the most linked pages, and a page's neighbourhood whose edges join listed nodes.
      const top = (await get('/graph/top?limit=5')).json();
      assert.ok(top.pages.length >= 1 && top.pages.length <= 5);
      for (const depth of [1, 2]) {
        const n = (await get(`/graph/neighbourhood/${id}?depth=${depth}`)).json();
        const ids = new Set(n.nodes.map((x: Json) => x.id));
        assert.ok(ids.has(id) && n.nodes.length > 2, `depth ${depth}: ${n.nodes.length} nodes`);
        assert.ok(n.edges.length >= n.nodes.length - 1);
        for (const e of n.edges) assert.ok(ids.has(e.from) && ids.has(e.to), `edge ${e.from} → ${e.to} joins listed nodes`);
        assert.ok(n.nodes.every((x: Json) => x.depth <= depth));
      }
      assert.equal((await get(`/graph/neighbourhood/${id}?depth=3`)).status, 400);

      // Runs: counters, statuses and the pages/s series.
      const listed = (await get('/runs')).json();
      const runs = listed.runs;
      assert.equal(runs.length, 1);
      assert.equal(listed.next, undefined, 'one run: no older page');
      assert.equal((await get('/runs?limit=0')).status, 400);
      const run = (await get(`/runs/${runs[0].id}`)).json();
      assert.equal(run.status, 'finished');
      assert.ok(run.pagesStored >= 10);
      assert.equal(
        run.series.reduce((n: number, p: Json) => n + p.requests, 0),
        Object.values(run.fetchesByStatus as Record<string, number>).reduce((a, b) => a + b, 0),
        'the series counts every request the summary counts',
      );
      assert.ok(run.series.every((p: Json) => p.pagesPerSecond >= 0 && p.at % run.bucketMs === 0));

      // Prometheus: the store's figures and this process's searches.
      const metrics = await get('/metrics');
      assert.match(metrics.type, /^text\/plain; version=0\.0\.4/);
      assert.match(metrics.text, new RegExp(`^trawl_fetches_total\\{run="1",status="200"\\} ${run.fetchesByStatus['200']}$`, 'm'));
      assert.match(metrics.text, new RegExp(`^trawl_fetch_duration_seconds_count\\{run="1"\\} ${run.requests}$`, 'm'));
      assert.match(metrics.text, /^trawl_fetch_duration_seconds_bucket\{run="1",le="\+Inf"\} \d+$/m);
      assert.match(metrics.text, /^trawl_queue_depth\{run="1",state="queued"\} 0$/m);
      assert.match(metrics.text, /^trawl_enrich_failures\{stage="summary"\} 0$/m);
      const enriched = Number(/^trawl_enrich_duration_seconds_count (\d+)$/m.exec(metrics.text)?.[1]);
      assert.ok(enriched >= 30, `every enriched page's time is counted (${enriched})`);
      assert.match(metrics.text, new RegExp(`^trawl_enrich_duration_seconds_bucket\\{le="\\+Inf"\\} ${enriched}$`, 'm'));
      assert.match(metrics.text, /^trawl_search_duration_seconds_count 4$/m, 'four searches ran (a request refused by validation runs none)');
      assert.match(metrics.text, /^trawl_api_requests_total\{route="\/search",status="400"\} 9$/m);
      for (const line of metrics.text.trim().split('\n')) assert.match(line, /^(# (HELP|TYPE) \w+ .+|\w+(\{[^}]*\})? -?[\d.e+]+)$/, line);

      // The OpenAPI document comes from the same schemas.
      const doc = (await get('/openapi.json')).json();
      assert.equal(doc.openapi, '3.1.0');
      for (const path of ['/search', '/pages/{id}', '/graph/top', '/graph/neighbourhood/{id}', '/runs', '/runs/{id}', '/healthz'])
        assert.ok(doc.paths[path], path);
      const limit = doc.paths['/search'].get.parameters.find((p: Json) => p.name === 'limit');
      assert.equal(limit.schema.maximum, 50);
    } finally {
      await server.close();
    }

    // Beyond loopback a token is required; with one, every route but /healthz asks for it.
    assert.throws(
      () => serveOptions({ host: '0.0.0.0' }, {}),
      (e: unknown) => e instanceof UsageError && /pass --token/.test(e.message),
    );
    assert.throws(() => serveOptions({ port: '70000' }, {}), /--port: expected a port number/);
    const token = 'a-long-enough-secret-token';
    const guarded = await startServer(settings, { port: '0', token }, {});
    try {
      assert.equal((await fetch(new URL('/healthz', guarded.url))).status, 200);
      const denied = await fetch(new URL('/runs', guarded.url));
      assert.equal(denied.status, 401);
      assert.match(((await denied.json()) as Json).error, /bearer token/);
      assert.equal((await fetch(new URL('/runs', guarded.url), { headers: { authorization: 'Bearer wrong-token-of-some-length' } })).status, 401);
      assert.equal((await fetch(new URL('/runs', guarded.url), { headers: { authorization: `Bearer ${token}` } })).status, 200);
    } finally {
      await guarded.close();
    }
  });
});
