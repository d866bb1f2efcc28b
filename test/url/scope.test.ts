import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scopeChecker } from '../../shared/url/scope.js';

const seeds = ['https://www.example.co.uk/'];

test('host scope keeps only the seed hosts', () => {
  const check = scopeChecker({ mode: 'host', seeds, allowDomains: [], deny: [] });
  assert.deepEqual(check('https://www.example.co.uk/a'), { inScope: true });
  assert.deepEqual(check('https://blog.example.co.uk/a'), { inScope: false, reason: 'out-of-scope' });
});

test('domain scope keeps the registrable domain (public suffix aware)', () => {
  const check = scopeChecker({ mode: 'domain', seeds, allowDomains: [], deny: [] });
  assert.equal(check('https://blog.example.co.uk/a').inScope, true);
  assert.equal(check('https://other.co.uk/a').inScope, false);
});

test('allow-domain adds a domain and its subdomains', () => {
  const check = scopeChecker({ mode: 'host', seeds, allowDomains: ['cdn.test'], deny: [] });
  assert.equal(check('https://img.cdn.test/x').inScope, true);
  assert.equal(check('https://cdn.test/x').inScope, true);
  assert.equal(check('https://notcdn.test/x').inScope, false);
});

test('deny patterns take globs and /regex/', () => {
  const check = scopeChecker({ mode: 'host', seeds, allowDomains: [], deny: ['*/login*', '/\\.pdf$/'] });
  assert.deepEqual(check('https://www.example.co.uk/login?next=/'), { inScope: false, reason: 'denied' });
  assert.deepEqual(check('https://www.example.co.uk/a.pdf'), { inScope: false, reason: 'denied' });
  assert.equal(check('https://www.example.co.uk/a.pdf?x').inScope, true);
});
