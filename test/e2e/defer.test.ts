// A host backed off past the idle bound: its URLs are deferred with the time they may be asked,
// and --resume or the next crawl picks them up once that time has come.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serve, tempDir } from '../../support/helpers.js';
import { crawlWeb, openDb, testFlags, urlState } from '../../support/crawl-helpers.js';
import type { SyntheticWeb } from '../../support/web/server.js';
import { resolveSettings } from '../../shared/cli/args.js';
import { crawlCommand } from '../../shared/cli/crawl-command.js';

/** A host whose /x answers 503 with Retry-After (seconds) the first `busyTimes` times. */
async function moodyHost(busyTimes: number, retryAfter = 1) {
  let hits = 0;
  const log: string[] = [];
  const server = await serve((req, res) => {
    log.push(req.url ?? '');
    if (req.url === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    if (req.url === '/') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><p>home</p><a href="/x">x</a></body></html>');
    if (req.url === '/x') {
      if (hits++ < busyTimes) return res.writeHead(503, { 'retry-after': String(retryAfter) }).end('busy');
      return res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>X at last</title></head><body><p>finally here</p></body></html>');
    }
    res.writeHead(404).end();
  });
  return { ...server, log };
}

const flags = (dir: string, extra: Record<string, unknown> = {}) => testFlags(dir, { 'delay-ms': '0', 'max-idle-wait-ms': '200', ...extra });

test('--resume picks up deferred URLs once their back-off has passed', async () => {
  const host = await moodyHost(1, 4);
  const { dir, cleanup } = tempDir();
  try {
    const seeds = [`${host.origin}/`];
    const first = await crawlWeb({} as SyntheticWeb, flags(dir), seeds);
    assert.equal(first.summary.status, 'finished');
    assert.equal(first.summary.urlsByState.deferred, 1);
    let db = openDb(dir);
    const deferred = db.prepare("SELECT not_before FROM frontier WHERE url LIKE '%/x'").get() as { not_before: number };
    db.close();
    assert.ok(deferred.not_before > Date.now() - 1000);
    // Resumed too early, the host is still backed off: the URL is deferred again, nothing is asked.
    const early = await crawlCommand([], resolveSettings(flags(dir, { resume: true }), {}), { out: () => {} });
    assert.equal(early.urlsByState.deferred, 1);
    await new Promise((r) => setTimeout(r, Math.max(0, deferred.not_before - Date.now()) + 50));
    const resumed = await crawlCommand([], resolveSettings(flags(dir, { resume: true }), {}), { out: () => {} });
    assert.equal(resumed.runId, first.summary.runId);
    db = openDb(dir);
    assert.deepEqual(urlState(db, `${host.origin}/x`), { state: 'done', reason: null });
    const asked = db.prepare("SELECT fetched_at FROM fetches WHERE url LIKE '%/x' AND status = 200").get() as { fetched_at: number };
    db.close();
    assert.ok(asked.fetched_at >= deferred.not_before, 'not asked before the time it was deferred to');
    assert.deepEqual(host.log.filter((p) => p === '/x').length, 2);
  } finally {
    cleanup();
    await host.close();
  }
});

test('the next crawl takes over the deferred URLs of the last one', async () => {
  const host = await moodyHost(1);
  const other = await serve((req, res) => {
    if (req.url === '/robots.txt') return res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body><p>elsewhere</p></body></html>');
  });
  const { dir, cleanup } = tempDir();
  try {
    await crawlWeb({} as SyntheticWeb, flags(dir), [`${host.origin}/`]);
    await new Promise((r) => setTimeout(r, 1100));
    // A crawl of another site, with the moody host in scope: /x comes along although nothing links to it.
    const next = await crawlWeb({} as SyntheticWeb, flags(dir, { 'allow-domain': ['127.0.0.1'] }), [`${other.origin}/`]);
    assert.equal(next.summary.runId, 2);
    const db = openDb(dir);
    assert.deepEqual(urlState(db, `${host.origin}/x`), { state: 'done', reason: null });
    db.close();
  } finally {
    cleanup();
    await host.close();
    await other.close();
  }
});
