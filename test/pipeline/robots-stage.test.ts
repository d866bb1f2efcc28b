import { test } from 'node:test';
import assert from 'node:assert/strict';
import { testContext } from '../context.js';
import { loadRobots, robotsTurn } from '../../shared/pipeline/stages/robots-stage.js';
import { newHostState } from '../../shared/politeness/host-state.js';
import { robotsAllows } from '../../shared/robots/robots-policy.js';
import { serve, tempDir } from '../../support/helpers.js';

/** Serves a robots.txt behind `hops` redirects. */
async function withRobotsServer(hops: number, fn: (origin: string, hits: string[], dataDir: string, now: { t: number }) => Promise<void>) {
  const hits: string[] = [];
  const server = await serve((req, res) => {
    hits.push(req.url ?? '');
    const hop = /^\/hop(\d+)$/.exec(req.url ?? '');
    if (req.url === '/robots.txt') return void res.writeHead(301, { location: '/hop1' }).end();
    if (hop && Number(hop[1]) < hops) return void res.writeHead(302, { location: `/hop${Number(hop[1]) + 1}` }).end();
    res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nDisallow: /secret\n');
  });
  const data = tempDir();
  try {
    await fn(server.origin, hits, data.dir, { t: 1_000_000 });
  } finally {
    await server.close();
    data.cleanup();
  }
}

function context(dataDir: string, now: { t: number }) {
  return testContext(dataDir, {}, { clock: () => now.t });
}

test('follows robots.txt redirects and caches the result for the TTL', async () => {
  await withRobotsServer(3, async (origin, hits, dataDir, now) => {
    const ctx = context(dataDir, now);
    const host = new URL(origin).host;
    const first = await loadRobots(ctx, 1, { origin, host, state: newHostState(host) });
    assert.equal(first.requested, true);
    assert.equal(robotsAllows(first.policy, '/secret'), false);
    assert.deepEqual(hits, ['/robots.txt', '/hop1', '/hop2', '/hop3']);
    now.t += 23 * 3600_000;
    const cached = await loadRobots(ctx, 2, { origin, host, state: newHostState(host) });
    assert.equal(cached.requested, false);
    assert.equal(robotsAllows(cached.policy, '/secret'), false);
    assert.equal(hits.length, 4);
    now.t += 2 * 3600_000;
    assert.equal((await loadRobots(ctx, 3, { origin, host, state: newHostState(host) })).requested, true, 'read again after 24 h');
    await ctx.close();
  });
});

test('treats more than five robots.txt redirects as unavailable (allow all)', async () => {
  await withRobotsServer(10, async (origin, hits, dataDir, now) => {
    const ctx = context(dataDir, now);
    const host = new URL(origin).host;
    const load = await loadRobots(ctx, 1, { origin, host, state: newHostState(host) });
    assert.equal(hits.length, 6, 'the first request and five redirects');
    assert.equal(load.policy.kind, 'allow-all');
    await ctx.close();
  });
});

test('a robots turn counts unreachable reads in the host state, resets them on a readable one, parks the host at the limit, and names the sitemaps', async () => {
  let down = true;
  const server = await serve((req, res) => {
    if (down) return void res.writeHead(503, { 'content-type': 'text/plain' }).end('busy');
    res.writeHead(200, { 'content-type': 'text/plain' }).end(`User-agent: *\nDisallow: /secret\nSitemap: http://${req.headers.host}/sitemap.xml\n`);
  });
  const data = tempDir();
  const now = { t: 1_000_000 };
  const ctx = testContext(data.dir, { 'max-host-failures': '3' }, { clock: () => now.t });
  try {
    const host = new URL(server.origin).host;
    let state = newHostState(host);
    const turn = async () => {
      const t = await robotsTurn(ctx, 1, { origin: server.origin, host, state });
      state = t.state;
      now.t = Math.max(now.t + 1, state.backoffUntil);
      return t;
    };
    const first = await turn();
    assert.equal(first.load.policy.kind, 'unreachable');
    assert.equal(state.robotsFailures, 1);
    assert.deepEqual(first.sitemaps, [], 'an unreachable robots.txt names no sitemap');
    assert.ok(state.backoffUntil > 0 && !state.parkedReason, 'backed off, not parked');
    down = false;
    const readable = await turn();
    assert.equal(state.robotsFailures, 0, 'a readable robots.txt resets the count');
    assert.deepEqual(
      readable.sitemaps.map((c) => [c.href, c.kind, c.depth]),
      [[`${server.origin}/sitemap.xml`, 'sitemap', 0]],
    );
    assert.equal(robotsAllows(readable.load.policy, '/secret'), false);
    // Unreachable three times in a row: parked (the store's copy expired, so each turn asks again).
    down = true;
    now.t += 25 * 3600_000;
    for (let i = 1; i <= 3; i++) {
      await turn();
      assert.equal(state.robotsFailures, i);
      assert.equal(Boolean(state.parkedReason), i === 3, `turn ${i}: ${state.parkedReason}`);
    }
    assert.match(state.parkedReason!, /robots\.txt unreachable 3 times/);
  } finally {
    await ctx.close();
    await server.close();
    data.cleanup();
  }
});
