// Crawls started over HTTP. A POST to trawl serve starts a crawl of a loopback site;
// its Server-Sent Events run to crawl.finished; a loopback receiver gets the signed webhooks,
// which verify with the standardwebhooks library; a receiver that answers 500 twice gets the
// event on the third try. Write routes need the write token.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { startServer } from '../../shared/cli/serve-command.js';
import { WebhookSender } from '../../shared/api/webhooks.js';
import { resolveSettings } from '../../shared/cli/args.js';
import { startFixtureSite } from '../../support/search/fixture-site.js';
import { serve, tempDir } from '../../support/helpers.js';
import { guideResponse } from '../../support/web/guides.js';
import { webhooksCommand } from '../../shared/cli/data-commands.js';
import { testFlags } from '../../support/crawl-helpers.js';

const SECRET = `whsec_${Buffer.from('a secret of twenty-four!').toString('base64')}`;

async function receiver(
  failFirst = 0,
): Promise<{ url: string; got: Array<{ headers: Record<string, string>; body: string }>; attempts: () => number; close(): Promise<void> }> {
  const got: Array<{ headers: Record<string, string>; body: string }> = [];
  let attempts = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      attempts++;
      if (attempts <= failFirst) return res.writeHead(500).end();
      got.push({ headers: req.headers as Record<string, string>, body });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    got,
    attempts: () => attempts,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

test('a crawl POSTed to trawl serve runs to crawl.finished over SSE and its signed webhooks verify', { timeout: 180_000 }, async () => {
  const site = await startFixtureSite();
  const hooks = await receiver();
  const data = tempDir();
  const settings = resolveSettings(testFlags(data.dir, { 'delay-ms': '0' }), {});
  const writeToken = 'a-write-token-of-some-length';
  const server = await startServer(settings, { port: '0', 'write-token': writeToken, webhook: [hooks.url] }, { TRAWL_WEBHOOK_SECRET: SECRET });
  try {
    const post = (auth?: string) =>
      fetch(new URL('/crawls', server.url), {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${auth}` } : {}) },
        body: JSON.stringify({ seeds: [`${site.origin}/`], maxPages: 30 }),
      });
    assert.equal((await post()).status, 401, 'a write needs the write token, even on loopback');
    const started = await post(writeToken);
    assert.equal(started.status, 202);
    const { id } = (await started.json()) as { id: string };
    const events = await fetch(new URL(`/crawls/${id}/events`, server.url));
    assert.match(events.headers.get('content-type') ?? '', /text\/event-stream/);
    const text = await events.text();
    assert.match(text, /event: crawl.started/);
    assert.match(text, /event: crawl.finished/);
    const job = (await (await fetch(new URL(`/crawls/${id}`, server.url))).json()) as { status: string; summary: { pagesStored: number } };
    assert.equal(job.status, 'finished');
    assert.ok(job.summary.pagesStored > 5);
  } finally {
    await server.close();
  }
  const wh = new Webhook(SECRET);
  const types = hooks.got.map((d) => (wh.verify(d.body, d.headers) as { type: string }).type);
  assert.ok(types.includes('crawl.started') && types.includes('crawl.finished') && types.includes('page.stored'), JSON.stringify(types));
  assert.throws(() => wh.verify(hooks.got[0]!.body.replace('crawl', 'crawx'), hooks.got[0]!.headers), 'a changed body does not verify');
  await hooks.close();
  await site.close();
  data.cleanup();
});

test('a receiver that answers 500 twice gets the event on the third try; webhook targets pass the address guard', async () => {
  const hooks = await receiver(2);
  const sender = new WebhookSender({ urls: [hooks.url], secret: SECRET, allowPrivateNetwork: true, backoffMs: 20 });
  sender.send('crawl.finished', { id: 'x' });
  await sender.flush();
  assert.equal(hooks.attempts(), 3);
  assert.deepEqual(
    sender.deliveries().map((d) => [d.ok, d.attempts, d.status]),
    [[true, 3, 204]],
  );
  const guarded = new WebhookSender({ urls: [hooks.url], allowPrivateNetwork: false, backoffMs: 1 });
  guarded.send('crawl.started', {});
  await guarded.flush();
  assert.equal(hooks.attempts(), 3, 'nothing reached the loopback receiver');
  assert.match(guarded.deliveries(true)[0]!.error ?? '', /refused/);
  await hooks.close();
});

test(
  'the queue survives a restart of trawl serve: the running crawl resumes its run, a queued one runs after it, and every delivery is on record',
  { timeout: 240_000 },
  async () => {
    const asked = new Map<string, number>();
    const agents = new Set<string | undefined>();
    const site = await serve((req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      asked.set(path, (asked.get(path) ?? 0) + 1);
      agents.add(req.headers['user-agent']);
      const r = guideResponse(path) ?? { status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found' };
      res.writeHead(r.status, r.headers).end(r.body);
    });
    // The queued crawl's site: another host, so the first run's requests are the first site's alone.
    const other = await startFixtureSite();
    const good = await receiver();
    const broken = await receiver(Infinity);
    const data = tempDir();
    // Every server of the test closes however it ends: a failed assertion must not hold the file open.
    try {
      // The server's settings are its crawls' politeness: a delay between requests keeps the first
      // crawl running when the server stops, and its requests carry the server's User-Agent.
      const agent = 'trawl-serve-test/1.0 (+https://example.com/bot)';
      const settings = resolveSettings(testFlags(data.dir, { 'delay-ms': '150', 'user-agent': agent }), {});
      const writeToken = 'a-write-token-of-some-length';
      const flags = { port: '0', 'write-token': writeToken, webhook: [good.url, broken.url] };
      const env = { TRAWL_WEBHOOK_SECRET: SECRET };
      const post = (url: string, seeds: string[]) =>
        fetch(new URL('/crawls', url), {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${writeToken}` },
          body: JSON.stringify({ seeds, maxPages: 12, enrich: false }),
        }).then(async (r) => ((await r.json()) as { id: string }).id);
      const status = async (url: string, id: string) =>
        (await (await fetch(new URL(`/crawls/${id}`, url))).json()) as { status: string; progress: { requests: number }; summary?: { pagesStored: number } };

      let server = await startServer(settings, flags, env);
      const first = await post(server.url, [`${site.origin}/`]);
      const second = await post(server.url, [`${other.origin}/`]);
      for (let i = 0; i < 600 && (await status(server.url, first)).progress.requests < 4; i++) await new Promise((r) => setTimeout(r, 50));
      assert.equal((await status(server.url, second)).status, 'queued');
      await server.close();
      const before = [...asked.values()].reduce((a, b) => a + b, 0);
      assert.ok(before >= 4);

      server = await startServer(settings, flags, env);
      try {
        let a = await status(server.url, first);
        let b = await status(server.url, second);
        for (let i = 0; i < 2400 && (b.status === 'queued' || b.status === 'running' || a.status !== 'finished'); i++) {
          await new Promise((r) => setTimeout(r, 50));
          [a, b] = [await status(server.url, first), await status(server.url, second)];
        }
        assert.equal(a.status, 'finished', 'the interrupted crawl resumed and finished');
        assert.equal(b.status, 'finished', 'the queued crawl ran after it');
        assert.ok(a.summary!.pagesStored > 5);
      } finally {
        await server.close();
      }
      // The resumed run asked again at most what was in flight at the stop: one request for the one host.
      assert.deepEqual([...agents], [agent], "every request of the jobs carries the server's User-Agent");
      const twice = [...asked].filter(([p, n]) => n > 1 && p !== '/robots.txt');
      assert.ok(twice.length <= 1, `asked twice: ${JSON.stringify(twice)}`);

      // Every delivery is on record: the broken receiver's as failed, after its attempts.
      const lines: string[] = [];
      const failed = await webhooksCommand(data.dir, { failed: true }, false, (l) => lines.push(l));
      assert.ok(failed > 0 && lines.every((l) => l.includes('FAILED') && l.includes(broken.url)), lines.join('\n'));
      const all: string[] = [];
      await webhooksCommand(data.dir, { failed: false }, true, (l) => all.push(l));
      const records = all.map((l) => JSON.parse(l) as { ok: boolean; url: string; event: string; job?: string });
      assert.ok(records.some((r) => r.ok && r.url === good.url && r.event === 'crawl.finished' && r.job === second));
      assert.ok(records.some((r) => r.ok && r.event === 'crawl.started' && r.job === first));
    } finally {
      await Promise.all([good.close(), broken.close(), site.close(), other.close()]);
      data.cleanup();
    }
  },
);
