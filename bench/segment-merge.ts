// npm run bench:segment-merge — the cloud full-text index's largest merge, measured: eight
// segments of 64,000 pages each (synthetic postings: about 120 distinct stems a page from a
// Zipf-distributed vocabulary) folded in, the eighth fold running the merge into one segment of
// 512,000 pages (the largest the merge policy makes with folds of 1,000 pages). The objects live on
// disk (a temporary directory in place of S3), so the process's memory is the merge's own. It
// prints the merge's time, the peak RSS and heap during it, and the bytes it read and wrote. Then,
// in a fresh process, queries over the merged index: what a query holds (its peak RSS over the
// process's own), how long it takes and what it reads, the index's page table being far larger.
// BENCH_MERGE_SEGMENT_PAGES changes the input segments' size (64,000), BENCH_MERGE_HEAP_MB the
// V8 old space each step runs in (1,100 MB).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { S3TextIndex } from '../shared/store/aws/s3-text-index.js';
import type { S3Objects } from '../shared/store/aws/s3-store.js';
import type { DynamoTextManifest } from '../shared/store/aws/dynamo-text-log.js';
import type { PostedDoc } from '../shared/search/text-postings.js';
import { FAN_IN } from '../shared/search/text-segments.js';
import { searchSegments } from '../shared/search/segment-search.js';
import type { SearchFilters } from '../shared/ports/index.js';
import { machine, markdownTable, publish, today } from './report.js';
import { rng } from './search-corpus.js';

const SEGMENT_PAGES = Number(process.env.BENCH_MERGE_SEGMENT_PAGES ?? 64_000);
/** V8's old space for each step, well inside FinalizeRun's 1,769 MB: what a Lambda of that size can hold. */
const HEAP_MB = Number(process.env.BENCH_MERGE_HEAP_MB ?? 1100);
const VOCABULARY = 200_000;
const TERMS_A_PAGE = 120;

/** Objects as files under a directory: what S3TextIndex reads and writes, counted. */
function diskObjects(dir: string) {
  const io = { readBytes: 0, writtenBytes: 0, reads: 0, writes: 0 };
  const path = (key: string) => join(dir, key);
  const objects = {
    async put(key: string, body: Buffer | string): Promise<void> {
      await mkdir(dirname(path(key)), { recursive: true });
      await writeFile(path(key), body);
      io.writes += 1;
      io.writtenBytes += Buffer.byteLength(body);
    },
    async get(key: string): Promise<Buffer | undefined> {
      const body = await readFile(path(key)).catch(() => undefined);
      if (!body) return undefined;
      io.reads += 1;
      io.readBytes += body.length;
      return body;
    },
    async deleteMany(keys: string[]): Promise<void> {
      for (const k of keys) await rm(path(k), { force: true });
    },
    async list(prefix: string): Promise<Array<{ key: string; size: number }>> {
      const names = (await readdir(dir, { recursive: true }).catch(() => [] as string[])).map((n) => n.split('\\').join('/'));
      const out: Array<{ key: string; size: number }> = [];
      for (const key of names.filter((n) => n.startsWith(prefix)).sort()) {
        const info = await stat(path(key));
        if (info.isFile()) out.push({ key, size: info.size });
      }
      return out;
    },
  };
  return { objects: objects as unknown as S3Objects, io };
}

/** The manifest cell in a file: a versioned swap, as DynamoDB's conditional put gives it. */
function fileCell(dir: string): DynamoTextManifest {
  const file = join(dir, 'manifest.json');
  const read = async () => JSON.parse((await readFile(file).catch(() => Buffer.from('null'))).toString()) as { version: number; manifest: string } | undefined;
  return {
    read: async () => (await read()) ?? undefined,
    swap: async (manifest: string, expected: number) => {
      if (((await read())?.version ?? 0) !== expected) return false;
      await writeFile(file, JSON.stringify({ version: expected + 1, manifest }));
      return true;
    },
  } as unknown as DynamoTextManifest;
}

/** A Zipf-ish stem index: low ranks far more often, as words are. */
function zipf(random: () => number): number {
  return Math.min(VOCABULARY - 1, Math.floor(Math.exp(random() * Math.log(VOCABULARY)) - 1));
}

function segmentDocs(seg: number, random: () => number): PostedDoc[] {
  return Array.from({ length: SEGMENT_PAGES }, (_, i) => {
    const terms = new Map<string, number>();
    while (terms.size < TERMS_A_PAGE) terms.set(`t${zipf(random).toString(36)}`, 1 + Math.floor(random() * 4));
    const n = seg * SEGMENT_PAGES + i;
    return { urlId: n.toString(16).padStart(32, '0'), host: `host${n % 997}.test`, tags: [], length: 400 + Math.floor(random() * 800), terms };
  });
}

/** The eighth fold and its merge, in a process of its own: its memory is the fold's and the merge's only. */
async function mergeStep(dir: string): Promise<void> {
  const { objects, io } = diskObjects(join(dir, 'objects'));
  const index = new S3TextIndex(objects, fileCell(dir));
  const docs = segmentDocs(FAN_IN - 1, rng(8));
  globalThis.gc?.();
  const base = process.memoryUsage();
  let peakHeap = base.heapUsed;
  const sampler = setInterval(() => (peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed)), 20);
  const started = performance.now();
  const fold = await index.fold(await index.manifest(), docs, [], FAN_IN);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const merged = (await index.manifest())!.manifest.segments.at(-1)!;
  const maxRss = process.resourceUsage().maxRSS * 1024;
  process.stdout.write(JSON.stringify({ seconds, merges: fold.merges, merged, baseRss: base.rss, maxRss, baseHeap: base.heapUsed, peakHeap, io }) + '\n');
}

/** Queries over the merged index from a fresh process: a common term, a rare one, two together, and one filtered by host. */
const QUERIES: Array<{ label: string; terms: string[]; filters: SearchFilters }> = [
  { label: 'a term on nearly every page', terms: ['t0'], filters: {} },
  { label: 'a rare term', terms: [`t${(150_000).toString(36)}`], filters: {} },
  { label: 'two common terms', terms: ['t1', 't2'], filters: {} },
  { label: 'a common term, one host', terms: ['t3'], filters: { domain: 'host7.test' } },
];

async function queryStep(dir: string): Promise<void> {
  const { objects, io } = diskObjects(join(dir, 'objects'));
  const index = new S3TextIndex(objects, fileCell(dir));
  globalThis.gc?.();
  const base = process.memoryUsage();
  const results: Array<{ label: string; ms: number; hits: number; readBytes: number; reads: number }> = [];
  for (const q of QUERIES) {
    const before = { ...io };
    const started = performance.now();
    const snapshot = (await index.snapshot())!;
    const hits = await searchSegments(snapshot, q.terms, { replaced: new Set(), fresh: [] }, q.filters, 10);
    results.push({
      label: q.label,
      ms: performance.now() - started,
      hits: hits.length,
      readBytes: io.readBytes - before.readBytes,
      reads: io.reads - before.reads,
    });
  }
  const maxRss = process.resourceUsage().maxRSS * 1024;
  const rows = (await objects.list('search/text/')).filter((o) => /rows-\d+\.json$/.test(o.key));
  const tableBytes = rows.reduce((n, o) => n + o.size, 0);
  process.stdout.write(JSON.stringify({ baseRss: base.rss, maxRss, results, tableBytes }) + '\n');
}

if (process.argv[2] === '--merge-step') {
  await mergeStep(process.argv[3]!);
  process.exit(0);
}
if (process.argv[2] === '--query-step') {
  await queryStep(process.argv[3]!);
  process.exit(0);
}

/** Runs a step in a process of its own and returns its JSON line. */
function step<T>(name: string, dir: string): T {
  const heap = [`--max-old-space-size=${HEAP_MB}`];
  const child = spawnSync(process.execPath, ['--expose-gc', ...heap, '--import', 'tsx', 'bench/segment-merge.ts', `--${name}-step`, dir], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: process.env,
  });
  if (child.status !== 0) throw new Error(`the ${name} step failed (exit ${child.status})`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as T;
}

const dir = mkdtempSync(join(tmpdir(), 'trawl-merge-'));
try {
  const { objects, io } = diskObjects(join(dir, 'objects'));
  const index = new S3TextIndex(objects, fileCell(dir));
  const random = rng(7);
  for (let seg = 0; seg < FAN_IN - 1; seg++) await index.fold(await index.manifest(), segmentDocs(seg, random), [], seg + 1);
  const inputBytes = io.writtenBytes;
  const m = step<{
    seconds: number;
    merges: number;
    merged: { docs: number; shards: number };
    baseRss: number;
    maxRss: number;
    baseHeap: number;
    peakHeap: number;
    io: { readBytes: number; writtenBytes: number; reads: number; writes: number };
  }>('merge', dir);
  const q = step<{
    baseRss: number;
    maxRss: number;
    tableBytes: number;
    results: Array<{ label: string; ms: number; hits: number; readBytes: number; reads: number }>;
  }>('query', dir);
  const mib = (n: number) => (n / 2 ** 20).toFixed(0);
  const header =
    '| pages merged | inputs | merges | the merged segment | the fold with its merge | peak RSS (its docs held: before the fold) | peak heap (before the fold) | read | written |';
  const row = `| ${(SEGMENT_PAGES * FAN_IN).toLocaleString('en')} | ${FAN_IN} × ${SEGMENT_PAGES.toLocaleString('en')} | ${m.merges} | ${m.merged.docs.toLocaleString('en')} pages, ${m.merged.shards} term shards | ${m.seconds.toFixed(1)} s | ${mib(m.maxRss)} MiB (${mib(m.baseRss)}) | ${mib(m.peakHeap)} MiB (${mib(m.baseHeap)}) | ${mib(m.io.readBytes)} MiB in ${m.io.reads} reads | ${mib(m.io.writtenBytes)} MiB in ${m.io.writes} writes |`;
  console.log(header);
  console.log(row);
  const queryHeader = '| query over the merged index (a fresh process) | hits | time | read |';
  const queryRows = q.results.map((r) => `| ${r.label} | ${r.hits} | ${r.ms.toFixed(0)} ms | ${mib(r.readBytes)} MiB in ${r.reads} reads |`);
  console.log(queryHeader);
  for (const r of queryRows) console.log(r);
  const queryNote = `The four queries' process peaked at ${mib(q.maxRss)} MiB RSS (${mib(q.baseRss)} MiB before the first); the index's page table is ${mib(q.tableBytes)} MiB as JSON, of which a query reads only the chunks of its hits (a filtered one, the segment's field columns besides).`;
  console.log(queryNote);
  const note = `The inputs took ${mib(inputBytes)} MiB (page tables and term shards as JSON). The fold's own ${SEGMENT_PAGES.toLocaleString('en')} pages are in memory before it starts (a run's fold holds 1,000), and each step runs with V8's old space capped at ${HEAP_MB.toLocaleString('en')} MB. A merge holds every input's page table and the merged one whole, and writes its term shards in groups (those whose terms come from the same input shards), reading each input shard once; the heap's peak counts garbage not yet collected.`;
  console.log(note);
  publish({
    bench: 'segment-merge',
    command: 'npm run bench:segment-merge',
    machine: machine(),
    measured: today(),
    tables: [markdownTable(header, [row]), markdownTable(queryHeader, queryRows)],
    notes: [note, queryNote],
  });
} finally {
  rmSync(dir, { recursive: true, force: true });
}
