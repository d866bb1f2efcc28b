// The item table of docs/cloud.md is held to the code: every key the DynamoDB store builds matches
// one documented row (PK and SK), and every documented row is a key the store builds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { keys, RUN_SHARDS } from '../../shared/store/aws/table-layout.js';
import { changeKey, lastKey, linkKey } from '../../shared/store/aws/dynamo-changes.js';
import { enrichKeys } from '../../shared/store/aws/dynamo-enrich.js';
import { TOP_KEY } from '../../shared/store/aws/dynamo-ranks.js';
import { TEXT_MANIFEST_KEY } from '../../shared/store/aws/dynamo-text-log.js';
import { MAX_INLINE_WAIT_MS } from '../../shared/pipeline/cloud/fetch-worker.js';
import { FRONTIER_QUEUE } from '../../shared/store/aws/sqs-frontier.js';

interface Row {
  type: string;
  pk: RegExp[];
  sk: RegExp[];
}

/** A documented key pattern (`RUN#<runId>#<shard>`) as a regular expression: each `<…>` one segment. */
const pattern = (text: string) =>
  new RegExp(
    `^${text
      .split(/<[^>]+>/)
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
      .join('[^#]+')}$`,
  );
const backticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => pattern(m[1]!));

function documentedItems(): Row[] {
  const lines = readFileSync('docs/cloud.md', 'utf8').split('\n');
  const start = lines.findIndex((l) => /^\| type \| PK \| SK \|/.test(l));
  assert.ok(start >= 0, 'docs/cloud.md has the item table (| type | PK | SK | …)');
  const rows: Row[] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    const [type, pk, sk] = line
      .split('|')
      .slice(1, 4)
      .map((c) => c.trim()) as [string, string, string];
    rows.push({ type, pk: backticked(pk), sk: backticked(sk) });
  }
  return rows;
}

/** One key of each kind the store writes, built by the code that writes it. */
function builtKeys(): Record<string, { PK: string; SK: string }> {
  const run = 7;
  const id = '0f3a9c';
  const perKey: Record<keyof typeof keys, { PK: string; SK: string }> = {
    runCounter: keys.runCounter(),
    runningRun: keys.runningRun(run),
    crawlLatest: keys.crawlLatest('nightly'),
    run: keys.run(run),
    runCounters: keys.runCounters(run, RUN_SHARDS, 3),
    runMinute: keys.runMinute(run, 29_000_000, RUN_SHARDS, 3),
    frontier: keys.frontier(run, id, RUN_SHARDS),
    runHost: keys.runHost(run, 'a.test', RUN_SHARDS),
    waiting: keys.waiting(run, 'a.test', id, 0, RUN_SHARDS),
    trap: keys.trap(run, 'a.test/cal/*', RUN_SHARDS),
    runParked: keys.runParked(run, 'a.test'),
    selection: keys.selection(run, id),
    host: keys.host('a.test'),
    robots: keys.robots('a.test'),
    page: keys.page(id),
    extract: keys.extract(id),
    alias: keys.alias(id),
    fetch: keys.fetch(id, 1_790_000_000_000, 'd1'),
    links: keys.links(id, 'ab12'),
    inlinks: keys.inlinks(id),
    chunk: keys.chunk(id, 3),
    band: keys.band(2, 'ab12c', id),
    body: keys.body('ab'.repeat(32)),
    text: keys.text('cd'.repeat(8)),
  };
  return {
    ...perKey,
    change: changeKey(run, id),
    changeOfLink: changeKey(run, id, 'newly-linked'),
    linkChange: linkKey(run, id, 'e1'),
    lastChange: lastKey(id),
    enrichment: enrichKeys.enrichment(id),
    terms: enrichKeys.terms(id),
    textLog: enrichKeys.textLog(1_790_000_000_000, id),
    enrichFailure: enrichKeys.failure(id),
    latency: enrichKeys.latency(0),
    latencyShard: enrichKeys.latency(3),
    top: TOP_KEY,
    textManifest: TEXT_MANIFEST_KEY,
  };
}

test("every key the DynamoDB store builds is a row of docs/cloud.md's item table, and every row is a key it builds", () => {
  const rows = documentedItems();
  const used = new Set<string>();
  for (const [name, key] of Object.entries(builtKeys())) {
    const hits = rows.filter((r) => r.pk.some((p) => p.test(key.PK)) && r.sk.some((s) => s.test(key.SK)));
    assert.ok(hits.length > 0, `${name} (${key.PK} / ${key.SK}) is in no row of the item table in docs/cloud.md`);
    for (const h of hits) used.add(h.type);
  }
  assert.deepEqual(
    rows.map((r) => r.type).filter((t) => !used.has(t)),
    [],
    'rows of the item table that no key of the store matches',
  );
});

test("docs/cloud.md states the fetch worker's inline wait and the frontier's redrive as the code has them", () => {
  const doc = readFileSync('docs/cloud.md', 'utf8');
  assert.ok(doc.includes(`ready within ${MAX_INLINE_WAIT_MS} ms`), `the inline wait is ${MAX_INLINE_WAIT_MS} ms`);
  assert.ok(
    doc.includes(`DLQ after ${FRONTIER_QUEUE.maxReceiveCount} receives`),
    `the frontier's DLQ takes a message after ${FRONTIER_QUEUE.maxReceiveCount} receives`,
  );
});
