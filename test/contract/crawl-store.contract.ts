import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FETCH_LATENCY_BOUNDS_MS, ROBOTS_REFUSAL, type ChunkRecord, type CrawlStore } from '../../shared/ports/index.js';
import { simhash } from '../../shared/dedupe/simhash.js';
import { META_FIELDS } from '../../shared/extract/meta-fields.js';
import type { Adapter } from './adapter.js';
import { edge, extract, fetchRecord, page, row } from '../store-records.js';

/** The behaviour every CrawlStore adapter must have; run against each adapter. */
export function crawlStoreContract(name: string, adapter: Adapter<CrawlStore>): void {
  const withStore = async (fn: (s: CrawlStore) => Promise<void>) => {
    const store = await adapter.open();
    try {
      await fn(store);
    } finally {
      await adapter.close(store);
    }
  };

  test(`${name}: inserts a URL once per run; a soft skip is queued when a better path appears`, () =>
    withStore(async (s) => {
      const run = await s.createRun(['http://a.test/'], {}, 1);
      assert.deepEqual((await s.addUrls([row(run.id, 'x'), row(run.id, 'y', 'skipped', 'max-depth'), row(run.id, 'z', 'skipped', 'out-of-scope')])).sort(), [
        'x',
        'y',
        'z',
      ]);
      assert.deepEqual(await s.addUrls([row(run.id, 'x'), row(run.id, 'y'), row(run.id, 'z')]), ['y']);
      assert.deepEqual((await s.queuedUrls(run.id)).map((r) => r.urlId).sort(), ['x', 'y']);
      const other = await s.createRun([], {}, 2);
      assert.deepEqual(await s.addUrls([row(other.id, 'x')]), ['x']);
      assert.equal((await s.latestRun())?.id, other.id);
    }));

  test(`${name}: finds a run by id, the running runs and a crawl's latest run without listing every run`, () =>
    withStore(async (s) => {
      const a1 = await s.createRun(['http://a.test/'], { crawl: 'alpha' }, 1);
      const b1 = await s.createRun(['http://b.test/'], { crawl: 'beta' }, 2);
      const a2 = await s.createRun(['http://a.test/'], { crawl: 'alpha' }, 3);
      await s.setRunStatus(a1.id, 'finished', 4);
      assert.deepEqual((await s.getRun(b1.id))?.seeds, ['http://b.test/']);
      assert.equal(await s.getRun(a2.id + 100), undefined);
      assert.deepEqual(
        (await s.runningRuns()).map((r) => [r.id, r.config.crawl]),
        [
          [b1.id, 'beta'],
          [a2.id, 'alpha'],
        ],
      );
      assert.equal((await s.latestRunOf('alpha'))?.id, a2.id);
      assert.equal((await s.latestRunOf('beta'))?.id, b1.id);
      assert.equal(await s.latestRunOf('gamma'), undefined);
      // A run that ends leaves the running runs; one marked running again comes back.
      await s.setRunStatus(b1.id, 'failed', 5);
      assert.deepEqual(
        (await s.runningRuns()).map((r) => r.id),
        [a2.id],
      );
      await s.setRunStatus(b1.id, 'running', 6);
      assert.deepEqual(
        (await s.runningRuns()).map((r) => r.id),
        [b1.id, a2.id],
      );
    }));

  test(`${name}: widens a run's scope with each origin once, and only that run's`, () =>
    withStore(async (s) => {
      const run = await s.createRun(['http://a.test/'], {}, 1);
      const other = await s.createRun([], {}, 2);
      assert.equal((await s.latestRun())?.scope, undefined);
      await s.widenRunScope(run.id, ['http://c.test', 'http://b.test:8080']);
      await s.widenRunScope(run.id, ['http://b.test:8080', 'https://d.test']);
      await s.widenRunScope(run.id, []);
      const runs = await s.runs();
      assert.deepEqual(runs.find((r) => r.id === run.id)?.scope, ['http://b.test:8080', 'http://c.test', 'https://d.test']);
      assert.equal(runs.find((r) => r.id === other.id)?.scope, undefined);
      assert.deepEqual(runs.find((r) => r.id === run.id)?.seeds, ['http://a.test/']);
    }));

  test(`${name}: requeues what was in flight and remembers what the run has seen`, () =>
    withStore(async (s) => {
      const run = await s.createRun([], {}, 1);
      await s.addUrls([row(run.id, 'a'), row(run.id, 'b')]);
      await s.markInFlight(run.id, 'a');
      await s.setUrlStates(run.id, ['b'], 'skipped', 'host-parked');
      assert.deepEqual(await s.requeueInFlight(run.id, 4), { requeued: 1, exhausted: 0 });
      const seen = await s.seenUrls(run.id);
      assert.deepEqual(seen.map((x) => [x.urlId, x.state, x.reason ?? null]).sort(), [
        ['a', 'queued', null],
        ['b', 'skipped', 'host-parked'],
      ]);
    }));

  test(`${name}: hands a run's fetched pages a slice at a time, each once, in slices as asked, without duplicates, other kinds or other runs`, () =>
    withStore(async (s) => {
      const run = await s.createRun([], {}, 1);
      const other = await s.createRun([], {}, 1);
      const ids = Array.from({ length: 25 }, (_, i) => `p${String(i).padStart(2, '0')}`);
      await s.addUrls([...ids.map((id) => row(run.id, id)), row(run.id, 'map', 'queued', undefined, { kind: 'sitemap' }), row(other.id, 'p00')]);
      const done = ids.filter((_, i) => i % 5 !== 0);
      await s.setUrlStates(run.id, done, 'done', 'http-200');
      await s.setUrlStates(run.id, ['p00', 'p05'], 'duplicate', 'duplicate-body');
      await s.setUrlStates(run.id, ['map'], 'done', 'http-200');
      await s.setUrlStates(other.id, ['p00'], 'done', 'http-200');
      const got: string[] = [];
      let cursor: string | undefined;
      let slices = 0;
      do {
        const slice = await s.runPages(run.id, 3, cursor);
        assert.ok(slice.urlIds.length <= 3);
        got.push(...slice.urlIds);
        cursor = slice.cursor;
        slices += 1;
        assert.ok(slices < 100, 'the cursor moves on');
      } while (cursor);
      assert.deepEqual([...got].sort(), done);
      assert.deepEqual((await s.runPages(run.id, 100)).urlIds.sort(), done, 'one slice when it fits');
    }));

  test(`${name}: counts attempts when a URL goes in flight, so a page that kills the process fails after maxAttempts`, () =>
    withStore(async (s) => {
      const run = await s.createRun([], {}, 1);
      await s.addUrls([row(run.id, 'crash'), row(run.id, 'fine')]);
      for (let i = 0; i < 3; i++) {
        await s.markInFlight(run.id, 'crash');
        assert.deepEqual(await s.requeueInFlight(run.id, 3), i < 2 ? { requeued: 1, exhausted: 0 } : { requeued: 0, exhausted: 1 });
      }
      const seen = new Map((await s.seenUrls(run.id)).map((x) => [x.urlId, [x.state, x.reason ?? null]]));
      assert.deepEqual(seen.get('crash'), ['failed', 'attempts-exhausted']);
      assert.deepEqual(seen.get('fine'), ['queued', null]);
      assert.equal((await s.queuedUrls(run.id)).find((r) => r.urlId === 'fine')?.attempts, 0);
    }));

  test(`${name}: defers URLs with the time they may be asked, hands them to a resume, and settles what is left queued`, () =>
    withStore(async (s) => {
      const run = await s.createRun([], {}, 1);
      await s.addUrls([row(run.id, 'later'), row(run.id, 'left'), row(run.id, 'done')]);
      await s.setUrlStates(run.id, ['later'], 'deferred', 'backed-off', 9_000);
      assert.deepEqual(
        (await s.deferredUrls(run.id)).map((r) => [r.urlId, r.notBefore, r.reason]),
        [['later', 9_000, 'backed-off']],
      );
      assert.deepEqual(await s.requeueInFlight(run.id, 4), { requeued: 1, exhausted: 0 });
      const later = (await s.queuedUrls(run.id)).find((r) => r.urlId === 'later');
      assert.equal(later?.notBefore, 9_000);
      assert.equal(later?.reason, undefined);
      await s.setUrlStates(run.id, ['done'], 'skipped', 'robots');
      assert.equal(await s.settleQueued(run.id, 'max-pages'), 2);
      assert.deepEqual((await s.queuedUrls(run.id)).length, 0);
      const states = (await s.seenUrls(run.id)).map((x) => [x.urlId, x.state, x.reason]).sort();
      assert.deepEqual(states, [
        ['done', 'skipped', 'robots'],
        ['later', 'skipped', 'max-pages'],
        ['left', 'skipped', 'max-pages'],
      ]);
    }));

  test(`${name}: commits a fetch with its page, edges and extraction, and answers lookups`, () =>
    withStore(async (s) => {
      const run = await s.createRun([], {}, 1);
      await s.addUrls([row(run.id, 'p'), row(run.id, 'q')]);
      const inserted = await s.commitFetch({
        runId: run.id,
        urlId: 'p',
        state: 'done',
        attempts: 1,
        fetch: fetchRecord({ runId: run.id, urlId: 'p', fetchedAt: 10, contentHash: 'h1' }),
        page: page({ runId: run.id, urlId: 'p', contentHash: 'h1', fetchedAt: 10 }),
        edges: [edge('p', 'h1', 'q'), edge('p', 'h1', 'r')],
        extract: extract('p', 'alpha beta gamma delta epsilon', 'h1'),
        chunks: [{ urlId: 'p', seq: 0, id: 'c0', position: 0, tokens: 5, text: 'alpha beta gamma delta epsilon' }],
        discovered: [row(run.id, 'r')],
      });
      assert.deepEqual(inserted, ['r']);
      assert.equal((await s.getPage('p'))?.contentHash, 'h1');
      assert.deepEqual((await s.outlinks('p')).map((e) => e.toId).sort(), ['q', 'r']);
      assert.equal((await s.getExtract('p'))?.markdown, 'alpha beta gamma delta epsilon');
      assert.deepEqual(await s.findNearDuplicate(simhash('alpha beta gamma delta epsilon'), 'other', 3), { urlId: 'p', distance: 0 });
      assert.equal(await s.findNearDuplicate(simhash('completely different words here'), 'other', 3), undefined);
      assert.equal(await s.findTextDuplicate('t-alpha beta gamma delta epsilon', 'other'), 'p');
      assert.equal(await s.findTextDuplicate('t-alpha beta gamma delta epsilon', 'p'), undefined);
    }));

  test(`${name}: gives an extraction back as it was stored, every optional field and every metadata text field set`, () =>
    withStore(async (s) => {
      const run = await s.createRun([], {}, 1);
      await s.addUrls([row(run.id, 'x')]);
      const text = Object.fromEntries(META_FIELDS.map((f) => [f, `${f} of x`]));
      const x = extract('x', 'words of the page', 'h1', {
        runId: run.id,
        ...text,
        nearDuplicateOf: 'y',
        nearDuplicateDistance: 2,
        textDuplicateOf: 'z',
        pdfPages: 3,
        metadata: { ...text, wordCount: 4, sources: { title: 'meta' }, cuts: [{ part: 'markdown' }] },
        fields: { price: 12.5, sizes: ['S', 'M'], name: 'Pond pump' },
      });
      await s.commitFetch({
        runId: run.id,
        urlId: 'x',
        state: 'done',
        attempts: 1,
        page: page({ runId: run.id, urlId: 'x', contentHash: 'h1', fetchedAt: 10 }),
        extract: x,
      });
      assert.deepEqual(await s.getExtract('x'), x);
    }));

  test(`${name}: commits a batch of fetches as the same fetches one by one would, each told which of its URLs were new`, () =>
    withStore(async (s) => {
      const run = await s.createRun([], {}, 1);
      await s.addUrls([row(run.id, 'a'), row(run.id, 'b'), row(run.id, 'c')]);
      const results = await s.commitFetches([
        {
          runId: run.id,
          urlId: 'a',
          state: 'done',
          attempts: 1,
          fetch: fetchRecord({ runId: run.id, urlId: 'a', fetchedAt: 10, contentHash: 'ha' }),
          page: page({ runId: run.id, urlId: 'a', contentHash: 'ha', fetchedAt: 10 }),
          edges: [edge('a', 'ha', 'x')],
          discovered: [row(run.id, 'x'), row(run.id, 'y')],
        },
        {
          runId: run.id,
          urlId: 'b',
          state: 'queued',
          reason: 'http-429',
          attempts: 1,
          notBefore: 50,
          fetch: fetchRecord({ runId: run.id, urlId: 'b', fetchedAt: 11 }),
        },
        {
          runId: run.id,
          urlId: 'c',
          state: 'done',
          attempts: 1,
          fetch: fetchRecord({ runId: run.id, urlId: 'c', fetchedAt: 12, contentHash: 'hc' }),
          page: page({ runId: run.id, urlId: 'c', contentHash: 'hc', fetchedAt: 12 }),
          discovered: [row(run.id, 'y'), row(run.id, 'z')],
        },
      ]);
      assert.deepEqual(
        results.map((r) => [...r].sort()),
        [['x', 'y'], [], ['z']],
        'a URL new in the batch is new once, to the first commit that names it',
      );
      assert.deepEqual(await s.commitFetches([]), []);
      const states = new Map((await s.seenUrls(run.id)).map((x) => [x.urlId, x.state]));
      assert.deepEqual([states.get('a'), states.get('b'), states.get('c'), states.get('z')], ['done', 'queued', 'done', 'queued']);
      assert.equal((await s.queuedUrls(run.id)).find((r) => r.urlId === 'b')?.notBefore, 50);
      assert.deepEqual(
        (await s.outlinks('a')).map((e) => e.toId),
        ['x'],
      );
      assert.equal((await s.fetchHistory('c')).length, 1);
      assert.equal((await s.summary(run.id)).requests, 3);
    }));

  test(`${name}: keeps the history of a target and the edges of its current snapshot`, () =>
    withStore(async (s) => {
      const run = await s.createRun([], {}, 1);
      await s.addUrls([row(run.id, 'p')]);
      await s.commitFetch({
        runId: run.id,
        urlId: 'p',
        state: 'done',
        attempts: 1,
        fetch: fetchRecord({ runId: run.id, urlId: 'p', fetchedAt: 10, contentHash: 'h1' }),
        page: page({ runId: run.id, urlId: 'p', contentHash: 'h1', fetchedAt: 10 }),
        edges: [edge('p', 'h1', 'old')],
      });
      await s.commitFetch({
        runId: run.id,
        urlId: 'p',
        state: 'done',
        attempts: 2,
        fetch: fetchRecord({ runId: run.id, urlId: 'p', fetchedAt: 20, contentHash: 'h2' }),
        page: page({ runId: run.id, urlId: 'p', contentHash: 'h2', fetchedAt: 20 }),
        edges: [edge('p', 'h2', 'new')],
      });
      await s.recordFetch(fetchRecord({ runId: run.id, urlId: 'p', fetchedAt: 30, status: undefined, error: 'ECONNRESET' }));
      const history = await s.fetchHistory('p');
      assert.deepEqual(
        history.map((h) => [h.fetchedAt, h.contentHash ?? null, h.error ?? null]),
        [
          [10, 'h1', null],
          [20, 'h2', null],
          [30, null, 'ECONNRESET'],
        ],
      );
      assert.deepEqual(
        (await s.outlinks('p')).map((e) => e.toId),
        ['new'],
      );
      await s.saveExtraction([edge('p', 'h2', 'again')], extract('p', 'new words for the page', 'h2'), []);
      assert.deepEqual((await s.outlinks('p')).map((e) => e.toId).sort(), ['again', 'new']);
      assert.equal((await s.storedPages()).length, 1);
    }));

  test(`${name}: counts a run's fetches over time and by latency, leaving robots.txt refusals out`, () =>
    withStore(async (s) => {
      const run = await s.createRun([], {}, 1);
      await s.recordFetch(fetchRecord({ runId: run.id, urlId: 'a', fetchedAt: 1_000, contentHash: 'h1', durationMs: 5 }));
      await s.recordFetch(fetchRecord({ runId: run.id, urlId: 'b', fetchedAt: 2_000, status: 404, durationMs: 300 }));
      await s.recordFetch(fetchRecord({ runId: run.id, urlId: 'c', fetchedAt: 125_000, contentHash: 'h3', durationMs: 40_000 }));
      await s.recordFetch(fetchRecord({ runId: run.id, urlId: 'd', fetchedAt: 126_000, status: undefined, error: 'ECONNRESET', durationMs: 10 }));
      await s.recordFetch(fetchRecord({ runId: run.id, urlId: 'e', fetchedAt: 127_000, status: undefined, error: ROBOTS_REFUSAL, durationMs: 0 }));
      await s.recordFetch(fetchRecord({ runId: run.id, urlId: 'f', fetchedAt: 1_500, contentHash: 'h1', status: 304, notModified: true, durationMs: 5 }));
      const a = await s.activity(run.id);
      assert.equal(a.runId, run.id);
      assert.ok(a.bucketMs >= 1000 && a.bucketMs <= 60_000, `bucket ${a.bucketMs} ms`);
      const sum = (k: 'requests' | 'ok' | 'unchanged') => a.points.reduce((n, p) => n + p[k], 0);
      assert.deepEqual([sum('requests'), sum('ok'), sum('unchanged')], [5, 2, 1], 'a 304 is a request and unchanged, not a 2xx');
      for (const p of a.points) assert.equal(p.at % a.bucketMs, 0);
      const pointOf = (at: number) => a.points.findIndex((p) => p.at <= at && at < p.at + a.bucketMs);
      assert.ok(pointOf(1_000) >= 0 && pointOf(1_000) < pointOf(125_000), 'points are oldest first');
      assert.deepEqual(a.points[pointOf(1_000)], { at: a.points[pointOf(1_000)]!.at, requests: 3, ok: 1, unchanged: 1 });
      const expected = new Array<number>(FETCH_LATENCY_BOUNDS_MS.length + 1).fill(0);
      expected[0] = 3; // 5 ms, 5 ms and 10 ms
      expected[3] = 1; // 300 ms: (250, 500]
      expected[FETCH_LATENCY_BOUNDS_MS.length] = 1; // 40 s: above the last bound
      assert.deepEqual(a.latency, { counts: expected, sumMs: 40_320 });
    }));

  test(`${name}: the first page fetched with some bytes owns them; an owner whose page moved on gives them up`, () =>
    withStore(async (s) => {
      assert.equal(await s.claimBody('b1', 'first', 10), 'first');
      assert.equal(await s.claimBody('b1', 'second', 20), 'first', 'a byte duplicate, even before the owner is processed');
      assert.equal(await s.claimBody('b1', 'first', 30), 'first', 'a refetch keeps it');
      const run = await s.createRun([], {}, 1);
      await s.addUrls([row(run.id, 'first')]);
      await s.commitFetch({
        runId: run.id,
        urlId: 'first',
        state: 'done',
        attempts: 1,
        page: { ...page({ runId: run.id, urlId: 'first', contentHash: 'b2', fetchedAt: 40 }) },
      });
      assert.equal(await s.claimBody('b1', 'second', 50), 'second', 'the owner now has other bytes');
      assert.equal(await s.claimBody('b1', 'third', 60), 'second');
    }));

  test(`${name}: lists the newest runs a page at a time`, () =>
    withStore(async (s) => {
      const ids: number[] = [];
      for (let i = 0; i < 5; i++) ids.push((await s.createRun([`http://${i}.test/`], {}, i)).id);
      const of = (runs: Array<{ id: number }>) => runs.map((r) => r.id);
      assert.deepEqual(of(await s.recentRuns(2)), [ids[4], ids[3]]);
      assert.deepEqual(of(await s.recentRuns(2, ids[3])), [ids[2], ids[1]]);
      assert.deepEqual(of(await s.recentRuns(10, ids[1])), [ids[0]]);
      assert.deepEqual(of(await s.recentRuns(10, ids[0])), []);
      assert.deepEqual((await s.recentRuns(1))[0]?.seeds, ['http://4.test/']);
    }));

  test(`${name}: lists runs oldest first and reads a page's chunks in order`, () =>
    withStore(async (s) => {
      const first = await s.createRun(['http://a.test/'], { maxPages: 5 }, 1);
      const second = await s.createRun(['http://b.test/'], {}, 2);
      assert.deepEqual(
        (await s.runs()).map((r) => [r.id, r.seeds[0]]),
        [
          [first.id, 'http://a.test/'],
          [second.id, 'http://b.test/'],
        ],
      );
      const chunk = (seq: number) => ({
        urlId: 'p',
        seq,
        id: `c${seq}`,
        position: seq / 3,
        tokens: 10,
        text: `chunk ${seq}`,
        prevId: seq ? `c${seq - 1}` : undefined,
      });
      await s.saveExtraction([], extract('p', 'alpha beta', 'h1'), [chunk(0), chunk(1), chunk(2)]);
      assert.deepEqual(
        (await s.chunks('p')).map((c) => [c.seq, c.text, c.prevId ?? null]),
        [
          [0, 'chunk 0', null],
          [1, 'chunk 1', 'c0'],
          [2, 'chunk 2', 'c1'],
        ],
      );
      assert.deepEqual(await s.chunks('none'), []);
      // Chunks of the page's own markdown (overlapping, as the chunker makes them) and one whose
      // spacing differs from it come back whole, every field as stored.
      const markdown = '# Ponds\n\nA pond needs shade. Frogs like reeds.\n\nClean the filter weekly in summer.';
      const mine: ChunkRecord[] = [
        { urlId: 'q', seq: 0, id: 'd0', position: 0, tokens: 8, text: '# Ponds\n\nA pond needs shade. Frogs like reeds.', nextId: 'd1' },
        { urlId: 'q', seq: 1, id: 'd1', position: 0.3, tokens: 9, text: 'Frogs like reeds.\n\nClean the filter weekly in summer.', prevId: 'd0', nextId: 'd2' },
        { urlId: 'q', seq: 2, id: 'd2', position: 0.9, tokens: 4, text: 'Clean the filter  weekly.', prevId: 'd1' },
      ];
      await s.saveExtraction([], extract('q', markdown, 'h2'), mine);
      const plain = (x: unknown) => JSON.parse(JSON.stringify(x)) as unknown;
      assert.deepEqual(plain(await s.chunks('q')), plain(mine));
    }));

  test(`${name}: stores host state without losing robots.txt fields`, () =>
    withStore(async (s) => {
      const state = { host: 'a.test', nextAllowedAt: 5, backoffUntil: 9, backoffStep: 1, consecutiveFailures: 1, crawlDelayMs: 2000 };
      await s.putHost({ host: 'a.test', state, robotsStatus: 200, robotsBody: 'User-agent: *\nDisallow: /x\n', robotsFetchedAt: 1, robotsExpiresAt: 100 });
      await s.putHostState({ ...state, parkedReason: 'too many failures' });
      const back = await s.getHost('a.test');
      assert.deepEqual([back?.robotsStatus, back?.robotsExpiresAt, back?.state.parkedReason], [200, 100, 'too many failures']);
      assert.equal(await s.getHost('b.test'), undefined);
    }));
}
