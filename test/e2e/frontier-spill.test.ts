// The frontier past its memory bound (--frontier-memory): URLs queued beyond a host's share wait in
// the database only, and whatever settles a host's URLs (its page budget, a back-off past the idle
// bound, the end of the run) settles those too, with the same reason, none left queued. The crawl
// to its end with most of its frontier in the database is the scale test's (test/e2e/scale.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serve, tempDir } from '../../support/helpers.js';
import { crawlWeb, openDb, testFlags } from '../../support/crawl-helpers.js';
import type { SyntheticWeb } from '../../support/web/server.js';
import { startGeneratedWeb } from '../../support/web/generated.js';

const flags = (dir: string, extra: Record<string, unknown> = {}) => testFlags(dir, { 'delay-ms': '0', 'frontier-memory': '20', ...extra });

/** URLs of the run by state and reason, from the database. */
function frontierStates(dir: string): Record<string, number> {
  const db = openDb(dir);
  try {
    const rows = db.prepare("SELECT state || ':' || coalesce(reason, '') AS k, count(*) AS n FROM frontier GROUP BY k").all() as Array<{
      k: string;
      n: number;
    }>;
    return Object.fromEntries(rows.map((r) => [r.k, r.n]));
  } finally {
    db.close();
  }
}

test("a host's page budget settles its URLs in the database as well as those in memory", async () => {
  const web = await startGeneratedWeb({ hosts: 2, pages: 2_000 });
  const { dir, cleanup } = tempDir();
  try {
    const { summary } = await crawlWeb({} as SyntheticWeb, flags(dir, { 'max-pages-per-host': '30' }), web.seeds());
    assert.equal(summary.status, 'finished');
    for (const h of [0, 1]) {
      const pages = [...web.hits].filter(([path]) => path.startsWith(`${h}/`) && path !== `${h}/robots.txt`);
      assert.equal(pages.length, 30, `host ${h}: ${pages.length} pages asked for`);
      assert.ok(
        pages.every(([, n]) => n === 1),
        'none twice',
      );
    }
    const states = frontierStates(dir);
    // Each host holds 16 URLs in memory (the floor of a host's share): most of what the budget cut was in the database.
    assert.ok((states['skipped:max-pages-per-host'] ?? 0) > 2 * 16, JSON.stringify(states));
    assert.deepEqual(
      Object.keys(states).filter((k) => k.startsWith('queued') || k === 'skipped:max-pages'),
      [],
    );
    assert.equal(states['done:'], 60);
  } finally {
    cleanup();
    await web.close();
  }
});

test('a host backed off past the idle bound has every queued URL deferred, those in the database too', async () => {
  const pages = 100;
  const server = await serve((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    if (req.url === '/') {
      const links = Array.from({ length: pages }, (_, i) => `<a href="/p/${i + 1}">page ${i + 1}</a>`).join(' ');
      return res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><body><p>home</p>${links}</body></html>`);
    }
    res.writeHead(503, { 'retry-after': '600' }).end('busy');
  });
  const { dir, cleanup } = tempDir();
  try {
    const { summary } = await crawlWeb({} as SyntheticWeb, flags(dir, { 'max-idle-wait-ms': '200' }), [`${server.origin}/`]);
    assert.equal(summary.status, 'finished');
    const states = frontierStates(dir);
    // One host: its share is the whole bound (20 URLs in memory, 80 in the database).
    assert.deepEqual(states, { 'done:': 1, 'deferred:backed-off': pages });
  } finally {
    cleanup();
    await server.close();
  }
});
