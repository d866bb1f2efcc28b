// A page's actions run under the page's guard: a user's script (`executeJavascript`) that asks a
// loopback address for anything, or a click whose handler posts there, reaches nothing, and each
// action's outcome is told in order, a failed one not stopping the next.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ChromiumRenderer } from '../../shared/render/chromium.js';
import { publicRenderer } from './public-renderer.js';

let canary: Server;
let port = 0;
const hits: string[] = [];
let renderer: ChromiumRenderer;

before(async () => {
  canary = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'content-type': 'text/plain', 'access-control-allow-origin': '*' }).end('canary');
  });
  await new Promise<void>((r) => canary.listen(0, '127.0.0.1', r));
  port = (canary.address() as AddressInfo).port;
  renderer = publicRenderer();
});

after(async () => {
  await renderer.close();
  await new Promise<void>((r) => canary.close(() => r()));
});

test("an action's script and a click's handler reach no loopback address; every action is told in order", { timeout: 60_000 }, async () => {
  const html = `<!doctype html><html><head><title>t</title></head><body><div id="root"><p>public page</p></div>
    <button id="send" onclick="fetch('http://127.0.0.1:${port}/from-click', { method: 'POST', body: 'secret' }).catch(() => {})">Send</button></body></html>`;
  const out = await renderer.render({
    url: 'http://public.example/page',
    document: { status: 200, headers: { 'content-type': 'text/html; charset=utf-8' }, body: Buffer.from(html) },
    screenshot: false,
    actions: [
      {
        type: 'executeJavascript',
        script: `fetch('http://127.0.0.1:${port}/from-action').catch(() => {}); document.getElementById('root').insertAdjacentHTML('beforeend', '<p>added by the action</p>');`,
      },
      { type: 'click', selector: '#missing' },
      { type: 'click', selector: '#send' },
      { type: 'wait', milliseconds: 200 },
    ],
  });
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(hits, [], 'nothing reached the loopback canary');
  assert.ok((out.blocked['private-address'] ?? 0) >= 2, JSON.stringify(out.blocked));
  assert.deepEqual(
    out.actions?.map((a) => [a.type, a.ok, a.error]),
    [
      ['executeJavascript', true, undefined],
      ['click', false, 'no element matches #missing'],
      ['click', true, undefined],
      ['wait', true, undefined],
    ],
  );
  assert.match(out.html, /added by the action/, 'the DOM is read after the actions');
});
