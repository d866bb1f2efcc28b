// A rendered page whose subresources never answer holds nothing after the crawl: every request of
// the render dies with it (the guard proxy's upstream requests too), so the process exits right
// after its summary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { serve, tempDir } from '../../support/helpers.js';
import { startCli } from './cli-process.js';

test('a crawl whose rendered page has subresources that never answer exits within 2 s of its summary', { timeout: 120_000 }, async () => {
  const hanging = new Set<ServerResponse>();
  const site = await serve((req, res) => {
    if (req.url?.startsWith('/hang')) return void hanging.add(res);
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      '<html><head><title>App</title><link rel="stylesheet" href="/hang.css"></head><body><div id="root"></div>' +
        '<img src="/hang.png"><script>fetch("/hang-xhr"); document.getElementById("root").textContent = "Rendered text of the app page.";</script></body></html>',
    );
  });
  const data = tempDir();
  try {
    const { child, done } = startCli([
      'crawl',
      `${site.origin}/`,
      '--data',
      data.dir,
      '--allow-private-network',
      '--render',
      'always',
      '--render-timeout-ms',
      '3000',
      '--max-pages',
      '1',
      '--delay-ms',
      '0',
    ]);
    let summaryAt = 0;
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (!summaryAt && /pages stored/.test(out)) summaryAt = Date.now();
    });
    const killer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    const result = await done;
    clearTimeout(killer);
    assert.equal(result.code, 0, result.stderr);
    assert.ok(summaryAt > 0, out);
    assert.ok(hanging.size >= 1, 'the page asked for its hanging subresources');
    const lingered = Date.now() - summaryAt;
    assert.ok(lingered < 2_000, `the process lived ${lingered} ms after its summary`);
  } finally {
    for (const res of hanging) res.destroy();
    await site.close();
    data.cleanup();
  }
});
