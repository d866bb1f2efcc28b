// A page no page links any more is asked for in the run that dropped its last link: still served,
// it is `orphaned`; answering 404, it is `removed` by that status. Neither is in a sitemap, so
// only the recheck reaches them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crawl, openStore } from '../../shared/index.js';
import { serve, tempDir } from '../../support/helpers.js';

test('an unlinked page still served is orphaned; one that answers 404 is removed', { timeout: 120_000 }, async () => {
  let version = 1;
  const asked: string[] = [];
  const page = (title: string, links: string[]) =>
    `<!doctype html><html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${title} is a page of the river guide, with its own text.</p>` +
    `${links.map((l) => `<a href="${l}">${l}</a>`).join(' ')}</main></body></html>`;
  const site = await serve((req, res) => {
    const path = req.url ?? '/';
    asked.push(`${version} ${path}`);
    if (path === '/robots.txt') return res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    const html =
      path === '/'
        ? page(version === 1 ? 'River guide' : 'River guide, shorter', version === 1 ? ['/kept', '/left', '/gone'] : ['/kept'])
        : path === '/kept'
          ? page('Kept', ['/'])
          : path === '/left'
            ? page('Left', [])
            : path === '/gone' && version === 1
              ? page('Gone', [])
              : undefined;
    if (!html) return res.writeHead(404, { 'content-type': 'text/html' }).end('<h1>Not found</h1>');
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  const data = tempDir();
  const options = { data: data.dir, allowPrivateNetwork: true, delayMs: 0, maxRps: 0, render: 'never' as const, env: {} };
  try {
    await crawl([`${site.origin}/`], options);
    version = 2;
    await crawl([`${site.origin}/`], options);
    assert.ok(asked.includes('2 /left') && asked.includes('2 /gone'), `the second run asked for both unlinked pages: ${asked.join(', ')}`);
    const store = openStore(data.dir);
    try {
      const changes = await store.changes({});
      // Its rank moved too (a rank-shift beside): the kinds that say what became of the page.
      const of = (path: string) => changes.filter((c) => new URL(c.url).pathname === path && c.kind !== 'rank-shift').map((c) => c.kind);
      assert.deepEqual(of('/left'), ['orphaned']);
      assert.deepEqual(of('/gone'), ['removed']);
      const left = changes.find((c) => c.kind === 'orphaned')!;
      assert.deepEqual(left.unlinkedFrom, [`${site.origin}/`]);
      assert.equal(changes.find((c) => c.kind === 'removed')!.removedBy, 404);
    } finally {
      await store.close();
    }
  } finally {
    await site.close();
    data.cleanup();
  }
});
