// The WACZ trawl writes is opened by ReplayWeb.page's own engine. wabac.js (its service worker, as
// published) runs in headless Chromium, loads the WACZ from a loopback host by range requests, and
// replays a crawled page after the crawled site is gone: pages the second run found unchanged (a
// 304, and a 200 with the same bytes from a server that sends no validators, both archived as
// revisit records) replay with their bodies at both captures.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createWriteStream, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { crawl, openStore } from '../../shared/index.js';
import { readWarc } from '../../shared/archive/warc-reader.js';
import { serve, tempDir } from '../../support/helpers.js';
import { replayHost } from './replay-host.js';
import { changingSite } from '../changes/site.js';
import { launchUiBrowser } from '../api/ui-browser.js';

test('ReplayWeb.page’s engine (wabac.js) loads the WACZ in headless Chromium and replays a page with the site gone', { timeout: 180_000 }, async () => {
  const site = await changingSite();
  // A server with no ETag or Last-Modified: the second run gets the same 200 again.
  const plain = await serve((req, res) => {
    if (req.url !== '/') return res.writeHead(404, { 'content-type': 'text/plain' }).end('no');
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end('<!doctype html><title>Ferry times</title><p>The ferry leaves at nine and at four.</p>');
  });
  const data = tempDir();
  const options = { data: data.dir, allowPrivateNetwork: true, delayMs: 0, maxRps: 0, render: 'never' as const, env: {} };
  const wacz = join(data.dir, 'crawl.wacz');
  const origin = site.origin;
  let gone = '';
  let unchangedFirst = '';
  let plainFirst = '';
  try {
    await crawl([`${origin}/`, `${plain.origin}/`], options);
    site.change();
    // A WACZ's index times captures to the second (14 digits): two captures of /a in one second
    // are the same moment to a replay tool, which may then show either. The second run starts
    // in a later second, as two crawls of a site do.
    await new Promise((resolve) => setTimeout(resolve, 1001 - (Date.now() % 1000)));
    await crawl([`${origin}/`, `${plain.origin}/`], options);
    const store = openStore(data.dir);
    try {
      const out = createWriteStream(wacz);
      await store.wacz(out);
      if (!out.closed) await once(out, 'close');
      // /b answered 200 in run 1 and 404 in run 2: its first capture, by its 14-digit time.
      const first = (await store.history(`${origin}/b`)).find((e) => e.status === 200)!;
      gone = new Date(first.fetchedAt).toISOString().replace(/\D/g, '').slice(0, 14);
      const [e1, e2] = await store.history(`${origin}/e`);
      assert.deepEqual([e1?.status, e2?.status], [200, 304], '/e is unchanged in run 2');
      unchangedFirst = new Date(e1!.fetchedAt).toISOString().replace(/\D/g, '').slice(0, 14);
      // trawl's own replay of run 2 follows the revisit to the body it confirmed.
      const replayed = await store.replay(`${origin}/e`, { runId: e2!.runId });
      assert.equal(replayed.status, 200);
      assert.match(String(replayed.body), /The harbour master answers on channel 12/);
      const [p1, p2] = await store.history(`${plain.origin}/`);
      assert.deepEqual([p1?.status, p2?.status], [200, 200]);
      plainFirst = new Date(p1!.fetchedAt).toISOString().replace(/\D/g, '').slice(0, 14);
      const again = await store.replay(`${plain.origin}/`, { runId: p2!.runId });
      assert.equal(again.status, 200);
      assert.match(String(again.body), /The ferry leaves at nine/);
    } finally {
      await store.close();
    }
  } finally {
    // The crawled sites go away: what follows can only come from the WACZ.
    await site.close();
    await plain.close();
  }

  // Run 2's 304s are revisit records naming the capture they confirm.
  const revisits = [];
  for (const file of readdirSync(join(data.dir, 'warc')))
    for await (const r of readWarc(join(data.dir, 'warc', file))) if (r.type === 'revisit') revisits.push(r);
  const e = revisits.find((r) => r.url === `${origin}/e`);
  assert.ok(e, 'the unchanged /e is a revisit record');
  assert.equal(e.headers.get('warc-profile'), 'http://netpreserve.org/warc/1.1/revisit/server-not-modified');
  assert.equal(e.headers.get('warc-refers-to-target-uri'), `${origin}/e`);
  assert.equal(new Date(e.headers.get('warc-refers-to-date')!).toISOString().replace(/\D/g, '').slice(0, 14), unchangedFirst);
  assert.match(e.headers.get('warc-payload-digest') ?? '', /^sha1:[A-Z2-7]{32}$/);
  const same = revisits.find((r) => r.url === `${plain.origin}/`);
  assert.ok(same, 'the unchanged 200 is a revisit record');
  assert.equal(same.headers.get('warc-profile'), 'http://netpreserve.org/warc/1.1/revisit/identical-payload-digest');
  assert.equal(same.http?.status, 200, 'with the 200’s own head');
  assert.equal(same.payload.length, 0, 'and no payload');

  const host = await replayHost({ '/crawl.wacz': wacz });
  const { asked } = host;
  const { browser, close } = await launchUiBrowser();
  try {
    const page = await browser.newPage();
    await page.goto(`${host.origin}/index.html`);
    assert.equal(await page.evaluate(`window.loadWacz('${host.origin}/crawl.wacz')`), 'trawl');
    // The latest capture of /a (run 2's text), and run 1's /b, which run 2 found gone.
    const a = (await page.evaluate(`window.replayText('/w/trawl/mp_/${origin}/a')`)) as string;
    assert.match(a, /Tides and currents/);
    assert.match(a, /Currents run fastest at mid-tide/);
    assert.match((await page.evaluate(`window.replayText('/w/trawl/${gone}mp_/${origin}/b')`)) as string, /Visitor moorings are on the north wall/);
    // A URL ending in a slash (its CDXJ key drops it, as pywb's canonicalisation does) replays too.
    assert.match((await page.evaluate(`window.replayText('/w/trawl/mp_/${origin}/')`)) as string, /Everything about the harbour/);
    // The unchanged page at its latest capture (the revisit) and at its first: the body, not an empty 304.
    assert.match((await page.evaluate(`window.replayText('/w/trawl/mp_/${origin}/e')`)) as string, /The harbour master answers on channel 12/);
    assert.match((await page.evaluate(`window.replayText('/w/trawl/${unchangedFirst}mp_/${origin}/e')`)) as string, /The harbour master answers on channel 12/);
    // The unchanged 200 (a URL ending in a slash) at its revisit and at its first capture.
    assert.match((await page.evaluate(`window.replayText('/w/trawl/mp_/${plain.origin}/')`)) as string, /The ferry leaves at nine/);
    assert.match((await page.evaluate(`window.replayText('/w/trawl/${plainFirst}mp_/${plain.origin}/')`)) as string, /The ferry leaves at nine/);
    assert.ok(
      asked.some((u) => u === '/crawl.wacz'),
      'the WACZ came from the loopback host',
    );
  } finally {
    await close();
    await host.close();
    data.cleanup();
  }
});
