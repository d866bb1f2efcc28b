// A crawl that starts from a web search query, a subreddit and a URL, against the local API
// servers and a content site: the search and social calls are archived, their results and the
// links in the posts are crawled at depth 1 with the target as their source (the link graph says
// where each URL came from), their hosts join the scope, and with every server closed the replay
// of the same targets returns the content the crawl used.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import { crawl } from '../../shared/library/crawl.js';
import { openStore } from '../../shared/library/store.js';
import { FetchedAndFailedError } from '../../shared/errors.js';
import type { CrawlEvent } from '../../shared/pipeline/stages/progress.js';
import type { FetchedContent } from '../../shared/targets/content.js';
import { openLocalForReading } from '../../shared/store/local/open-local.js';
import { urlId } from '../../shared/url/canonical.js';
import { serve, tempDir } from '../../support/helpers.js';
import { runCli } from '../e2e/cli-process.js';
import { startApiServers, type ApiServers } from './api-servers.js';

const QUERY = 'search:fire sprinkler inspection Minneapolis';
const SEARCH_KEY = 'search:fire sprinkler inspection minneapolis';
const SUB = 'r/Minneapolis';
const SUB_KEY = 'reddit:r/minneapolis';

let api: ApiServers;
let site: Awaited<ReturnType<typeof serve>>;
let other: Awaited<ReturnType<typeof serve>>;
let seedSite: Awaited<ReturnType<typeof serve>>;
let data: ReturnType<typeof tempDir>;
let env: Record<string, string>;
const served: string[] = [];
const events: CrawlEvent[] = [];

const html = (title: string, body: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1>${body}</main></body></html>`;

before(async () => {
  data = tempDir();
  other = await serve((_req, res) => void res.writeHead(200, { 'content-type': 'text/html' }).end(html('Elsewhere', '<p>Not in scope.</p>')));
  site = await serve((req, res) => {
    const path = req.url ?? '/';
    served.push(path);
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /private\n');
    // Results, posts' links and the pages they link to: one level further on the same host, and one link off it.
    const m = /^\/(results|posts|linked)\/(\d+)$/.exec(path);
    if (m)
      return void res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(
          html(
            `${m[1]} ${m[2]}`,
            `<p>Sprinkler systems in Minneapolis are inspected every quarter, said page ${m[2]}.</p><p><a href="/deeper/${m[1]}-${m[2]}">More detail</a> and <a href="${other.origin}/elsewhere">elsewhere</a>.</p>`,
          ),
        );
    if (path.startsWith('/deeper/')) return void res.writeHead(200, { 'content-type': 'text/html' }).end(html('Deeper', '<p>The end of the line.</p>'));
    res.writeHead(404).end();
  });
  seedSite = await serve((req, res) => {
    if (req.url === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(html('Seed', '<p>A plain seed.</p>'));
    res.writeHead(404).end();
  });
  api = await startApiServers(() => site.origin);
  env = { TRAWL_SEARXNG_URL: `${api.origin}/searx`, TRAWL_REDDIT_URL: api.origin };
  // The command a user types; its JSON lines are the crawl's events.
  const cli = await runCli(
    [
      'crawl',
      QUERY,
      SUB,
      `${seedSite.origin}/`,
      '--data',
      data.dir,
      '--allow-private-network',
      '--delay-ms',
      '0',
      '--max-rps',
      '0',
      '--target-limit',
      '4',
      '--json',
    ],
    120_000,
    env,
  );
  assert.equal(cli.code, 0, cli.stderr);
  events.push(
    ...cli.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as CrawlEvent),
  );
});

after(async () => {
  await api?.close();
  await site?.close();
  await other?.close();
  await seedSite?.close();
  data?.cleanup();
});

test('archives the search and the subreddit as interactions of the run, each answered once', async () => {
  const store = openStore(data.dir);
  try {
    const search = await store.history(QUERY);
    const social = await store.history(SUB);
    assert.equal(search.length, 1);
    assert.equal(social.length, 1);
    assert.equal(search[0]!.status, 200);
    assert.ok(search[0]!.contentHash && social[0]!.contentHash);
    assert.equal(api.requests.filter((r) => r.path.startsWith('/searx/search')).length, 1, 'four results come from the first page');
    assert.equal(api.requests.filter((r) => r.path.startsWith('/r/Minneapolis/new.json')).length, 1);
    const targets = events.filter((e): e is Extract<CrawlEvent, { type: 'target' }> => e.type === 'target');
    assert.deepEqual(
      targets.map((t) => [t.key, t.kind, t.source, t.links, t.error]),
      [
        [SEARCH_KEY, 'search', 'live', 4, undefined],
        [SUB_KEY, 'social', 'live', 4, undefined],
      ],
    );
    const summary = (await store.summary())!;
    assert.equal(summary.status, 'finished');
    assert.deepEqual(summary.targets, [QUERY, SUB]);
    assert.deepEqual(summary.seeds, [`${seedSite.origin}/`]);
  } finally {
    await store.close();
  }
});

test('crawls the results and the links in the posts at depth 1, and their own links within the new scope', () => {
  for (const path of ['/results/1', '/results/4', '/linked/1', '/posts/2', '/linked/3', '/posts/4', '/deeper/results-1', '/deeper/posts-2'])
    assert.ok(served.includes(path), `${path} was not fetched (served: ${served.join(' ')})`);
  assert.ok(!served.includes('/results/5'), 'the target limit caps the results');
  assert.ok(served.includes('/robots.txt'));
  const local = openLocalForReading(data.dir);
  try {
    const rows = local.store.db.prepare('SELECT url, depth, state, reason, discovered_from AS "from" FROM frontier').all() as Array<{
      url: string;
      depth: number;
      state: string;
      reason: string | null;
      from: string | null;
    }>;
    const at = (path: string) => rows.find((r) => r.url === `${site.origin}${path}`);
    assert.deepEqual([at('/results/2')?.depth, at('/results/2')?.from, at('/results/2')?.state], [1, SEARCH_KEY, 'done']);
    assert.deepEqual([at('/linked/1')?.depth, at('/linked/1')?.from, at('/linked/1')?.state], [1, SUB_KEY, 'done']);
    assert.equal(at('/deeper/results-2')?.depth, 2);
    const elsewhere = rows.find((r) => r.url === `${other.origin}/elsewhere`);
    assert.deepEqual([elsewhere?.state, elsewhere?.reason], ['skipped', 'out-of-scope'], 'a result host joins the scope, not every host it links to');
    assert.ok(!rows.some((r) => r.url.startsWith('https://www.reddit.com/')), 'post permalinks are not crawled: only the links the posts carry');
    const run = local.store.db.prepare('SELECT scope FROM runs').get() as { scope: string };
    assert.deepEqual(JSON.parse(run.scope), [site.origin]);
  } finally {
    void local.close();
  }
});

test('the link graph says where each URL came from: the query with the result title, the subreddit with the post text', async () => {
  const store = openStore(data.dir);
  try {
    const result = await store.inlinks(`${site.origin}/results/1`);
    assert.deepEqual(
      result.map((l) => [l.fromUrl, l.anchor, l.context]),
      [[SEARCH_KEY, 'fire sprinkler inspection Minneapolis — result 1', 'About fire sprinkler inspection Minneapolis: page 1.']],
    );
    const post = await store.inlinks(`${site.origin}/posts/2`);
    assert.deepEqual(
      post.map((l) => [l.fromUrl, l.anchor]),
      [[SUB_KEY, 'Post 2 in Minneapolis']],
    );
    assert.match(post[0]!.context, /Details about post 2/);
    const outlinks = await store.outlinks('search:Fire  Sprinkler inspection minneapolis');
    assert.equal(outlinks.length, 4, 'a target is looked up by its normalised key');
    const page = await store.page(SUB);
    assert.equal(page?.mime, 'application/vnd.trawl.social-posts+json');
    assert.equal(page?.indexable, false);
  } finally {
    await store.close();
  }
});

test('with every server closed, the replay of the same targets returns the content the crawl used', async () => {
  await api.close();
  await site.close();
  const store = openStore(data.dir);
  const local = openLocalForReading(data.dir);
  try {
    for (const [target, key] of [
      [QUERY, SEARCH_KEY],
      [SUB, SUB_KEY],
    ] as const) {
      const page = (await local.store.getPage(urlId(key)))!;
      const used = JSON.parse((await local.blobs.get(page.contentHash!))!.toString('utf8')) as FetchedContent;
      const replayed = await store.fetch(target);
      assert.deepEqual(replayed, used);
    }
    const search = (await store.fetch(QUERY)) as Extract<FetchedContent, { type: 'search-results' }>;
    assert.deepEqual(
      search.results.map((r) => [r.rank, r.url]),
      [1, 2, 3, 4].map((n) => [n, `${site.origin}/results/${n}`]),
    );
    const cli = await runCli(['fetch', SUB, '--replay', '--json', '--data', data.dir]);
    assert.equal(cli.code, 0, cli.stderr);
    assert.deepEqual(JSON.parse(cli.stdout), await store.fetch(SUB));
  } finally {
    await local.close();
    await store.close();
  }
});

test("a resumed crawl takes its targets' answers from the run's archive and calls no API again", async () => {
  const dir = tempDir();
  const web = await serve((req, res) => {
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(html(`Page ${req.url}`, '<p>Some words about sprinklers.</p>'));
  });
  const apis = await startApiServers(() => web.origin);
  try {
    const options = {
      data: dir.dir,
      allowPrivateNetwork: true,
      delayMs: 20,
      extractWorkers: 0,
      targetLimit: 6,
      env: { TRAWL_SEARXNG_URL: `${apis.origin}/searx` },
    };
    const stop = new AbortController();
    const first = await crawl([QUERY], { ...options, signal: stop.signal, onEvent: (e) => e.type === 'fetch' && e.kind === 'page' && stop.abort() });
    assert.equal(first.status, 'interrupted');
    const calls = apis.requests.length;
    const seen: CrawlEvent[] = [];
    const resumed = await crawl([], { ...options, resume: true, onEvent: (e) => seen.push(e) });
    assert.equal(resumed.status, 'finished');
    assert.equal(apis.requests.length, calls, 'no API call on resume');
    const target = seen.find((e): e is Extract<CrawlEvent, { type: 'target' }> => e.type === 'target');
    assert.deepEqual([target?.key, target?.source, target?.links], [SEARCH_KEY, 'archive', 6]);
    const store = openStore(dir.dir);
    try {
      for (let n = 1; n <= 6; n++) assert.equal((await store.page(`${web.origin}/results/${n}`))?.status, 200, `result ${n}`);
      assert.equal((await store.history(QUERY)).length, 1);
    } finally {
      await store.close();
    }
  } finally {
    await apis.close();
    await web.close();
    dir.cleanup();
  }
});

test('a target whose backend fails fails alone: archived as a failed call, and the crawl goes on', async () => {
  const dir = tempDir();
  const apis = await startApiServers(() => seedSite.origin);
  try {
    const seen: CrawlEvent[] = [];
    const summary = await crawl(['r/banned', `${seedSite.origin}/`], {
      data: dir.dir,
      allowPrivateNetwork: true,
      delayMs: 0,
      extractWorkers: 0,
      env: { TRAWL_REDDIT_URL: apis.origin },
      onEvent: (e) => seen.push(e),
    });
    assert.equal(summary.status, 'finished');
    const failed = seen.find((e): e is Extract<CrawlEvent, { type: 'target' }> => e.type === 'target');
    assert.match(failed?.error ?? '', /HTTP 404/);
    const store = openStore(dir.dir);
    try {
      assert.equal((await store.page(`${seedSite.origin}/`))?.status, 200);
      await assert.rejects(store.fetch('r/banned'), FetchedAndFailedError);
    } finally {
      await store.close();
    }
  } finally {
    await apis.close();
    dir.cleanup();
  }
});

test('a query or account without a configured backend is refused before anything is created', async () => {
  const dir = tempDir();
  try {
    const data = `${dir.dir}/never`;
    await assert.rejects(
      crawl(['fire sprinkler inspection'], { data, env: {} }),
      /seed "fire sprinkler inspection" is a web search query \(a URL needs http:\/\/ or https:\/\/\), and no web search provider is configured: set TRAWL_SEARXNG_URL/,
    );
    await assert.rejects(
      crawl(['https://x.com/nfpa'], { data, env: {} }),
      /seed "https:\/\/x.com\/nfpa" is an x account, and x has no open API: set APIFY_TOKEN/,
    );
    await assert.rejects(crawl(['mailto:a@b.test'], { data, env: {} }), /invalid seed "mailto:a@b.test": mailto: URLs are not fetched/);
    await assert.rejects(crawl(['   '], { data, env: {} }), /invalid seed " {3}": empty target/);
    assert.equal(existsSync(data), false);
    assert.deepEqual(readdirSync(dir.dir), []);
  } finally {
    dir.cleanup();
  }
});
