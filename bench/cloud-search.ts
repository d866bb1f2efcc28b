// npm run bench:cloud-search — the cloud's full text (TERMS items in DynamoDB, generations in S3,
// a change log scored beside them) on the emulators (dynalite, s3rver): write rate and write units
// per page, query latency with everything in the delta, the build of a generation (time, bytes),
// query latency on the generation (cold, then warm), and with a 200-page delta on top.
// BENCH_CLOUD_SEARCH_SIZES=1000,5000 picks the sizes; the emulators are slower than the services,
// so the figures are an upper bound on time and exact on units and bytes.
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { createHash } from 'node:crypto';
import { LocalTextGenerator } from '../shared/enrich/local-provider.js';
import { plainText } from '../shared/enrich/text.js';
import { queryTerms } from '../shared/search/hybrid.js';
import { DynamoEnrichStore } from '../shared/store/aws/dynamo-enrich.js';
import { S3BlobStore, S3Objects } from '../shared/store/aws/s3-store.js';
import { S3TextIndex } from '../shared/store/aws/s3-text-index.js';
import type { EnrichmentRecord } from '../shared/store/ports/index.js';
import { startEmulators } from '../test/cloud/emulators.js';
import { QUERIES } from '../test/fixtures/search/corpus.js';
import { makePage, rng } from './search-corpus.js';

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
    const store = new DynamoEnrichStore(emu.clients.doc, names.table, new S3BlobStore(objects), new S3TextIndex(objects), 0);
    const random = rng(n);
    emu.meter.reset();
    let t = performance.now();
    await write(store, 0, n, random);
    const writeSeconds = (performance.now() - t) / 1000;
    const unitsPerPage = emu.meter.writeUnits / n;
    const allDelta = await latency(store, 20);
    t = performance.now();
    const built = await store.rebuildTextIndex();
    const buildSeconds = (performance.now() - t) / 1000;
    const listed = await emu.clients.s3.send(new ListObjectsV2Command({ Bucket: names.bucket, Prefix: `search/text/${built.generation}/` }));
    const bytes = (listed.Contents ?? []).reduce((s, o) => s + (o.Size ?? 0), 0);
    store.textIndex.refresh();
    t = performance.now();
    await store.textSearch(['compost'], {}, 50);
    const cold = performance.now() - t;
    const warm = await latency(store, 100);
    await write(store, n, n + DELTA, random);
    const withDelta = await latency(store, 50);
    rows.push(
      `| ${n.toLocaleString('en')} | ${(n / writeSeconds).toFixed(0)} | ${unitsPerPage.toFixed(1)} | ${allDelta} | ${buildSeconds.toFixed(1)} s | ${(bytes / 1024 ** 2).toFixed(1)} MiB | ${cold.toFixed(0)} ms | ${warm} | ${withDelta} |`,
    );
    console.log(`${n} pages: written at ${(n / writeSeconds).toFixed(0)}/s, generation built in ${buildSeconds.toFixed(1)} s (${built.docs} docs)`);
  }
} finally {
  await emu.stop();
}
console.log(
  '\n| pages | writes pages/s | write units / page | text query, all in delta (p50 / p99) | build | generation size | first query | text query on the generation | with a 200-page delta |',
);
console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
for (const r of rows) console.log(r);
