import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cookieHeader, cookiesFor, cookiesOfHost, sessionCookiesOf } from '../../shared/fetch/session-cookies.js';
import { HttpFetcher } from '../../shared/fetch/http-fetcher.js';
import { pageActionsOf } from '../../shared/render/action-rules.js';
import { UsageError } from '../../shared/errors.js';
import { serve, tempDir } from '../../support/helpers.js';

const cookies = sessionCookiesOf({
  cookies: {
    cookies: [
      { name: 'sid', value: 'a', domain: 'shop.test', path: '/' },
      { name: 'wide', value: 'b', domain: '.shop.test', path: '/account', secure: true },
      { name: 'other', value: 'c', domain: 'elsewhere.test' },
    ],
    origins: [],
  },
});

test('a cookie goes to its host only; a domain cookie to its subdomains too; path and secure are honoured', () => {
  const names = (url: string) => cookiesFor(cookies, url).map((c) => c.name);
  assert.deepEqual(names('http://shop.test/'), ['sid']);
  assert.deepEqual(names('https://shop.test/account/orders'), ['sid', 'wide']);
  assert.deepEqual(names('http://shop.test/account'), ['sid'], 'a secure cookie is not sent over http');
  assert.deepEqual(names('https://www.shop.test/account'), ['wide'], 'a host-only cookie stays on its host');
  assert.deepEqual(names('https://evilshop.test/account'), []);
  assert.deepEqual(names('https://elsewhere.test/x'), ['other']);
  assert.deepEqual(
    cookiesOfHost(cookies, 'http://shop.test/any').map((c) => c.name),
    ['sid', 'wide'],
  );
  assert.equal(cookieHeader(cookiesFor(cookies, 'https://shop.test/account')), 'sid=a; wide=b');
});

test('cookies and actions are read from a file, JSON text or the value, and bad ones are refused naming the problem', () => {
  const dir = tempDir();
  try {
    const file = join(dir.dir, 'cookies.json');
    writeFileSync(file, JSON.stringify([{ name: 'sid', value: 'x', domain: 'a.test' }]));
    assert.equal(sessionCookiesOf({ cookies: file })[0]!.name, 'sid');
    assert.equal(sessionCookiesOf({ cookies: '[{"name":"n","value":"v","domain":"A.test"}]' })[0]!.domain, 'a.test');
    assert.deepEqual(sessionCookiesOf({}), []);
    assert.throws(
      () => sessionCookiesOf({ cookies: [{ name: 'n', value: 'v' }] }),
      (e: unknown) => e instanceof UsageError && /cookies are not valid at 0\.domain/.test(e.message),
    );
    assert.throws(() => sessionCookiesOf({ cookies: join(dir.dir, 'missing.json') }), /cookies file .* cannot be read/);
  } finally {
    dir.cleanup();
  }
  const every = pageActionsOf({ actions: [{ type: 'wait', milliseconds: 10 }] })!;
  assert.deepEqual(every('http://a.test/x'), [{ type: 'wait', milliseconds: 10 }]);
  const rules = pageActionsOf({
    actions:
      '[{"pattern": "*/list*", "actions": [{"type": "scroll"}]}, {"pattern": "/\\\\/item\\\\/\\\\d+$/", "actions": [{"type": "click", "selector": "#buy"}]}]',
  })!;
  assert.deepEqual(rules('http://a.test/list?page=2'), [{ type: 'scroll' }]);
  assert.deepEqual(rules('http://a.test/item/7'), [{ type: 'click', selector: '#buy' }]);
  assert.equal(rules('http://a.test/about'), undefined);
  assert.equal(pageActionsOf({ actions: '' }), undefined);
  assert.throws(() => pageActionsOf({ actions: [{ type: 'click' }] }), /actions are not valid at 0\.selector/);
  assert.throws(() => pageActionsOf({ actions: [{ type: 'hover', selector: 'a' }] }), /actions are not valid at 0\.type/);
  assert.throws(() => pageActionsOf({ actions: [{ type: 'wait', milliseconds: 600_000 }] }), /actions are not valid at 0\.milliseconds/);
});

test('the fetcher sends a host its session cookie, and archives that it did without the value', async () => {
  const seen: Array<string | undefined> = [];
  const site = await serve((req, res) => {
    seen.push(req.headers.cookie);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
  const host = new URL(site.origin).hostname;
  const fetcher = new HttpFetcher({
    userAgent: 'trawl-test',
    allowPrivateNetwork: true,
    maxBodyBytes: 1 << 20,
    connectTimeoutMs: 5000,
    totalTimeoutMs: 5000,
    cookies: [
      { name: 'sid', value: 'the-secret', domain: host },
      { name: 'x', value: 'not-this-host', domain: 'other.test' },
    ],
  });
  try {
    const request = { url: `${site.origin}/a`, kind: 'page' as const };
    await fetcher.fetch(request);
    assert.deepEqual(seen, ['sid=the-secret']);
    assert.equal(fetcher.requestHeaders(request).cookie, '[redacted: sid]');
    assert.doesNotMatch(JSON.stringify(fetcher.requestHeaders(request)), /the-secret/);
  } finally {
    await fetcher.close();
    await site.close();
  }
});
