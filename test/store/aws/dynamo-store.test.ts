// What only the DynamoDB store does (the port behaviour is in test/contract): texts too large for an item spill to S3.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { DynamoCrawlStore } from '../../../shared/store/aws/dynamo-store.js';
import { S3BlobStore, S3Objects } from '../../../shared/store/aws/s3-store.js';
import { BAND_CANDIDATES } from '../../../shared/store/aws/dynamo-content.js';
import { PutCommand, QueryCommand, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { LARGE_RUN_PAGES, LARGE_RUN_SHARDS, RUN_SHARDS } from '../../../shared/store/aws/table-layout.js';
import { DynamoEnrichStore } from '../../../shared/store/aws/dynamo-enrich.js';
import { TEXT_LOG_SHARDS } from '../../../shared/store/aws/dynamo-text-log.js';
import { NEAR_DUPLICATE_DISTANCE, simhash } from '../../../shared/dedupe/simhash.js';
import { extract, fetchRecord, row } from '../../store-records.js';
import { startEmulators, type Emulators } from '../../../support/cloud/emulators.js';
import { enrichmentRecord } from '../../contract/enrich-store.contract.js';

let emu: Emulators;
let n = 0;
before(async () => {
  emu = await startEmulators();
});
after(() => emu.stop());

async function fresh(): Promise<{ store: DynamoCrawlStore; table: string; queueUrl: string; objects: S3Objects }> {
  const names = await emu.provision(`ledger-${++n}`);
  const objects = new S3Objects(emu.clients.s3, names.bucket);
  return {
    store: new DynamoCrawlStore(emu.clients.doc, names.table, { blobs: new S3BlobStore(objects) }),
    table: names.table,
    queueUrl: names.queueUrl,
    objects,
  };
}

test('texts too large for an item go to S3 and come back whole', async () => {
  const { store } = await fresh();
  const big = 'word '.repeat(60_000);
  await store.saveExtraction(
    [],
    {
      urlId: 'p',
      runId: 1,
      snapshot: 's',
      wordCount: 60_000,
      readingMinutes: 200,
      method: 'readability',
      markdown: big,
      textHash: 't',
      simhash: '0123456789abcdef',
      metadata: {},
    },
    [],
  );
  assert.equal((await store.getExtract('p'))?.markdown, big);
  await store.putHost({
    host: 'h',
    state: { host: 'h', nextAllowedAt: 0, backoffUntil: 0, backoffStep: 0, consecutiveFailures: 0, crawlDelayMs: 0 },
    robotsStatus: 200,
    robotsBody: `User-agent: *\n${'Disallow: /x\n'.repeat(20_000)}`,
  });
  assert.equal((await store.getHost('h'))?.robotsBody?.length, 'User-agent: *\n'.length + 'Disallow: /x\n'.length * 20_000);
});

test('near-duplicate bands stay bounded: copies leave one item a band, and a crowded band is read only up to its cap', async () => {
  const { store, table } = await fresh();
  const text = 'the same boilerplate page served under many addresses of one site';
  const hash = simhash(text);
  await store.saveExtraction([], extract('orig', text, 's0'), []);
  for (let i = 0; i < 30; i++) {
    const found = await store.findNearDuplicate(hash, `copy${i}`, NEAR_DUPLICATE_DISTANCE);
    assert.deepEqual(found, { urlId: 'orig', distance: 0 });
    await store.saveExtraction([], extract(`copy${i}`, text, `s${i + 1}`, { nearDuplicateOf: 'orig' }), []);
  }
  const bandItems = async () =>
    (
      await emu.clients.doc.send(
        new ScanCommand({
          TableName: table,
          FilterExpression: '#t = :b',
          ExpressionAttributeNames: { '#t': 'type' },
          ExpressionAttributeValues: { ':b': 'BAND' },
        }),
      )
    ).Items ?? [];
  assert.deepEqual(
    (await bandItems()).map((i) => i.urlId),
    Array(6).fill('orig'),
    'only the original is in the bands',
  );

  // The original's text changes: its old bands lose it, a copy of the new text finds it again.
  const changed = `${text} now with a different ending paragraph entirely rewritten`;
  await store.saveExtraction([], extract('orig', changed, 's99'), []);
  assert.equal((await bandItems()).filter((i) => i.simhash === hash).length, 0);
  assert.equal((await store.findNearDuplicate(simhash(changed), 'x', NEAR_DUPLICATE_DISTANCE))?.urlId, 'orig');

  // 130 pages sharing one band (its 22 bits), each far from the others elsewhere.
  const base = BigInt(`0x${simhash('a crowded band of unrelated pages')}`);
  const crowd = Array.from({ length: 130 }, (_, i) => {
    const low = (BigInt(i + 1) * 0x9e3779b97f4an) & ((1n << 42n) - 1n);
    return ((base & ~((1n << 42n) - 1n)) | low).toString(16).padStart(16, '0');
  });
  for (const [i, h] of crowd.entries()) await store.saveExtraction([], { ...extract(`crowd${i}`, `page ${i}`, `c${i}`), simhash: h }, []);
  const read: number[] = [];
  const counting = new DynamoCrawlStore(
    {
      send: async (command: { input: unknown }) => {
        const res = (await emu.clients.doc.send(command as never)) as { Items?: unknown[] };
        if (command instanceof QueryCommand) read.push(res.Items?.length ?? 0);
        return res;
      },
    } as never,
    table,
    { blobs: new S3BlobStore(new S3Objects(emu.clients.s3, 'unused')) },
  );
  await counting.findNearDuplicate(crowd[0]!, 'crowd0', NEAR_DUPLICATE_DISTANCE);
  assert.equal(read.length, 6, 'one query a band');
  assert.equal(Math.max(...read), BAND_CANDIDATES, `items read a band: ${read.join(', ')}`);
});

test('fetch records and minutes of activity carry the TTL the deployment sets; history reads them as before', async () => {
  const names = await emu.provision(`ledger-${++n}`);
  const store = new DynamoCrawlStore(emu.clients.doc, names.table, {
    blobs: new S3BlobStore(new S3Objects(emu.clients.s3, names.bucket)),
    fetchRetentionDays: 7,
    frontierRetentionDays: 3,
  });
  const run = await store.createRun(['http://a.test/'], {}, 1);
  const at = Date.UTC(2026, 10, 28, 12, 0, 0);
  const before = Math.floor(Date.now() / 1000);
  await store.recordFetch(fetchRecord({ runId: run.id, urlId: 'p', fetchedAt: at, contentHash: 'h1' }));
  const items = (await emu.clients.doc.send(new ScanCommand({ TableName: names.table }))).Items ?? [];
  const fetch = items.find((i) => i.type === 'FETCH');
  assert.equal(fetch?.expiresAt, Math.floor(at / 1000) + 7 * 86_400);
  const minute = items.find((i) => i.type === 'ACTIVITY');
  assert.ok(Number(minute?.expiresAt) >= before + 3 * 86_400 && Number(minute?.expiresAt) <= before + 3 * 86_400 + 60, String(minute?.expiresAt));
  const history = await store.fetchHistory('p');
  assert.equal(history.length, 1);
  assert.equal('expiresAt' in history[0]!, false);
});

test("a run's summary reads its counters, never its URLs: the same few calls for 10 URLs as for 400", async () => {
  const { store, table } = await fresh();
  const sent: string[] = [];
  const spying = new DynamoCrawlStore(
    {
      send: (command: { constructor: { name: string }; input: { ExpressionAttributeValues?: Record<string, unknown> } }) => {
        sent.push(`${command.constructor.name} ${String(command.input.ExpressionAttributeValues?.[':sk'] ?? '')}`.trim());
        return emu.clients.doc.send(command as never);
      },
    } as never,
    table,
    { blobs: new S3BlobStore(new S3Objects(emu.clients.s3, 'unused')) },
  );
  const calls: string[][] = [];
  for (const size of [10, 400]) {
    const run = await store.createRun(['http://a.test/'], {}, 1);
    await store.addUrls(Array.from({ length: size }, (_, i) => row(run.id, `u${size}-${i}`)));
    await store.markInFlight(run.id, `u${size}-0`);
    await store.setUrlStates(run.id, [`u${size}-1`, `u${size}-2`], 'skipped', 'host-parked');
    await store.setUrlStates(run.id, [`u${size}-3`], 'failed', 'attempts-exhausted');
    sent.length = 0;
    const summary = await spying.summary(run.id);
    calls.push([...sent].sort());
    assert.deepEqual(summary.urlsByState, { queued: size - 4, in_flight: 1, skipped: 2, failed: 1 });
    assert.deepEqual(summary.skipsByReason, { 'host-parked': 2, 'attempts-exhausted': 1 });
  }
  assert.deepEqual(calls[0], calls[1]);
  assert.ok(!calls[1]!.some((c) => c.includes('URL#')), calls[1]!.join('; '));
});

test("a run's URLs, counters and page budget are spread over its shards; a run made before shards keeps its one partition", async () => {
  const { store, table } = await fresh();
  const scan = async () => (await emu.clients.doc.send(new ScanCommand({ TableName: table }))).Items ?? [];
  const run = await store.createRun(['http://a.test/'], {}, 1);
  await store.addUrls(Array.from({ length: 200 }, (_, i) => row(run.id, `s${i}`)));
  let items = await scan();
  assert.equal(items.find((i) => i.type === 'RUN')?.shards, RUN_SHARDS);
  assert.equal(items.filter((i) => i.type === 'COUNTERS').length, RUN_SHARDS);
  const urlPartitions = new Set(items.filter((i) => i.type === 'URL').map((i) => String(i.PK)));
  assert.ok(urlPartitions.size >= RUN_SHARDS * 0.75, `${urlPartitions.size} partitions hold the run's URLs`);
  assert.ok(![...urlPartitions].includes(`RUN#${run.id}`));
  assert.equal((await store.getUrl(run.id, 's7'))?.urlId, 's7');
  assert.equal((await store.queuedUrls(run.id)).length, 200);

  // The budget: exactly maxPages claims succeed, however they fall on the shards. A spent shard
  // costs this process one failed write, not one each claim that walks past it.
  let failedWrites = 0;
  let batchReads = 0;
  const counting = new DynamoCrawlStore(
    {
      send: (command: never) => {
        if ((command as object).constructor.name === 'BatchGetCommand') batchReads++;
        return emu.clients.doc.send(command).catch((err: Error) => {
          if (err.name === 'ConditionalCheckFailedException') failedWrites++;
          throw err;
        });
      },
    } as never,
    table,
    { blobs: new S3BlobStore(new S3Objects(emu.clients.s3, 'unused')) },
  );
  const claims: boolean[] = [];
  for (let i = 0; i < 50; i++) claims.push(await counting.claimPageSlot(run.id, 50));
  assert.ok(failedWrites <= RUN_SHARDS, `${failedWrites} failed writes for 50 claims over ${RUN_SHARDS} shards`);
  // Spent: once every shard was found so, a claim reads the counters instead of failing writes.
  for (let i = 0; i < 3; i++) assert.equal(await counting.claimPageSlot(run.id, 50), false);
  const afterSpent = failedWrites;
  for (let i = 0; i < 10; i++) assert.equal(await counting.claimPageSlot(run.id, 50), false);
  assert.equal(failedWrites, afterSpent);
  // The turns an invocation takes at once, all finding the budget spent, share one read of the counters.
  const readsBefore = batchReads;
  assert.deepEqual(await Promise.all(Array.from({ length: 10 }, () => counting.claimPageSlot(run.id, 50))), Array(10).fill(false));
  assert.equal(batchReads - readsBefore, 1);
  claims.push(...(await Promise.all(Array.from({ length: 30 }, () => store.claimPageSlot(run.id, 50)))));
  assert.equal(claims.filter(Boolean).length, 50);
  assert.equal((await store.runProgress(run.id))?.pages, 50);
  await store.releasePageSlot(run.id);
  assert.equal((await store.runProgress(run.id))?.pages, 49);
  assert.equal(await store.claimPageSlot(run.id, 50), true);
  assert.equal(await store.claimPageSlot(run.id, 50), false);
  const progress = await store.runProgress(run.id);
  assert.deepEqual([progress?.enqueued, progress?.settled], [200, 0]);

  // A run whose RUN item names no shards (made before them) lives in `RUN#<id>` as it did.
  const old = 900;
  await emu.clients.doc.send(
    new PutCommand({ TableName: table, Item: { PK: `RUN#${old}`, SK: 'RUN', type: 'RUN', id: old, status: 'running', startedAt: 1, seeds: [], config: {} } }),
  );
  await emu.clients.doc.send(
    new PutCommand({
      TableName: table,
      Item: { PK: `RUN#${old}`, SK: 'COUNTERS', type: 'COUNTERS', runId: old, enqueued: 0, settled: 0, pages: 0, fetches: {} },
    }),
  );
  await store.addUrls([row(old, 'o1'), row(old, 'o2')]);
  await store.setUrlStates(old, ['o2'], 'skipped', 'max-depth');
  items = await scan();
  assert.deepEqual(
    items.filter((i) => i.type === 'URL' && i.runId === old).map((i) => i.PK),
    [`RUN#${old}`, `RUN#${old}`],
  );
  assert.deepEqual((await store.summary(old)).urlsByState, { queued: 1, skipped: 1 });
  assert.equal(await store.claimPageSlot(old, 1), true);
  assert.equal(await store.claimPageSlot(old, 1), false);
});

test('a run of a large page budget is spread over four times the shards, and its budget and counters hold across them', async () => {
  const { store, table } = await fresh();
  const run = await store.createRun(['http://a.test/'], { maxPages: LARGE_RUN_PAGES + 1 }, 1);
  const items = (await emu.clients.doc.send(new ScanCommand({ TableName: table }))).Items ?? [];
  assert.equal(items.find((i) => i.type === 'RUN')?.shards, LARGE_RUN_SHARDS);
  assert.equal(items.filter((i) => i.type === 'COUNTERS').length, LARGE_RUN_SHARDS);
  await store.addUrls(Array.from({ length: 300 }, (_, i) => row(run.id, `l${i}`)));
  const claims = await Promise.all(Array.from({ length: 300 }, () => store.claimPageSlot(run.id, 256)));
  assert.equal(claims.filter(Boolean).length, 256);
  const progress = await store.runProgress(run.id);
  assert.deepEqual([progress?.enqueued, progress?.pages], [300, 256]);
  assert.equal((await store.queuedUrls(run.id)).length, 300);
});

test('the text-change log is spread over its partitions and read back whole, oldest first; a fold takes every partition', async () => {
  const { table, objects } = await fresh();
  const enrich = new DynamoEnrichStore(emu.clients.doc, table, new S3BlobStore(objects), objects, 0);
  const ids = Array.from({ length: 40 }, (_, i) => `${(i * 7919).toString(16).padStart(8, '0')}page${i}`);
  for (const id of ids) await enrich.deleteEnrichment(id);
  const logged = ((await emu.clients.doc.send(new ScanCommand({ TableName: table }))).Items ?? []).filter((i) => i.type === 'TEXTLOG');
  assert.equal(logged.length, 40);
  assert.ok(new Set(logged.map((i) => i.PK)).size >= TEXT_LOG_SHARDS - 2, `partitions: ${[...new Set(logged.map((i) => i.PK))].join(', ')}`);
  const changed = await enrich.changedSince(0);
  assert.deepEqual([...changed].sort(), [...ids].sort());
  // Oldest first across partitions: the sort keys start with the time of the change.
  const order = logged.sort((a, b) => (String(a.SK) < String(b.SK) ? -1 : 1)).map((i) => String(i.urlId));
  assert.deepEqual(changed, [...new Set(order)]);
  assert.equal(await enrich.textLogBacklog(1000), 40);
  for (const [i, id] of ids.slice(0, 10).entries())
    await enrich.putEnrichment(enrichmentRecord(id, `Harbour ${id}`, [], { tookMs: 5 + i * 400 }), 'a harbour page');
  await new Promise((r) => setTimeout(r, 5));
  // The enrichments' times: read from the log until a fold takes them, then from the histogram's item, the same.
  const latency = await enrich.enrichLatency();
  assert.equal(latency.sumMs, 10 * 5 + 400 * 45);
  assert.equal(
    latency.counts.reduce((a, b) => a + b, 0),
    10,
  );
  // A backlog past a fold's share is folded over several folds, oldest first; queries see every change meanwhile.
  const first = await enrich.indexTextChanges({ maxChanges: 30 });
  assert.deepEqual([first.folded, first.deleted], [10, 20], 'the 30 oldest changes: deletions, 10 of them of pages enriched since');
  assert.equal(await enrich.textLogBacklog(1000), 20);
  assert.equal((await enrich.textSearch(['harbour'], {}, 50)).length, 10, 'the pages enriched after the deletions, from the log');
  assert.deepEqual(await enrich.enrichLatency(), latency);
  const second = await enrich.indexTextChanges({ maxChanges: 30 });
  assert.deepEqual([second.folded, second.deleted], [10, 10]);
  assert.equal(await enrich.textLogBacklog(1000), 0);
  assert.deepEqual(await enrich.enrichLatency(), latency, 'the fold added the times it took, once');
  const stats = ((await emu.clients.doc.send(new ScanCommand({ TableName: table }))).Items ?? []).filter((i) => i.type === 'ENRICH_STATS');
  assert.deepEqual(
    stats.map((i) => i.PK),
    ['ENRICH_STATS'],
    'one item, written by the fold',
  );
  assert.equal((await enrich.textSearch(['harbour'], {}, 50)).length, 10, 'from the segments');
  assert.equal(((await emu.clients.doc.send(new ScanCommand({ TableName: table }))).Items ?? []).filter((i) => i.type === 'TEXTLOG').length, 0);
});

test('a fold takes only changes older than the log skew; the run-end fold waits the skew out and takes the run whole', async () => {
  const { table, objects } = await fresh();
  const skewMs = 400;
  const enrich = new DynamoEnrichStore(emu.clients.doc, table, new S3BlobStore(objects), objects, skewMs);
  for (const id of ['a1', 'b2', 'c3']) await enrich.putEnrichment(enrichmentRecord(id, `Harbour ${id}`, []), 'a harbour page');
  // Just logged: a fold leaves them for later (a writer's clock may lag), queries read them from the log.
  const early = await enrich.indexTextChanges();
  assert.equal(early.folded, 0);
  assert.equal(await enrich.textLogBacklog(10), 3);
  assert.equal((await enrich.textSearch(['harbour'], {}, 10)).length, 3);
  // At a run's end: the fold waits the skew out, then takes every change logged before it was asked.
  const settled = await enrich.indexTextChanges({ settle: true });
  assert.equal(settled.folded, 3, 'the changes of seconds ago are folded: the fold waited them out');
  assert.equal(await enrich.textLogBacklog(10), 0);
  assert.equal((await enrich.textSearch(['harbour'], {}, 10)).length, 3, 'from the segments');
});

test("a claim's counter move rides the page slot its step claims next: one write for both, and a flush writes what no slot carried", async () => {
  const { store, table } = await fresh();
  const counterWrites: string[] = [];
  const counting = new DynamoCrawlStore(
    {
      send: (command: never) => {
        const c = command as { constructor: { name: string }; input: { Key?: { SK?: string } } };
        const counter = c.constructor.name === 'UpdateCommand' && String(c.input.Key?.SK).startsWith('COUNTERS');
        // Writes made (a failed conditional write changes nothing).
        return emu.clients.doc.send(command).then((out) => {
          if (counter) counterWrites.push(String(c.input.Key?.SK));
          return out;
        });
      },
    } as never,
    table,
    { blobs: new S3BlobStore(new S3Objects(emu.clients.s3, 'unused')) },
  );
  const run = await store.createRun([], {}, 1);
  await store.addUrls(['a', 'b', 'c'].map((id) => row(run.id, id)));
  const byState = async () => (await store.summary(run.id)).urlsByState;
  assert.deepEqual(await byState(), { queued: 3 });

  // A page: claimed, then its slot; the slot's update carries the move.
  assert.ok(await counting.claimUrl(run.id, 'a', 10, 60_000, true));
  assert.deepEqual(counterWrites, [], 'the claim alone writes no counter');
  assert.equal(await counting.claimPageSlot(run.id, 1), true);
  assert.equal(counterWrites.length, 1);
  assert.deepEqual(await byState(), { queued: 2, in_flight: 1 });
  assert.equal((await store.runProgress(run.id))?.pages, 1);

  // No slot taken (the budget of one page spent): the move waits for the flush.
  assert.ok(await counting.claimUrl(run.id, 'b', 10, 60_000, true));
  assert.equal(await counting.claimPageSlot(run.id, 1), false);
  assert.deepEqual(await byState(), { queued: 2, in_flight: 1 });
  await counting.flushCounters();
  assert.deepEqual(await byState(), { queued: 1, in_flight: 2 });
  await counting.flushCounters();
  assert.equal(counterWrites.length, 2, 'a second flush has nothing to write');

  // Given back before anything was written: the claim's move and the release's cancel out.
  assert.ok(await counting.claimUrl(run.id, 'c', 10, 60_000, true));
  await counting.releaseUrl(run.id, 'c');
  await counting.flushCounters();
  assert.deepEqual(await byState(), { queued: 1, in_flight: 2 });
  assert.equal(counterWrites.length, 2);
});

test("a fetching step's host page slot keeps its turn in the same write: counted out, renewed, and told apart when the slots are spent or the turn is stale", async () => {
  const { store } = await fresh();
  const run = await store.createRun([], {}, 1);
  const turn = (await store.addHostWork(run.id, 'h.test', 3, 100))!;
  assert.ok(turn, 'a host with no turn gets one');
  assert.equal(await store.keepTurnWithSlot(turn, 1, 200, 2), 'kept');
  assert.deepEqual(await store.hostTurn(run.id, 'h.test'), { queued: 2, turn: turn.turn, turnAt: 200 });
  assert.equal(await store.keepTurnWithSlot(turn, 1, 300, 2), 'kept');
  // Two pages of two: the third slot is refused and nothing is counted out.
  assert.equal(await store.keepTurnWithSlot(turn, 1, 400, 2), 'full');
  assert.deepEqual(await store.hostTurn(run.id, 'h.test'), { queued: 1, turn: turn.turn, turnAt: 300 });
  assert.equal(await store.keepTurnWithSlot({ ...turn, turn: turn.turn + 1 }, 1, 400, 5), 'stale');
  assert.deepEqual(await store.hostTurn(run.id, 'h.test'), { queued: 1, turn: turn.turn, turnAt: 300 });
  // The host slot a kept turn took is the one claimHostSlot counts: a third is still refused.
  assert.equal(await store.claimHostSlot(run.id, 'h.test', 2), false);
  assert.equal(await store.endTurn(turn, 1), true);
});
