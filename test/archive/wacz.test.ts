// `trawl export --format wacz` writes a WACZ 1.1.1 that passes every rule of the
// specification (wacz-validate.ts), for every run or one, from a crawl done twice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, createWriteStream, openSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { openStore } from '../../shared/index.js';
import { tempDir } from '../../support/helpers.js';
import { changingSite, crawlTwice } from '../changes/site.js';
import { readZip, waczProblems } from './wacz-validate.js';

const trawlTo = (file: string, args: string[]) => {
  const fd = openSync(file, 'w');
  try {
    return spawnSync(process.execPath, ['--import', 'tsx', 'shared/cli/main.ts', ...args], { encoding: 'utf8', stdio: ['ignore', fd, 'pipe'] });
  } finally {
    closeSync(fd);
  }
};

test('a WACZ of two runs passes every WACZ 1.1.1 rule; one of run 1 holds only its WARC files', { timeout: 120_000 }, async () => {
  const site = await changingSite();
  const data = tempDir();
  try {
    await crawlTwice(site, data.dir);

    const all = join(data.dir, 'all.wacz');
    const r = trawlTo(all, ['export', '--format', 'wacz', '--data', data.dir]);
    assert.equal(r.status, 0, r.stderr);
    const entries = await readZip(all);
    const { problems, cdx, pages } = waczProblems(entries);
    assert.deepEqual(problems, []);
    assert.deepEqual([...entries.keys()].filter((n) => n.startsWith('archive/')).length, 2, 'both runs’ WARC files');
    // The pages: each URL once, at its latest 2xx answer, with a title and its text; /b (gone in run 2) at run 1's.
    assert.deepEqual(pages.map((p) => new URL(p.url as string).pathname).sort(), ['/', '/a', '/b', '/c', '/d', '/e']);
    const a = pages.find((p) => (p.url as string).endsWith('/a'))!;
    assert.equal(a.title, 'Tides and currents');
    assert.match(a.text as string, /Currents run fastest/);
    for (const p of pages) {
      const ts = (p.ts as string).replace(/\D/g, '').slice(0, 14);
      assert.ok(
        cdx.some((c) => c.url === p.url && c.status.startsWith('2') && Math.abs(Number(c.ts) - Number(ts)) <= 1),
        `${String(p.url)} has its 2xx capture in the index at its ts`,
      );
    }
    assert.ok(
      cdx.some((c) => c.url.endsWith('/b') && c.status === '404'),
      'failures are archived and indexed too',
    );

    // The library writes the same package for one run.
    const one = join(data.dir, 'run1.wacz');
    const store = openStore(data.dir);
    try {
      const result = await store.wacz(createWriteStream(one), { runId: 1 });
      assert.equal(result.pages, 6);
      await assert.rejects(store.wacz(createWriteStream(join(data.dir, 'none.wacz')), { runId: 9 }), /no run 9 in .*: its runs are 1, 2/);
    } finally {
      await store.close();
    }
    const first = await readZip(one);
    assert.deepEqual(waczProblems(first).problems, []);
    assert.deepEqual(
      [...first.keys()].filter((n) => n.startsWith('archive/')).map((n) => /trawl-(\d+)-/.exec(n)?.[1]),
      ['1'],
    );

    // The validator is not a rubber stamp: a deflated WARC, a changed datapackage and an unsorted index fail it.
    const broken = new Map(entries);
    const warc = [...broken.keys()].find((n) => n.startsWith('archive/'))!;
    broken.set(warc, { ...broken.get(warc)!, method: 8 });
    const dp = broken.get('datapackage.json')!;
    broken.set('datapackage.json', { ...dp, data: Buffer.from(dp.data.toString().replace('"trawl ', '"trawx ')) });
    const index = broken.get('indexes/index.cdx')!;
    broken.set('indexes/index.cdx', { ...index, data: Buffer.from(index.data.toString().split('\n').filter(Boolean).reverse().join('\n')) });
    const found = waczProblems(broken).problems.join('\n');
    assert.match(found, /must be STORED/);
    assert.match(found, /the hash of datapackage.json does not match/);
    assert.match(found, /index.cdx is not sorted/);

    const bad = spawnSync(process.execPath, ['--import', 'tsx', 'shared/cli/main.ts', 'export', '--format', 'warc', '--data', data.dir], { encoding: 'utf8' });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /unknown export format "warc": use jsonl, wacz or parquet/);
  } finally {
    await site.close();
    data.cleanup();
  }
});
