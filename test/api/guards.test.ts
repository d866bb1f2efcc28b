// The API answers only the hosts it serves (DNS rebinding), the UI loads without the
// token while every data route needs it, and every answer carries the security headers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { hostAllowed } from '../../shared/api/guards.js';
import { startServer } from '../../shared/cli/serve-command.js';
import { withEnrichedCrawl } from '../../support/search/fixture-site.js';

/** A GET with a Host header of our choosing (fetch does not let one be set). */
function get(url: string, path: string, headers: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ host: u.hostname, port: u.port, path, headers, setHost: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('Host headers: loopback names and addresses, allowed names and subdomains; nothing else', () => {
  for (const h of ['127.0.0.1:7373', 'localhost', 'LOCALHOST:1', '[::1]:7373', '127.1.2.3']) assert.equal(hostAllowed(h, []), true, h);
  for (const h of [undefined, '', 'evil.example', 'localhost.evil.example', '127.0.0.1.nip.io', '0.0.0.0']) assert.equal(hostAllowed(h, []), false, String(h));
  assert.equal(hostAllowed('crawl.intranet:7373', ['crawl.intranet']), true);
  assert.equal(hostAllowed('abc.lambda-url.us-east-1.on.aws', ['.lambda-url.us-east-1.on.aws']), true);
  assert.equal(hostAllowed('lambda-url.us-east-1.on.aws.evil', ['.lambda-url.us-east-1.on.aws']), false);
});

test('trawl serve gives no data to a rebound or empty Host, loads the UI without the token and guards every data route', async () => {
  await withEnrichedCrawl(async (settings) => {
    const open = await startServer(settings, { port: '0' }, {});
    try {
      const port = new URL(open.url).port;
      for (const host of ['evil.example', `evil.example:${port}`, '']) {
        const res = await get(open.url, '/runs', { host });
        assert.equal(res.status, 421, `Host ${JSON.stringify(host)}`);
        assert.doesNotMatch(res.body, /"runs"|"id"/);
      }
      assert.equal((await get(open.url, '/runs', { host: `localhost:${port}` })).status, 200);
      const ui = await get(open.url, '/', { host: `127.0.0.1:${port}` });
      assert.match(String(ui.headers['content-security-policy']), /script-src 'self';.*frame-ancestors 'none'/);
      assert.equal(ui.headers['x-content-type-options'], 'nosniff');
      assert.equal(ui.headers['referrer-policy'], 'no-referrer');
      assert.doesNotMatch(ui.body, /<script>[^<]/, 'no inline script in the page');
    } finally {
      await open.close();
    }
    const token = 'a-long-enough-secret-token';
    const guarded = await startServer(settings, { port: '0', token, 'allowed-host': ['crawl.intranet'] }, {});
    try {
      const host = 'crawl.intranet';
      assert.equal((await get(guarded.url, '/', { host })).status, 200, 'the UI page loads without the token');
      assert.equal((await get(guarded.url, '/ui/app.js', { host })).status, 200, 'and its script');
      for (const path of ['/runs', '/search?q=bread', '/graph/top', '/metrics', '/openapi.json'])
        assert.equal((await get(guarded.url, path, { host })).status, 401, path);
      assert.equal((await get(guarded.url, '/runs', { host, authorization: `Bearer ${token}` })).status, 200);
    } finally {
      await guarded.close();
    }
  });
});
