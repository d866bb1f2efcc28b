// A rendered page reaches nothing the address guard refuses, by any channel a browser
// has. Each page is rendered as if it came from a public host, with the guard on, and tries one
// channel towards a loopback canary (HTTP and UDP); the canary must receive nothing and the
// page's record must count the refusal.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import type { AddressInfo } from 'node:net';
import { ChromiumRenderer } from '../../shared/render/chromium.js';
import { publicRenderer } from './public-renderer.js';
import type { RenderOutput } from '../../shared/render/renderer.js';

let canary: Server;
let udp: UdpSocket;
let port = 0;
let udpPort = 0;
const hits: string[] = [];
const datagrams: number[] = [];
let renderer: ChromiumRenderer;

before(async () => {
  canary = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('canary');
  });
  canary.on('upgrade', (req, socket) => {
    hits.push(`UPGRADE ${req.url}`);
    socket.destroy();
  });
  canary.on('connect', (req, socket) => {
    hits.push(`CONNECT ${req.url}`);
    socket.destroy();
  });
  await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
  port = (canary.address() as AddressInfo).port;
  udp = createSocket('udp4');
  udp.on('message', () => datagrams.push(Date.now()));
  await new Promise<void>((r) => udp.bind(0, '127.0.0.1', r));
  udpPort = udp.address().port;
  renderer = publicRenderer();
});

after(async () => {
  await renderer.close();
  await new Promise<void>((r) => canary.close(() => r()));
  udp.close();
});

async function renderPublic(body: string, path = '/page'): Promise<RenderOutput> {
  hits.length = 0;
  datagrams.length = 0;
  const html = `<!doctype html><html><head><title>t</title></head><body><div id="root"><p>public page</p></div>${body}</body></html>`;
  const out = await renderer.render({
    url: `http://public.example${path}`,
    document: { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: Buffer.from(html) },
    screenshot: false,
  });
  // Anything the page sent is given time to arrive before the canary is read.
  await new Promise((r) => setTimeout(r, 300));
  return out;
}

const loop = () => `127.0.0.1:${port}`;

test('a WebSocket to a loopback address (plain or IPv4-mapped IPv6) never connects, and is counted', async () => {
  const out = await renderPublic(`<script>
    try { new WebSocket('ws://${loop()}/ws'); } catch (e) {}
    try { new WebSocket('ws://[::ffff:127.0.0.1]:${port}/ws6'); } catch (e) {}
  </script>`);
  assert.deepEqual(hits, []);
  assert.ok((out.blocked['private-address'] ?? 0) >= 2, JSON.stringify(out.blocked));
});

test('a target=_blank link clicked by the page opens no window and sends nothing', async () => {
  const out = await renderPublic(`<a id="l" href="http://${loop()}/popup-link" target="_blank">x</a>
    <script>document.getElementById('l').click();</script>`);
  assert.deepEqual(hits, []);
  assert.ok((out.blocked.popup ?? 0) >= 1, JSON.stringify(out.blocked));
});

test('a target=_blank form POST sends no body anywhere', async () => {
  const out = await renderPublic(`<form id="f" method="post" target="_blank" action="http://${loop()}/popup-form"><input name="x" value="secret"></form>
    <script>document.getElementById('f').submit();</script>`);
  assert.deepEqual(hits, []);
  assert.ok((out.blocked.popup ?? 0) >= 1, JSON.stringify(out.blocked));
});

test('window.open from an iframe opens nothing', async () => {
  const out = await renderPublic(`<iframe srcdoc="<script>window.open('http://${loop()}/iframe-open')</script>"></iframe>`);
  assert.deepEqual(hits, []);
  assert.ok((out.blocked.popup ?? 0) >= 1, JSON.stringify(out.blocked));
});

test('WebRTC sends no STUN datagram to a loopback UDP port', async () => {
  await renderPublic(`<script>
    const pc = new RTCPeerConnection({ iceServers: [{ urls: 'stun:127.0.0.1:${udpPort}' }] });
    pc.createDataChannel('x');
    pc.createOffer().then((o) => pc.setLocalDescription(o));
  </script>`);
  await new Promise((r) => setTimeout(r, 1_000));
  assert.deepEqual(datagrams, []);
});

test('EventSource, workers, beacons and prefetches reach no loopback address', async () => {
  const out = await renderPublic(`<link rel="prefetch" href="http://${loop()}/prefetch"><link rel="preconnect" href="http://${loop()}">
    <script>
      try { new EventSource('http://${loop()}/es'); } catch (e) {}
      navigator.sendBeacon('http://${loop()}/beacon', 'x');
      new Worker(URL.createObjectURL(new Blob(["fetch('http://${loop()}/worker').catch(() => {}); new WebSocket('ws://${loop()}/worker-ws');"])));
      fetch('http://${loop()}/fetch', { mode: 'no-cors' }).catch(() => {});
    </script>`);
  assert.deepEqual(hits, []);
  const refused = Object.values(out.blocked).reduce((a, b) => a + (b ?? 0), 0);
  assert.ok(refused >= 4, JSON.stringify(out.blocked));
});

test('a metadata endpoint is refused in every form even with private addresses allowed', async () => {
  const permissive = new ChromiumRenderer({
    userAgent: 'trawl-test',
    concurrency: 1,
    timeoutMs: 15_000,
    settleMs: 800,
    maxRequests: 50,
    recycleAfter: 100,
    memoryMb: 256,
    allowPrivateNetwork: true,
    resolver: async (host) => [{ address: host === 'meta.example' ? '169.254.170.2' : '93.184.216.34', family: 4 }],
  });
  try {
    const out = await permissive.render({
      url: 'http://public.example/',
      document: {
        status: 200,
        headers: { 'content-type': 'text/html' },
        body: Buffer.from(`<div id="root"></div><script>
          for (const u of ['http://[::ffff:169.254.169.254]/', 'http://[64:ff9b::169.254.169.254]/', 'http://169.254.170.23/', 'http://[fd00:ec2::23]/', 'http://meta.example/'])
            fetch(u).catch(() => {});
          try { new WebSocket('ws://169.254.169.254/'); } catch (e) {}
        </script>`),
      },
      screenshot: false,
    });
    assert.equal(out.blocked['private-address'], 6, JSON.stringify(out.blocked));
    assert.equal(out.requests, 0);
  } finally {
    await permissive.close();
  }
});

test('a page that calls alert() on load renders at once with its text', async () => {
  const started = performance.now();
  const out = await renderPublic(`<script>alert('hi'); confirm('sure?'); prompt('name?');
    window.addEventListener('beforeunload', (e) => { e.preventDefault(); e.returnValue = ''; });
    document.getElementById('root').innerHTML += '<p>after the dialogs</p>';</script>`);
  assert.match(out.html, /after the dialogs/);
  assert.ok(performance.now() - started < 5_000, `took ${Math.round(performance.now() - started)} ms`);
  assert.equal(out.blocked.dialog, 3);
  assert.equal(out.attempts, 1);
});
