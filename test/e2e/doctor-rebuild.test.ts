// `trawl doctor --rebuild` on a crawl whose trawl.db was deleted: the WARC files hold every answer,
// and the database made from them answers `status`, `graph top` and a search as the original did.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from './cli-process.js';
import { withWeb } from '../../support/crawl-helpers.js';

interface Status {
  pagesStored: number;
  fetchesByStatus: Record<string, number>;
  duplicates: number;
}

/** What the three commands say, in the parts a rebuild must keep: the pages, the most linked pages, the hits. */
async function answers(dir: string): Promise<{ status: Status; top: string[]; search: string[] }> {
  const status = await runCli(['status', '--data', dir, '--json']);
  assert.equal(status.code, 0, status.stderr);
  const summary = JSON.parse(status.stdout.trim().split('\n').at(-1)!) as Status;
  const top = await runCli(['graph', 'top', '--data', dir, '--json']);
  assert.equal(top.code, 0, top.stderr);
  const search = await runCli(['search', 'polite crawler archive graph', '--data', dir, '--json']);
  assert.equal(search.code, 0, search.stderr);
  const lines = (out: string) => out.trim().split('\n').filter(Boolean);
  return {
    status: { pagesStored: summary.pagesStored, fetchesByStatus: summary.fetchesByStatus, duplicates: summary.duplicates },
    top: lines(top.stdout).map((l) => {
      const p = JSON.parse(l) as { url: string; inlinks: number; pagerank: number };
      return `${p.url} ${p.inlinks} ${p.pagerank.toFixed(6)}`;
    }),
    // Hits with their scores; hits of equal score in either order (their tie has no order to keep).
    search: lines(search.stdout)
      .flatMap((l) => {
        const hit = JSON.parse(l) as { url?: string; score?: number };
        return hit.url ? [`${(hit.score ?? 0).toFixed(6)} ${hit.url}`] : [];
      })
      .sort((a, b) => Number(b.split(' ')[0]) - Number(a.split(' ')[0]) || (a < b ? -1 : 1)),
  };
}

test('doctor --rebuild makes a deleted trawl.db again from the WARC files: status, graph top and a search answer as before', { timeout: 240_000 }, async () => {
  await withWeb({ articles: 8, blogHosts: 2 }, async (web, dir) => {
    const crawl = await runCli(['crawl', ...web.seeds(), '--data', dir, '--allow-private-network', '--delay-ms', '0', '--max-rps', '0', '--enrich'], 180_000);
    assert.equal(crawl.code, 0, crawl.stderr);
    const before = await answers(dir);
    assert.ok(before.status.pagesStored > 10 && before.top.length > 5 && before.search.length > 0, JSON.stringify(before));

    for (const f of readdirSync(dir)) if (f.startsWith('trawl.db')) rmSync(join(dir, f));
    const rebuilt = await runCli(['doctor', '--rebuild', '--data', dir], 180_000);
    assert.equal(rebuilt.code, 0, rebuilt.stderr);
    assert.match(rebuilt.stdout, /^rebuilt .*trawl\.db from \d+ WARC files?: 1 run, \d+ archived answers, \d+ pages/m);
    assert.match(rebuilt.stdout, /search index: \d+ pages enriched/);
    assert.deepEqual(await answers(dir), before);

    // Run again over a database that is there: it is moved aside, not lost.
    const again = await runCli(['doctor', '--rebuild', '--data', dir], 180_000);
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /the database that was there is kept as .*trawl\.db\.damaged-\d+/);
    assert.ok(readdirSync(dir).some((f) => /^trawl\.db\.damaged-\d+$/.test(f)));
    assert.deepEqual(await answers(dir), before);
  });
});

test('doctor --rebuild without WARC files says there is nothing to rebuild from and leaves the directory alone', async () => {
  await withWeb({ articles: 1, blogHosts: 1 }, async (_web, dir) => {
    const r = await runCli(['doctor', '--rebuild', '--data', dir]);
    assert.notEqual(r.code, 0);
    assert.match(r.stderr, /no WARC files of trawl's in .*warc: there is nothing to rebuild the database from/);
    assert.equal(existsSync(join(dir, 'trawl.db')), false);
  });
});
