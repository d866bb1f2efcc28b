// Pages are processed several at once off their host's path and committed in groups, so a page and
// its duplicate fetched one after the other are often both extracted before either is committed:
// the store alone cannot see the pair. The pages in flight are looked up too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { crawl } from '../../shared/library/crawl.js';
import { openStore } from '../../shared/library/store.js';
import { ContentInFlight } from '../../shared/dedupe/in-flight.js';
import { simhash } from '../../shared/dedupe/simhash.js';
import { serve, tempDir } from '../../support/helpers.js';

const WORDS = 'harbour council budget river school bridge market library transit housing garden festival museum clinic station forest'.split(' ');

/** An article of its own words: pair `i`'s text, with `extra` added at the end for the near copy. */
function article(i: number, extra = ''): string {
  let seed = i * 7919 + 17;
  const next = () => (seed = (seed * 48271) % 2147483647);
  const sentences = Array.from({ length: 30 }, () => {
    const words = Array.from({ length: 12 }, () => WORDS[next() % WORDS.length]!);
    return `${words.join(' ')} ${i}x${next() % 97}.`;
  });
  return `<p>${sentences.slice(0, 15).join(' ')}</p><p>${sentences.slice(15).join(' ')}${extra}</p>`;
}

test('a page and its duplicate processed at once: one is flagged as the copy of the other', async () => {
  const PAIRS = 12;
  const page = (title: string, body: string) => `<html><head><title>${title}</title></head><body><article><h1>${title}</h1>${body}</article></body></html>`;
  const site = await serve((req, res) => {
    const path = req.url ?? '/';
    const m = /^\/(a|near|same)\/(\d+)$/.exec(path);
    let body: string;
    if (path === '/robots.txt') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('User-agent: *\nAllow: /\n');
    if (path === '/')
      body = page(
        'Front',
        Array.from({ length: PAIRS }, (_, i) => `<a href="/a/${i}">a ${i}</a> <a href="/near/${i}">near ${i}</a> <a href="/same/${i}">same ${i}</a>`).join(' '),
      );
    else if (m?.[1] === 'a') body = page(`Story ${m[2]}`, article(Number(m[2])));
    else if (m?.[1] === 'near') body = page(`Story ${m[2]}`, article(Number(m[2]), ' updated'));
    // The same text in other markup: a text duplicate.
    else if (m?.[1] === 'same') body = page(`Story ${m[2]}`, `<div class="restyled">${article(Number(m[2]))}</div>`);
    else return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end(body);
  });
  const dir = tempDir();
  try {
    const summary = await crawl([`${site.origin}/`], { data: dir.dir, allowPrivateNetwork: true, delayMs: 0, maxRps: 0, extractWorkers: 0, env: {} });
    assert.equal(summary.status, 'finished');
    const store = openStore(dir.dir);
    try {
      for (let i = 0; i < PAIRS; i++) {
        const [a, near, same] = await Promise.all(['a', 'near', 'same'].map((k) => store.extraction(`${site.origin}/${k}/${i}`)));
        const ids = [a, near, same].map((x) => x!.urlId);
        // Exactly one original among the three; the others point at a page of the three.
        const nearFlags = [a, near, same].filter((x) => x!.nearDuplicateOf !== undefined);
        assert.equal(nearFlags.length, 2, `pair ${i}: ${nearFlags.length} of the three flagged as near-duplicates`);
        for (const x of nearFlags) assert.ok(ids.includes(x!.nearDuplicateOf!) && x!.nearDuplicateOf !== x!.urlId, `pair ${i}`);
        const textFlags = [a, same].filter((x) => x!.textDuplicateOf !== undefined);
        assert.equal(textFlags.length, 1, `pair ${i}: the same text twice, ${textFlags.length} flagged as its copy`);
      }
    } finally {
      await store.close();
    }
  } finally {
    await site.close();
    dir.cleanup();
  }
});

test('the registry answers in claim order, never names a copy as an original, and forgets what is released', () => {
  const base = simhash('the harbour council met on tuesday to discuss the budget for the new river bridge and the library');
  const other = simhash('a completely different text about football results, weather on the coast and a recipe for bread');
  const reg = new ContentInFlight(3);
  assert.deepEqual(reg.claim('a', base, 't1', 3), {});
  // b duplicates a (same SimHash, same text hash).
  assert.deepEqual(reg.claim('b', base, 't1', 3), { near: { urlId: 'a', distance: 0 }, text: 'a' });
  // c finds a, not b: b is a copy itself.
  assert.deepEqual(reg.claim('c', base, 't1', 3), { near: { urlId: 'a', distance: 0 }, text: 'a' });
  reg.release('a');
  // With a released (committed: the store answers for it now), nothing in flight is an original.
  assert.deepEqual(reg.claim('d', base, 't1', 3), {});
  assert.deepEqual(reg.claim('e', other, 't2', 3), {});
  // Bounded: past three entries the oldest is forgotten.
  assert.equal(reg.size, 3);
  reg.mark('e', true, false);
  assert.deepEqual(reg.claim('f', other, 't2', 3), { text: 'e' });
});
