// What a client controls is bounded: a body over 1 MiB is a 413 before it is read whole, the job
// queue has a cap (429), bodies that are not JSON are 400s naming the problem, and a deny pattern
// that backtracks for ever in V8 is matched in linear time while the server keeps answering.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startServer } from '../../shared/cli/serve-command.js';
import { resolveSettings } from '../../shared/cli/args.js';
import { MAX_QUEUED_JOBS } from '../../shared/api/crawl-jobs.js';
import { denyPattern } from '../../shared/url/scope.js';
import { serve, tempDir } from '../../support/helpers.js';
import { testFlags } from '../../support/crawl-helpers.js';

const WRITE = 'a-write-token-of-some-length';
const headers = { 'content-type': 'application/json', authorization: `Bearer ${WRITE}` };

async function withServer(use: (url: string) => Promise<void>): Promise<void> {
  const data = tempDir();
  const server = await startServer(resolveSettings(testFlags(data.dir), {}), { port: '0', 'write-token': WRITE }, {});
  try {
    await use(server.url);
  } finally {
    await server.close();
    data.cleanup();
  }
}

test('a 20 MB body is a 413, a body that is not JSON a 400 or 415 naming it, and the job queue stops at its cap with a 429', { timeout: 60_000 }, async () => {
  await withServer(async (url) => {
    const crawls = new URL('/crawls', url);
    const big = JSON.stringify({ seeds: ['http://127.0.0.1:9/'], deny: ['x'.repeat(20 * 1024 * 1024)] });
    const tooBig = await fetch(crawls, { method: 'POST', headers, body: big });
    assert.equal(tooBig.status, 413);
    assert.match(((await tooBig.json()) as { error: string }).error, /over 1024 KiB/);

    const plain = await fetch(crawls, { method: 'POST', headers: { ...headers, 'content-type': 'text/plain' }, body: 'seeds' });
    assert.equal(plain.status, 415);
    assert.match(((await plain.json()) as { error: string }).error, /Content-Type: application\/json/);
    const malformed = await fetch(crawls, { method: 'POST', headers, body: '{"seeds": [' });
    assert.equal(malformed.status, 400);
    assert.match(((await malformed.json()) as { error: string }).error, /not valid JSON/);

    const statuses: number[] = [];
    for (let i = 0; i < MAX_QUEUED_JOBS + 3 && !statuses.includes(429); i++) {
      const res = await fetch(crawls, { method: 'POST', headers, body: JSON.stringify({ seeds: ['http://127.0.0.1:9/'], maxPages: 1 }) });
      statuses.push(res.status);
      if (res.status === 429) assert.match(((await res.json()) as { error: string }).error, /queued already/);
    }
    assert.equal(statuses.at(-1), 429, statuses.join(' '));
    assert.ok(statuses.filter((s) => s === 202).length >= MAX_QUEUED_JOBS, statuses.join(' '));
  });
});

test('a catastrophic deny pattern is matched in linear time: the crawl ends and /healthz keeps answering', { timeout: 120_000 }, async () => {
  const evil = denyPattern('/(a+)+$/');
  assert.equal(evil.test(`${'a'.repeat(50_000)}!`), false, 'V8 would backtrack 2^50000 times here');
  assert.equal(evil.test('aaaa'), true);

  const trap = `/${'a'.repeat(40)}!`;
  const site = await serve((req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(req.url === '/' ? `<html><body><main><p>Start here.</p><a href="${trap}">next</a></main></body></html>` : '<html><body><p>leaf</p></body></html>');
  });
  try {
    await withServer(async (url) => {
      const started = await fetch(new URL('/crawls', url), {
        method: 'POST',
        headers,
        body: JSON.stringify({ seeds: [`${site.origin}/`], deny: ['/(a+)+$/'], maxPages: 5, enrich: false }),
      });
      assert.equal(started.status, 202);
      const { id } = (await started.json()) as { id: string };
      let status = '';
      let slowest = 0;
      for (let i = 0; i < 600 && !['finished', 'failed', 'stopped'].includes(status); i++) {
        const t = performance.now();
        assert.equal((await fetch(new URL('/healthz', url))).status, 200);
        slowest = Math.max(slowest, performance.now() - t);
        status = ((await (await fetch(new URL(`/crawls/${id}`, url))).json()) as { status: string }).status;
        await new Promise((r) => setTimeout(r, 50));
      }
      assert.equal(status, 'finished');
      assert.ok(slowest < 1_000, `/healthz took ${slowest.toFixed(0)} ms at worst during the crawl`);
    });
  } finally {
    await site.close();
  }
});

test('a 1 MB extract schema is refused with its limit at once, and /healthz keeps answering meanwhile', { timeout: 60_000 }, async () => {
  await withServer(async (url) => {
    // 20,000 properties with patterns: about a megabyte, under the body cap.
    const properties = Object.fromEntries(Array.from({ length: 20_000 }, (_, i) => [`f${i}`, { type: 'string', pattern: `^(a+)+${i}$` }]));
    const body = JSON.stringify({ seeds: ['http://127.0.0.1:9/'], extractSchema: { type: 'object', properties } });
    assert.ok(body.length > 900_000 && body.length < 1024 * 1024, `${body.length} bytes`);
    let slowest = 0;
    let polling = true;
    const poll = (async () => {
      while (polling) {
        const t = performance.now();
        assert.equal((await fetch(new URL('/healthz', url))).status, 200);
        slowest = Math.max(slowest, performance.now() - t);
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const started = performance.now();
    const refused = await fetch(new URL('/crawls', url), { method: 'POST', headers, body });
    const took = performance.now() - started;
    polling = false;
    await poll;
    assert.equal(refused.status, 400);
    assert.match(((await refused.json()) as { error: string }).error, /the extract schema is [\d,]+ characters of JSON, over the limit of 65,536/);
    assert.ok(took < 1_000, `refused in ${took.toFixed(0)} ms`);
    assert.ok(slowest < 1_000, `/healthz took ${slowest.toFixed(0)} ms at worst`);
  });
});
