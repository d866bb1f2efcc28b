// Vectors that mean something. A page whose text is "a" gets no vector (it
// stays findable by its words), so it is never a vector hit; a query of nonsense words returns
// no vector hits; a real query still finds its page by vector.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crawl, openStore } from '../../shared/index.js';
import { guideResponse } from '../../support/web/guides.js';
import { serve, tempDir } from '../../support/helpers.js';

test('thin pages get no vector and nonsense finds nothing by vector; real queries still do', async () => {
  const site = await serve((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    if (path === '/a' || path === '/b')
      return void res.writeHead(200, { 'content-type': 'text/html' }).end(`<html><head><title></title></head><body><p>${path.slice(1)}</p></body></html>`);
    const r = guideResponse(path) ?? { status: 404, headers: { 'content-type': 'text/plain' }, body: 'not found' };
    if (path === '/') r.body = String(r.body).replace('</ul>', '<li><a href="/a">a</a></li><li><a href="/b">b</a></li></ul>');
    res.writeHead(r.status, r.headers).end(r.body);
  });
  const data = tempDir();
  try {
    await crawl([`${site.origin}/`], { data: data.dir, env: {}, allowPrivateNetwork: true, delayMs: 0, enrich: true });
    const store = openStore(data.dir);
    try {
      for (const q of ['xyzzy', 'qwv plomb frindle', 'seasoning cast iron', 'a']) {
        const vector = await store.search(q, { mode: 'vector', limit: 50, env: {} });
        for (const hit of vector.hits) assert.ok(!/\/(a|b)$/.test(hit.url), `"${q}": ${hit.url} is a vector hit (similarity ${hit.why.similarity})`);
        if (q === 'xyzzy' || q === 'qwv plomb frindle') assert.deepEqual(vector.hits, [], `"${q}" has no vector hits`);
        for (const hit of vector.hits) assert.ok((hit.why.similarity ?? 0) >= 0.15);
      }
      const real = await store.search('seasoning cast iron', { mode: 'vector', env: {} });
      assert.match(real.hits[0]?.url ?? '', /cast-iron-care$/);
    } finally {
      await store.close();
    }
  } finally {
    await site.close();
    data.cleanup();
  }
});
