import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from '../../shared/store/local/sqlite-driver.js';
import { DOCS } from '../../support/search/corpus.js';
import { tempDir } from '../../support/helpers.js';
import { runCli } from '../e2e/cli-process.js';
import { startFixtureSite } from '../../support/search/fixture-site.js';
import type { SearchHit } from '../../shared/search/hybrid.js';
import type { IntegrityReport } from '../../shared/search/integrity.js';

const lines = (s: string) =>
  s
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

test('crawl --enrich, search, enrich --stale and index --check/--reconcile work from the command line', async () => {
  const site = await startFixtureSite();
  const data = tempDir();
  const flags = ['--data', data.dir, '--allow-private-network', '--delay-ms', '0', '--json'];
  try {
    const crawled = await runCli(['crawl', `${site.origin}/`, ...flags, '--enrich'], 120_000);
    assert.equal(crawled.code, 0, crawled.stderr);
    const enriched = lines(crawled.stdout).find((e) => e.type === 'enriched') as { result: { enriched: number; failed: number } } | undefined;
    assert.ok(enriched, 'the crawl reports its enrichment');
    assert.equal(enriched.result.failed, 0);
    assert.ok(enriched.result.enriched >= DOCS.length, `enriched ${enriched.result.enriched}`);

    // A search names why each hit matched, with its summary, tags and inlink anchors.
    const found = await runCli(['search', 'seasoning cast iron', ...flags, '--limit', '3']);
    assert.equal(found.code, 0, found.stderr);
    const hits = lines(found.stdout).filter((e) => e.type === 'hit') as unknown as SearchHit[];
    assert.equal(new URL(hits[0]!.url).pathname, '/cast-iron-care');
    assert.deepEqual(hits[0]!.why.terms, ['seasoning', 'cast', 'iron']);
    assert.equal(hits[0]!.why.textRank, 1);
    assert.ok(hits[0]!.why.vectorRank! >= 1 && hits[0]!.why.fused > 0);
    assert.ok(hits[0]!.summary.length > 40 && hits[0]!.tags.includes('#seasoning'), JSON.stringify(hits[0]));
    assert.deepEqual(hits[0]!.inlinks.map((l) => l.anchor).sort(), ['looking after the pot', 'Seasoning and caring for a cast-iron pan'].sort());

    // Filters: a tag the page has keeps it, a domain it is not on removes everything.
    const tagged = lines((await runCli(['search', 'pan', ...flags, '--tag', 'seasoning'])).stdout).filter((e) => e.type === 'hit');
    assert.ok(tagged.length >= 1 && tagged.every((h) => (h.tags as string[]).includes('#seasoning')));
    const elsewhere = lines((await runCli(['search', 'pan', ...flags, '--domain', 'example.org'])).stdout).filter((e) => e.type === 'hit');
    assert.equal(elsewhere.length, 0);
    const bad = await runCli(['search', 'pan', ...flags, '--since', 'last week']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--since: expected a date as YYYY, YYYY-MM or YYYY-MM-DD/);

    // Unchanged pages are never enriched again; another embedding dimension makes every embedding stale.
    const again = lines((await runCli(['enrich', ...flags])).stdout)[0] as Record<string, number>;
    assert.equal(again.enriched, 0);
    assert.equal(again.unchanged, again.candidates);
    const stale = lines((await runCli(['enrich', ...flags, '--embed-dimension', '256'])).stdout)[0] as Record<string, number>;
    assert.equal(stale.enriched, 0);
    assert.equal(stale.stale, again.candidates);
    const redone = lines((await runCli(['enrich', '--stale', ...flags, '--embed-dimension', '256'])).stdout)[0] as Record<string, number>;
    assert.equal(redone.enriched, again.candidates);
    const db = new Database(join(data.dir, 'trawl.db'));
    let lost: string;
    try {
      const dims = db.prepare('SELECT DISTINCT dimension FROM vectors').all() as Array<{ dimension: number }>;
      assert.deepEqual(dims, [{ dimension: 256 }]);
      const stamps = db.prepare("SELECT DISTINCT json_extract(summary_stamp, '$.version') AS v FROM enrichments").all();
      assert.deepEqual(stamps, [{ v: 'textrank-v1' }], 'the summaries were not stale and stay as they were');

      // The two sinks drift: one vector lost, one left behind for a page the store does not know.
      lost = (db.prepare('SELECT url_id FROM vectors ORDER BY url_id LIMIT 1').get() as { url_id: string }).url_id;
      db.prepare('DELETE FROM vectors WHERE url_id = ?').run(lost);
      db.prepare("INSERT INTO vectors SELECT 'zz-orphan', model, dimension, hash, vector, host, language, published, tags FROM vectors LIMIT 1").run();
    } finally {
      db.close();
    }
    const dim = ['--embed-dimension', '256'];
    const check = await runCli(['index', '--check', ...flags, ...dim]);
    assert.equal(check.code, 1);
    const report = lines(check.stdout)[0] as unknown as IntegrityReport & { reports: string[] };
    assert.deepEqual(report.missing, [lost]);
    assert.deepEqual(report.orphans, ['zz-orphan']);
    const md = readFileSync(join(data.dir, report.reports[1]!), 'utf8');
    assert.match(md, /\| missing from the index \| 1 \|/);
    const fixed = await runCli(['index', '--reconcile', ...flags, ...dim]);
    assert.equal(fixed.code, 0, fixed.stdout + fixed.stderr);
    assert.deepEqual(lines(fixed.stdout)[0]!.repaired, { reembedded: 1, deleted: 1, failed: 0 });
    assert.equal((await runCli(['index', '--check', ...flags, ...dim])).code, 0);

    // A page that turns noindex on a re-crawl leaves both sinks at the next pass.
    const write = new Database(join(data.dir, 'trawl.db'));
    write.prepare("UPDATE pages SET indexable = 0 WHERE url LIKE '%/solar-panels'").run();
    write.close();
    const retired = lines((await runCli(['enrich', ...flags, ...dim])).stdout)[0] as Record<string, number>;
    assert.equal(retired.retired, 1);
    const solar = lines((await runCli(['search', 'rooftop solar panels', ...flags, ...dim])).stdout).filter((e) => e.type === 'hit');
    assert.ok(!solar.some((h) => String(h.url).endsWith('/solar-panels')));
    assert.equal((await runCli(['index', '--check', ...flags, ...dim])).code, 0, 'store and index agree after the retirement');
  } finally {
    await site.close();
    data.cleanup();
  }
});
