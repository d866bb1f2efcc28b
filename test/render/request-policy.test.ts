import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RequestPolicy } from '../../shared/render/request-policy.js';

const resolver = async (host: string) => [
  { address: host === 'intranet.test' ? '10.1.2.3' : host === 'meta.test' ? '169.254.169.254' : '93.184.216.34', family: 4 },
];

test('blocks other schemes, media, private and metadata addresses, robots-refused paths and requests past the cap', async () => {
  const policy = new RequestPolicy({ allowPrivateNetwork: false, maxRequests: 2, resolver }, 'site.test', (url) => !url.includes('/private/'));
  assert.deepEqual(await policy.check('file:///etc/passwd', 'document'), { kind: 'block', reason: 'scheme', detail: 'file:' });
  assert.equal((await policy.check('chrome://crash', 'document')).kind, 'block');
  assert.deepEqual(await policy.check('data:text/plain,hi', 'script'), { kind: 'local' });
  assert.deepEqual(await policy.check('https://cdn.test/logo.png', 'image'), { kind: 'block', reason: 'resource-type', detail: 'image' });
  assert.equal((await policy.check('http://intranet.test/x', 'xhr')).kind, 'block');
  assert.equal(((await policy.check('http://127.0.0.1:8080/x', 'fetch')) as { reason: string }).reason, 'private-address');
  assert.equal(((await policy.check('http://meta.test/latest', 'fetch')) as { reason: string }).reason, 'private-address');
  assert.deepEqual(await policy.check('https://site.test/private/a', 'xhr'), { kind: 'block', reason: 'robots' });
  assert.deepEqual(await policy.check('https://site.test/app.js', 'script'), { kind: 'continue' });
  assert.deepEqual(await policy.check('https://cdn.test/lib.js', 'script'), { kind: 'continue' });
  assert.deepEqual(await policy.check('https://cdn.test/more.js', 'script'), { kind: 'block', reason: 'request-cap' });
  assert.equal(policy.requests, 2);
});

test('--allow-private-network lets intranet hosts through, never the cloud metadata endpoint', async () => {
  const policy = new RequestPolicy({ allowPrivateNetwork: true, maxRequests: 10, resolver }, 'site.test');
  assert.deepEqual(await policy.check('http://intranet.test/x', 'xhr'), { kind: 'continue' });
  assert.equal(((await policy.check('http://169.254.169.254/latest/meta-data/', 'fetch')) as { reason: string }).reason, 'private-address');
  assert.equal(((await policy.check('http://meta.test/', 'fetch')) as { reason: string }).reason, 'private-address');
});
