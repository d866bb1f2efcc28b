// Session cookies are sent to their host and never kept at rest: after a crawl from the command
// line and one started over the API, no byte of the data directory (the database and its WAL,
// jobs.db, the WARC files, the blobs) holds a cookie's value; the stored configs name where the
// cookies came from, how many and for which domains.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { startServer } from '../../shared/cli/serve-command.js';
import { resolveSettings } from '../../shared/cli/args.js';
import { SqliteCrawlStore } from '../../shared/store/local/sqlite-store.js';
import { serve, tempDir } from '../../support/helpers.js';
import { runCli } from './cli-process.js';
import { testFlags } from '../../support/crawl-helpers.js';

const SECRET = 'a-session-value-that-must-never-be-stored-7f3a';

/** Every file under `dir` whose bytes hold `needle`. */
function filesHolding(dir: string, needle: string): string[] {
  const found: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (readFileSync(path).includes(needle)) found.push(path);
    }
  };
  walk(dir);
  return found;
}

test('a session cookie reaches its host and no file of the data directory holds its value', { timeout: 120_000 }, async () => {
  const sent: string[] = [];
  const site = await serve((req, res) => {
    sent.push(String(req.headers.cookie ?? ''));
    if (req.url === '/robots.txt') return void res.writeHead(404).end();
    const n = Number(/\d+/.exec(req.url ?? '')?.[0] ?? 0);
    res
      .writeHead(200, { 'content-type': 'text/html' })
      .end(`<title>P${n}</title><p>Page ${n} of the members' area.</p>${n < 2 ? `<a href="/p/${n + 1}">next</a>` : ''}`);
  });
  const cookies = JSON.stringify([{ name: 'sid', value: SECRET, domain: '127.0.0.1', path: '/' }]);
  const data = tempDir();
  try {
    const cli = await runCli(['crawl', `${site.origin}/`, '--data', data.dir, '--allow-private-network', '--delay-ms', '0', '--cookies', cookies]);
    assert.equal(cli.code, 0, cli.stderr);
    // The API: a crawl job with its own cookies, booked in jobs.db.
    const settings = resolveSettings(testFlags(data.dir, { 'delay-ms': '0' }), {});
    const server = await startServer(settings, { port: '0', 'write-token': 'a-write-token-of-some-length' }, {});
    try {
      const started = await fetch(new URL('/crawls', server.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: 'Bearer a-write-token-of-some-length' },
        body: JSON.stringify({ seeds: [`${site.origin}/p/1`], maxPages: 3, cookies: JSON.parse(cookies) as unknown }),
      });
      assert.equal(started.status, 202, await started.clone().text());
      const { id } = (await started.json()) as { id: string };
      for (let i = 0; i < 300; i++) {
        const job = (await (await fetch(new URL(`/crawls/${id}`, server.url))).json()) as { status: string };
        if (job.status !== 'queued' && job.status !== 'running') break;
        await new Promise((r) => setTimeout(r, 100));
      }
    } finally {
      await server.close();
    }
    assert.ok(sent.filter((c) => c.includes(SECRET)).length >= 2, 'the host got its cookie from both crawls');
    assert.deepEqual(filesHolding(data.dir, SECRET), [], 'no stored byte holds the cookie');
    const store = new SqliteCrawlStore(data.dir);
    try {
      const run = await store.getRun(1);
      assert.deepEqual(run?.config.cookies, { cookies: 1, domains: ['127.0.0.1'] }, 'the run names its cookies, not their values');
    } finally {
      await store.close();
    }
  } finally {
    data.cleanup();
    await site.close();
  }
});
