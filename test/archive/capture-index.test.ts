// `trawl export --format parquet` is a capture index DuckDB reads: after two crawls of a changing
// site (the second conditional), DuckDB's counts of the second run's captures by status equal
// `trawl status`'s, each page's change kind is the one `trawl changes` tells, the SURT keys are
// pywb's, and a row's WARC file, offset and length fetch its record.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { openSync, readSync, closeSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { WARCParser } from 'warcio';
import { tempDir } from '../../support/helpers.js';
import { changingSite, crawlTwice } from '../changes/site.js';

/** Common Crawl's columnar index schema (cc-index-schema-flat), its 33 columns in order. */
const COMMON_CRAWL_COLUMNS = [
  'url_surtkey',
  'url',
  'url_host_name',
  'url_host_tld',
  'url_host_2nd_last_part',
  'url_host_3rd_last_part',
  'url_host_4th_last_part',
  'url_host_5th_last_part',
  'url_host_registry_suffix',
  'url_host_registered_domain',
  'url_host_private_suffix',
  'url_host_private_domain',
  'url_host_name_reversed',
  'url_protocol',
  'url_port',
  'url_path',
  'url_query',
  'fetch_time',
  'fetch_status',
  'fetch_redirect',
  'content_digest',
  'content_mime_type',
  'content_mime_detected',
  'content_charset',
  'content_languages',
  'content_truncated',
  'warc_record_id',
  'warc_filename',
  'warc_record_offset',
  'warc_record_length',
  'warc_segment',
  'crawl',
  'subset',
];

/** Three of Common Crawl's example queries of its index (cc-index-table, src/sql/examples/cc-index), as published. */
const COMMON_CRAWL_EXAMPLES = {
  fetchStatus: `-- fetch status counts
-- (only for the 'crawldiagnostics' subset,
--  captures in the 'warc' subset have status 200)
SELECT COUNT(*) as count,
       fetch_status
FROM "ccindex"."ccindex"
WHERE crawl = 'CC-MAIN-2018-05'
  AND subset = 'crawldiagnostics'
GROUP BY  fetch_status
ORDER BY  count DESC;`,
  byTld: `-- page/host/domain count per TLD
SELECT COUNT(*) AS n_pages,
       url_host_tld AS tld,
       COUNT(DISTINCT url_host_name) AS n_hosts,
       COUNT(DISTINCT url_host_registered_domain) AS n_domains
FROM "ccindex"."ccindex"
WHERE crawl = 'CC-MAIN-2018-05'
  AND subset = 'warc'
GROUP BY  url_host_tld
ORDER BY  n_pages DESC;`,
  pdfRecords: `SELECT url,
       content_mime_type,
       content_mime_detected,
       warc_filename,
       warc_record_offset,
       warc_record_length
FROM "ccindex"."ccindex"
WHERE crawl = 'CC-MAIN-2018-05'
  AND subset = 'warc'
  AND (content_mime_detected = 'application/pdf' OR
       content_mime_type LIKE '%pdf%')
LIMIT 1000;`,
};

const trawl = (args: string[]) => spawnSync(process.execPath, ['--import', 'tsx', 'shared/cli/main.ts', ...args], { maxBuffer: 64 * 1024 * 1024 });

test('DuckDB reads the Parquet capture index: counts by status equal trawl status, change kinds equal trawl changes', { timeout: 180_000 }, async () => {
  const site = await changingSite();
  const data = tempDir();
  try {
    await crawlTwice(site, data.dir);
  } finally {
    await site.close();
  }
  try {
    const status = JSON.parse(String(trawl(['status', '--json', '--data', data.dir]).stdout)) as { runId: number; fetchesByStatus: Record<string, number> };
    const run = status.runId;
    const exported = trawl(['export', '--format', 'parquet', '--run', String(run), '--data', data.dir]);
    assert.equal(exported.status, 0, String(exported.stderr));
    const file = join(data.dir, 'run.parquet');
    writeFileSync(file, exported.stdout);
    const all = trawl(['export', '--format', 'parquet', '--data', data.dir]);
    const allFile = join(data.dir, 'all.parquet');
    writeFileSync(allFile, all.stdout);

    const duck = await DuckDBInstance.create(':memory:');
    const db = await duck.connect();
    const rows = async (sql: string) => (await db.runAndReadAll(sql)).getRowObjectsJS() as Array<Record<string, unknown>>;
    try {
      const byStatus = await rows(
        `SELECT fetch_status AS status, count(*) AS n FROM read_parquet('${file}') WHERE warc_record_type IN ('response', 'revisit') GROUP BY 1 ORDER BY 1`,
      );
      assert.deepEqual(Object.fromEntries(byStatus.map((r) => [String(r.status), Number(r.n)])), status.fetchesByStatus);
      assert.ok(status.fetchesByStatus['304']! > 0, 'the second run has unchanged pages');

      // Every run is in the whole index, each row's run from its file.
      const runs = await rows(`SELECT run_id, count(*) AS n FROM read_parquet('${allFile}') GROUP BY 1 ORDER BY 1`);
      assert.deepEqual(
        runs.map((r) => Number(r.run_id)),
        [run - 1, run],
      );

      // Change kinds, as `trawl changes` tells them.
      const changes = JSON.parse(
        `[${String(trawl(['changes', '--json', '--kind', 'new,changed,unchanged,removed', '--data', data.dir]).stdout)
          .trim()
          .split('\n')
          .filter((l) => l.includes('"change"'))
          .join(',')}]`,
      ) as Array<{ url: string; kind: string }>;
      const kinds = await rows(`SELECT url, change_kind FROM read_parquet('${file}') WHERE change_kind IS NOT NULL ORDER BY url`);
      assert.deepEqual(
        kinds.map((r) => `${String(r.change_kind)} ${new URL(String(r.url)).pathname}`),
        changes.map((c) => `${c.kind} ${new URL(c.url).pathname}`).sort((a, b) => a.split(' ')[1]!.localeCompare(b.split(' ')[1]!)),
      );
      assert.ok(kinds.some((r) => r.change_kind === 'unchanged') && kinds.some((r) => r.change_kind === 'changed'));

      // The home page's SURT has no trailing slash; a revisit names the original's digest.
      const home = await rows(`SELECT url_surtkey, url_host_name FROM read_parquet('${file}') WHERE url = '${site.origin}/'`);
      assert.match(String(home[0]!.url_surtkey), /^1,0,0,127:\d+\)\/$/, 'an address reversed, as the surt library does; no trailing slash but the root');
      assert.equal(home[0]!.url_host_name, '127.0.0.1');
      const revisits = await rows(
        `SELECT r.content_digest AS revisit, o.content_digest AS original FROM read_parquet('${file}') r JOIN read_parquet('${allFile}') o ON o.url = r.url AND o.run_id = ${run - 1} AND o.warc_record_type = 'response' WHERE r.warc_record_type = 'revisit'`,
      );
      assert.ok(revisits.length > 0 && revisits.every((r) => r.revisit === r.original && /^[A-Z2-7]{32}$/.test(String(r.revisit))));

      // Common Crawl's schema: its 33 columns in its order, then trawl's own.
      const columns = (await rows(`DESCRIBE SELECT * FROM read_parquet('${file}')`)).map((r) => String(r.column_name));
      assert.deepEqual(columns.slice(0, 33), COMMON_CRAWL_COLUMNS);
      // Common Crawl's documented example queries run unchanged but for the table they read.
      const table = `read_parquet('${file}')`;
      for (const sql of Object.values(COMMON_CRAWL_EXAMPLES)) await rows(sql.replace('"ccindex"."ccindex"', table));
      // …and answer for this crawl once they name it.
      const ours = (sql: string) => rows(sql.replace('"ccindex"."ccindex"', table).replace("'CC-MAIN-2018-05'", `'trawl-run-${run}'`));
      const diagnostics = await ours(COMMON_CRAWL_EXAMPLES.fetchStatus);
      assert.deepEqual(
        Object.fromEntries(diagnostics.map((r) => [String(r.fetch_status), Number(r.count)])),
        Object.fromEntries(Object.entries(status.fetchesByStatus).filter(([code]) => !/^(2\d\d|304)$/.test(code))),
      );
      const byTld = await ours(COMMON_CRAWL_EXAMPLES.byTld);
      assert.equal(byTld.length, 1, 'loopback addresses have no TLD: one group, null');
      assert.equal(byTld[0]!.tld, null);
      assert.equal(Number(byTld[0]!.n_hosts), 1);
      assert.deepEqual(await ours(COMMON_CRAWL_EXAMPLES.pdfRecords), [], 'the site serves no PDF');
      const [homeRow] = await rows(
        `SELECT url_protocol, url_port, url_path, url_query, subset, crawl, warc_segment, octet_length(warc_record_id) AS id_bytes FROM ${table} WHERE url = '${site.origin}/'`,
      );
      assert.deepEqual(
        { ...homeRow, url_port: Number(homeRow!.url_port), id_bytes: Number(homeRow!.id_bytes) },
        {
          url_protocol: 'http',
          url_port: Number(new URL(site.origin).port),
          url_path: '/',
          url_query: null,
          subset: 'warc',
          crawl: `trawl-run-${run}`,
          warc_segment: String(run),
          id_bytes: 16,
        },
      );

      // A row's file, offset and length are its record.
      const [row] = await rows(`SELECT url, warc_filename, warc_record_offset, warc_record_length FROM read_parquet('${file}') WHERE url LIKE '%/a'`);
      const bytes = Buffer.alloc(Number(row!.warc_record_length));
      const fd = openSync(join(data.dir, 'warc', String(row!.warc_filename)), 'r');
      try {
        readSync(fd, bytes, 0, bytes.length, Number(row!.warc_record_offset));
      } finally {
        closeSync(fd);
      }
      const record = await new WARCParser([bytes]).parse();
      assert.equal(record?.warcTargetURI, row!.url);
    } finally {
      db.closeSync();
      duck.closeSync();
    }
    assert.equal(trawl(['export', '--format', 'parquet', '--run', '99', '--data', data.dir]).status, 2);
  } finally {
    data.cleanup();
  }
});
