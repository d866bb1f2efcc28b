// DynamoDB items stop at 400 KB. The items whose size grows with a page or a run are
// written at their worst case to dynalite, which enforces the limit as DynamoDB does: a page's
// links (MAX_LINKS of them, long URLs, full contexts), a page's inlink sources, the TOP item.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { MAX_LINKS } from '../../shared/extract/link-context.js';
import { edgesOf, linksItem } from '../../shared/store/aws/dynamo-items.js';
import { MAX_INLINK_SOURCES, TOP_PAGES, topItem } from '../../shared/store/aws/dynamo-ranks.js';
import { keys } from '../../shared/store/aws/table-layout.js';
import type { EdgeRecord, RankedPage } from '../../shared/ports/index.js';
import { startEmulators, type Emulators } from '../../support/cloud/emulators.js';

let emu: Emulators;
let table: string;
before(async () => {
  emu = await startEmulators();
  table = (await emu.provision('sizes')).table;
});
after(() => emu.stop());

/** Text that does not compress: what gzip gains on real links is not counted on. */
const noise = (seed: number, length: number) => {
  let x = seed * 2654435761;
  let out = '';
  while (out.length < length) {
    x = (x * 1103515245 + 12345) >>> 0;
    out += x.toString(36);
  }
  return out.slice(0, length);
};
const put = (Item: Record<string, unknown>) => emu.clients.doc.send(new PutCommand({ TableName: table, Item }));

test('a page with MAX_LINKS links of 2,000-character URLs fits one LINKS item: contexts cut, then the last links left out', async () => {
  const edges: EdgeRecord[] = Array.from({ length: MAX_LINKS }, (_, i) => ({
    fromId: 'p',
    snapshot: 'h',
    toId: noise(i, 32),
    toUrl: `https://example.com/${noise(i + 1, 2000)}`,
    anchor: noise(i + 2, 200),
    context: noise(i + 3, 200),
    section: 'body',
    rel: '',
    internal: true,
    nofollow: false,
  }));
  const item = linksItem('p', 'h', edges);
  await put(item);
  const back = edgesOf(item);
  assert.ok(back.length > 100 && back.length < MAX_LINKS, `${back.length} links kept`);
  assert.equal(item.kept, back.length);
  assert.equal(item.count, MAX_LINKS);
  assert.equal(back[7]!.toUrl, edges[7]!.toUrl);
  assert.equal(back[7]!.context.length, 80);
  // Links as real pages have them (short URLs, anchors and contexts): all kept, contexts whole.
  const real = edges.map((e, i) => ({ ...e, toUrl: `https://example.com/articles/${i}`, anchor: `Article ${i}` }));
  const whole = edgesOf(linksItem('p', 'h', real));
  assert.equal(whole.length, MAX_LINKS);
  assert.equal(whole[3]!.context, real[3]!.context);
});

test('an INLINKS item naming MAX_INLINK_SOURCES sources fits', async () => {
  const sources = Array.from({ length: MAX_INLINK_SOURCES }, (_, i) => noise(i, 32));
  await put({ ...keys.inlinks('p'), type: 'INLINKS', urlId: 'p', runId: 1, count: 10 ** 6, sources });
});

test('the TOP item keeps as many pages as fit, whatever their URLs and titles', async () => {
  const pages: RankedPage[] = Array.from({ length: TOP_PAGES }, (_, i) => ({
    urlId: noise(i, 32),
    url: `https://example.com/${noise(i, 8000)}`,
    title: noise(i + 1, 1000),
    inlinks: i,
    hosts: i,
    pagerank: 1 / (i + 1),
  }));
  const item = topItem(1, pages);
  await put(item);
  const kept = (item.pages as RankedPage[]).length;
  assert.ok(kept > 10 && kept < TOP_PAGES, `${kept} pages kept`);
  assert.equal(
    (
      topItem(
        1,
        pages.slice(0, 5).map((p) => ({ ...p, url: 'https://example.com/a' })),
      ).pages as RankedPage[]
    ).length,
    5,
  );
});
