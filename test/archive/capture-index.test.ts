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
import { tempDir } from '../helpers.js';
import { changingSite, crawlTwice } from '../changes/site.js';

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
