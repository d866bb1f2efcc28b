// The company fixture sites of the homepage selection pass are well-formed: every homepage link
// leads to a page, every expected selection names pages the site has, and the service-area trees
// are the dozens of query-stuffed city pages the exclusion exists for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COMPANIES, companyResponse } from '../../support/web/companies.js';

test('each company site links only to pages it serves, and its expected selection names pages it has', () => {
  for (const c of COMPANIES) {
    assert.equal(companyResponse(c, '/').status, 200, c.name);
    for (const l of c.links) assert.equal(companyResponse(c, l.path).status, 200, `${c.name}: ${l.path}`);
    for (const p of c.expected.include) assert.ok(p === '/' || c.pages[p], `${c.name}: expected ${p} exists`);
    assert.ok(c.expected.include.length <= 4, `${c.name}: the cap is 4`);
    const home = String(companyResponse(c, '/').body);
    assert.match(home, /<meta name="description"/);
  }
  const cityPages = (c: (typeof COMPANIES)[number]) => Object.keys(c.pages).filter((p) => /^\/service-areas?\/./.test(p));
  assert.ok(COMPANIES.filter((c) => cityPages(c).length >= 40).length >= 2, 'two sites carry a service-area tree of 40 cities');
  assert.equal(companyResponse(COMPANIES[0]!, '/nowhere').status, 404);
});
