// A webhook receiver cannot hold trawl: an attempt ends at its deadline even when the receiver
// trickles its answer, a receiver gets at most two sockets at once however many deliveries wait,
// and a server that stops lets the attempts under way be answered for a grace of seconds, then cuts
// them off and records every delivery not made. Settings
// that cannot work (a file: receiver, a short or empty secret) are refused when given.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { WebhookSender, type Delivery } from '../../shared/api/webhooks.js';
import { serve, tempDir } from '../../support/helpers.js';
import { runCli, startCli } from '../e2e/cli-process.js';

const SECRET = `whsec_${Buffer.from('twenty-four random bytes').toString('base64')}`;

/** A receiver that answers 200 at once, then a byte every 2 s, never ending; counts its sockets. */
async function trickler(): Promise<{ url: string; open: () => number; most: () => number; requests: () => number; close(): Promise<void> }> {
  let open = 0;
  let most = 0;
  let requests = 0;
  const timers = new Set<NodeJS.Timeout>();
  const server: Server = createServer((req, res) => {
    requests++;
    req.resume();
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('.');
    const t = setInterval(() => res.write('.'), 2_000);
    timers.add(t);
    res.on('close', () => {
      clearInterval(t);
      timers.delete(t);
    });
  });
  server.on('connection', (socket) => {
    open++;
    most = Math.max(most, open);
    socket.on('close', () => open--);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    open: () => open,
    most: () => most,
    requests: () => requests,
    close: async () => {
      for (const t of timers) clearInterval(t);
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    },
  };
}

test('a trickling receiver: each attempt ends at its deadline, recorded as failed, with at most two sockets at once', { timeout: 60_000 }, async () => {
  const hook = await trickler();
  const recorded: Delivery[] = [];
  const sender = new WebhookSender({
    urls: [hook.url],
    allowPrivateNetwork: true,
    attempts: 2,
    backoffMs: 10,
    timeoutMs: 800,
    onDelivery: (d) => recorded.push(d),
  });
  try {
    const t = performance.now();
    for (let i = 0; i < 6; i++) sender.send('page.stored', { id: `job-${i}`, urls: [] });
    await sender.flush();
    const took = performance.now() - t;
    const ended = sender.deliveries(true);
    assert.equal(ended.length, 6);
    for (const d of ended) {
      assert.equal(d.attempts, 2);
      assert.match(d.error ?? '', /did not answer within 800 ms/);
    }
    assert.ok(recorded.filter((d) => !d.ok && d.attempts === 2).length === 6, 'each failure is recorded');
    assert.equal(hook.most(), 2, 'two sockets at once, whatever waits');
    // 12 attempts of 0.8 s, two at a time: about 5 s, never the trickle's forever.
    assert.ok(took < 20_000, `took ${took.toFixed(0)} ms`);
  } finally {
    await sender.close();
    await hook.close();
  }
});

test('close() gives the attempts under way their grace, then cuts them off and records every delivery not made', { timeout: 30_000 }, async () => {
  const hook = await trickler();
  const recorded = new Map<string, Delivery>();
  const sender = new WebhookSender({
    urls: [hook.url],
    allowPrivateNetwork: true,
    timeoutMs: 60_000,
    closeGraceMs: 500,
    onDelivery: (d) => recorded.set(d.id, d),
  });
  for (let i = 0; i < 5; i++) sender.send('crawl.started', { id: `job-${i}` });
  for (let i = 0; i < 100 && hook.requests() < 2; i++) await new Promise((r) => setTimeout(r, 20));
  const t = performance.now();
  await sender.close();
  const took = performance.now() - t;
  assert.ok(took >= 450 && took < 2_500, `closed after its grace, not the receiver's minute: ${took.toFixed(0)} ms`);
  assert.equal(recorded.size, 5);
  for (const d of recorded.values()) {
    assert.equal(d.ok, false);
    assert.match(d.error ?? '', /server stopped before the receiver answered/);
  }
  await hook.close();
});

test(
  'a receiver that answers within the grace gets the events under way when the server stops; those waiting are recorded as failed',
  { timeout: 30_000 },
  async () => {
    let answered = 0;
    const hook = await serve((req, res) => {
      req.resume();
      setTimeout(() => {
        answered++;
        res.writeHead(204).end();
      }, 300);
    });
    const sender = new WebhookSender({ urls: [`${hook.origin}/hook`], allowPrivateNetwork: true, closeGraceMs: 5_000 });
    for (let i = 0; i < 4; i++) sender.send('crawl.finished', { id: `job-${i}` });
    await new Promise((r) => setTimeout(r, 50));
    const t = performance.now();
    await sender.close();
    assert.ok(performance.now() - t < 3_000, 'close waits for the answers, not for the whole grace');
    const all = sender.deliveries();
    assert.equal(all.filter((d) => d.ok).length, 2, 'the two attempts under way (two connections a receiver) were answered');
    assert.equal(answered, 2);
    const failed = sender.deliveries(true);
    assert.equal(failed.length, 2);
    for (const d of failed) assert.match(d.error ?? '', /server stopped before the receiver answered/);
    await hook.close();
  },
);

test('a file: receiver, an empty secret and a short one are refused when given', async () => {
  assert.throws(() => new WebhookSender({ urls: ['file:///etc/passwd'], allowPrivateNetwork: false }), /not http\(s\)/);
  assert.throws(() => new WebhookSender({ urls: ['https://example.com/h'], secret: '', allowPrivateNetwork: false }), /at least 24 random bytes/);
  const short = `whsec_${Buffer.from('sixteen bytes ok').toString('base64')}`;
  assert.throws(() => new WebhookSender({ urls: ['https://example.com/h'], secret: short, allowPrivateNetwork: false }), /at least 24 random bytes/);
  new WebhookSender({ urls: ['https://example.com/h'], secret: SECRET, allowPrivateNetwork: false });
  const data = tempDir();
  try {
    const cli = await runCli(
      ['serve', '--data', data.dir, '--port', '0', '--write-token', 'a-write-token-of-some-length', '--webhook', 'file:///tmp/x'],
      30_000,
    );
    assert.equal(cli.code, 2);
    assert.match(cli.stderr, /webhook file:\/\/\/tmp\/x is not http\(s\)/);
  } finally {
    data.cleanup();
  }
});

test('trawl serve with a trickling receiver exits within 5 s of SIGTERM, the deliveries on record as failed', { timeout: 90_000 }, async () => {
  const hook = await trickler();
  const site = await serve((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body><main><p>One page.</p></main></body></html>');
  });
  const data = tempDir();
  const token = 'a-write-token-of-some-length';
  const { child, done } = startCli(['serve', '--data', data.dir, '--port', '0', '--write-token', token, '--webhook', hook.url, '--allow-private-network'], {
    TRAWL_WEBHOOK_SECRET: SECRET,
  });
  try {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    for (let i = 0; i < 600 && !/at (http:\S+)/.test(out); i++) await new Promise((r) => setTimeout(r, 50));
    const url = /at (http:\/\/\S+?\/) /.exec(out)?.[1];
    assert.ok(url, out);
    const started = await fetch(new URL('/crawls', url), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ seeds: [`${site.origin}/`], enrich: false }),
    });
    assert.equal(started.status, 202);
    for (let i = 0; i < 600 && hook.requests() === 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.ok(hook.open() >= 1, 'the receiver holds an attempt open');
    const t = performance.now();
    child.kill('SIGTERM');
    await done;
    const took = performance.now() - t;
    assert.ok(took < 5_000, `serve exited ${took.toFixed(0)} ms after SIGTERM`);
    const listed = await runCli(['webhooks', '--data', data.dir, '--failed', '--json'], 30_000);
    const failed = listed.stdout
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { type: string; ok?: boolean; error?: string });
    assert.ok(
      failed.some((d) => d.type === 'delivery' && d.ok === false && /server stopped|did not answer/.test(d.error ?? '')),
      listed.stdout,
    );
  } finally {
    child.kill('SIGKILL');
    await hook.close();
    await site.close();
    data.cleanup();
  }
});
