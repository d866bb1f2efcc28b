// Issue 34: crawls started over HTTP. A POST to trawl serve starts a crawl of a loopback site;
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
import { startFixtureSite } from '../search/fixture-site.js';
import { tempDir } from '../helpers.js';
import { testFlags } from '../e2e/crawl-helpers.js';

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
