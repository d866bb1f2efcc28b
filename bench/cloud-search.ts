// npm run bench:cloud-search — the cloud's full text (TERMS items in DynamoDB, segments in S3, a
// change log scored beside them) on the emulators (dynalite, s3rver): write rate and write units
// per page, query latency with everything in the delta, the folds of 1,000 changed pages each as
// the run loop makes them (time of the slowest, merges, segments left, bytes), query latency on
// the segments (cold, then warm), and with a 200-page delta on top. Then the merge policy alone at
// 10⁵–10⁸ pages: how many segments a query reads.
// BENCH_CLOUD_SEARCH_SIZES=1000,5000 picks the sizes; the emulators are slower than the services,
// so the figures are an upper bound on time and exact on units and bytes.
import { createHash } from 'node:crypto';
import { LocalTextGenerator } from '../shared/enrich/local-provider.js';
import { plainText } from '../shared/enrich/text.js';
import { queryTerms } from '../shared/search/hybrid.js';
import { FAN_IN, plannedMerge, type SegmentInfo } from '../shared/search/text-segments.js';
import { DynamoEnrichStore } from '../shared/store/aws/dynamo-enrich.js';
import { S3BlobStore, S3Objects } from '../shared/store/aws/s3-store.js';
import type { EnrichmentRecord } from '../shared/ports/index.js';
import { startEmulators } from '../support/cloud/emulators.js';
import { QUERIES } from '../support/search/corpus.js';
import { makePage, rng } from './search-corpus.js';
import { machine, markdownTable, publish, today } from './report.js';

const SIZES = (process.env.BENCH_CLOUD_SEARCH_SIZES ?? '1000,5000').split(',').map(Number);
const DELTA = 200;
const pct = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const text = new LocalTextGenerator();

async function write(store: DynamoEnrichStore, from: number, to: number, random: () => number): Promise<void> {
  const width = 16;
  for (let i = from; i < to; i += width) {
    await Promise.all(
      Array.from({ length: Math.min(width, to - i) }, async (_, k) => {
        const n = i + k;
        const page = makePage(n, random);
        const doc = { url: `https://bench.test/${n}`, title: page.title, text: plainText(page.markdown) };
        const stamp = { ...text.summaryStamp, at: Date.now() };
        const record: EnrichmentRecord = {
          urlId: createHash('sha256').update(doc.url).digest('hex').slice(0, 32),
          url: doc.url,
          host: 'bench.test',
          title: doc.title,
          textHash: String(n),
          summary: await text.summarize(doc),
          tags: await text.tag(doc),
          language: 'en',
          summaryStamp: stamp,
          tagsStamp: { ...text.tagsStamp, at: stamp.at },
          updatedAt: stamp.at,
        };
        await store.putEnrichment(record, doc.text);
      }),
    );
  }
}

/** Changed pages a fold takes (the run loop's default bound). */
const FOLD_PAGES = 1000;

/** Folds the pages in FOLD_PAGES at a time, each fold after its pages were rewritten (as enrichment goes on during a run). */
async function foldInSteps(
  store: DynamoEnrichStore,
  n: number,
  random: () => number,
): Promise<{ folds: number; merges: number; segments: number; slowest: number }> {
  let folds = 0;
  let merges = 0;
  let segments = 0;
  let slowest = 0;
  for (let from = 0; from < n; from += FOLD_PAGES) {
    if (from > 0) await write(store, from, Math.min(n, from + FOLD_PAGES), random);
    const t = performance.now();
    const fold = await store.indexTextChanges();
    slowest = Math.max(slowest, (performance.now() - t) / 1000);
    folds += 1;
    merges += fold.merges;
    segments = fold.segments;
  }
  return { folds, merges, segments, slowest };
}

/** The segments the merge policy leaves after `pages` pages folded in `foldPages` at a time. */
function segmentsAfter(pages: number, foldPages: number): { segments: number; largest: number } {
  let list: SegmentInfo[] = [];
  for (let folded = 0; folded < pages; folded += foldPages) {
    list.push({ id: '', level: 0, docs: Math.min(foldPages, pages - folded), tombstones: 0, shards: 1 });
    for (let from = plannedMerge(list); from !== undefined; from = plannedMerge(list)) {
      const merged = list.slice(from);
      list = [...list.slice(0, from), { id: '', level: merged[0]!.level + 1, docs: merged.reduce((n, s) => n + s.docs, 0), tombstones: 0, shards: 1 }];
    }
  }
  return { segments: list.length, largest: Math.max(...list.map((s) => s.docs)) };
}

async function latency(store: DynamoEnrichStore, runs: number): Promise<string> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t = performance.now();
    await store.textSearch(queryTerms(QUERIES[i % QUERIES.length]!.q), {}, 50);
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return `${pct(times, 50).toFixed(1)} / ${pct(times, 99).toFixed(1)} ms`;
}

const emu = await startEmulators();
const rows: string[] = [];
console.log(`bench:cloud-search — DynamoDB (dynalite) + S3 (s3rver), Node ${process.version}\n`);
try {
  for (const n of SIZES) {
    const names = await emu.provision(`bench-text-${n}`);
    const objects = new S3Objects(emu.clients.s3, names.bucket);
    // One process, one clock: no skew margin, so the delta after a build is what was written after it.
    const store = new DynamoEnrichStore(emu.clients.doc, names.table, new S3BlobStore(objects), objects, 0);
    const random = rng(n);
    emu.meter.reset();
    let t = performance.now();
    await write(store, 0, n, random);
    const writeSeconds = (performance.now() - t) / 1000;
    const unitsPerPage = emu.meter.writeUnits / n;
    const allDelta = await latency(store, 20);
    // Fold as the run loop does: every FOLD_PAGES changes (the pages are rewritten fold by fold).
    const folded = await foldInSteps(store, n, random);
    const listed = await objects.list('search/text/');
    const bytes = listed.reduce((s, o) => s + o.size, 0);
    store.textIndex.refresh();
    t = performance.now();
    await store.textSearch(['compost'], {}, 50);
    const cold = performance.now() - t;
    const warm = await latency(store, 100);
    await write(store, n, n + DELTA, random);
    const withDelta = await latency(store, 50);
    rows.push(
      `| ${n.toLocaleString('en')} | ${(n / writeSeconds).toFixed(0)} | ${unitsPerPage.toFixed(1)} | ${allDelta} | ${folded.folds} (${folded.merges} merges) | ${folded.slowest.toFixed(1)} s | ${folded.segments} | ${(bytes / 1024 ** 2).toFixed(1)} MiB | ${cold.toFixed(0)} ms | ${warm} | ${withDelta} |`,
    );
    console.log(
      `${n} pages: written at ${(n / writeSeconds).toFixed(0)}/s, ${folded.folds} folds, the slowest ${folded.slowest.toFixed(1)} s, ${folded.segments} segments`,
    );
  }
} finally {
  await emu.stop();
}
const header =
  '| pages | writes pages/s | write units / page | text query, all in delta (p50 / p99) | folds | slowest fold | segments | index size | first query | text query on the segments | with a 200-page delta |';
console.log(
  '\n| pages | writes pages/s | write units / page | text query, all in delta (p50 / p99) | folds | slowest fold | segments | index size | first query | text query on the segments | with a 200-page delta |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) console.log(r);
console.log(`\nThe merge policy alone (folds of ${FOLD_PAGES.toLocaleString('en')} pages, ${FAN_IN} segments of a level merge):`);
console.log('\n| pages | segments a query reads | largest segment |\n|---:|---:|---:|');
const policy: string[] = [];
for (const pages of [1e5, 1e6, 1e7, 1e8]) {
  const s = segmentsAfter(pages, FOLD_PAGES);
  policy.push(`| ${pages.toExponential(0)} | ${s.segments} | ${s.largest.toLocaleString('en')} pages |`);
  console.log(policy.at(-1));
}
publish({
  bench: 'cloud-search',
  command: 'npm run bench:cloud-search',
  machine: machine(),
  measured: today(),
  tables: [
    markdownTable(header, rows, 'DynamoDB (dynalite) and S3 (s3rver) on loopback: times are upper bounds, units and bytes exact.'),
    markdownTable(
      '| pages | segments a query reads | largest segment |',
      policy,
      `The merge policy alone (folds of ${FOLD_PAGES.toLocaleString('en')} pages, ${FAN_IN} segments of a level merge):`,
    ),
  ],
});
